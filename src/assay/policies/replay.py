"""``replay:RUN``: the recorded actions of an earlier run, replayed against the current tasks.

Each episode replays the episode of the same task and sample index in run ``RUN``: turn by turn,
the assistant messages it recorded (tool calls included) are sent again, and the current task
version's tools and verifier answer them. A task changed since then can so be checked against
what agents did before. Replayed turns cost no tokens. When the recorded turns run out, the
replay fails, unless the recorded episode had ended in an infrastructure error: then what the
model would have done is unknown, and the replay is an error too, never a score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from assay.errors import PolicyError, PolicySpecError
from assay.policies.base import PolicyIdentity, PolicyRequest, PolicyTurn
from assay.policies.messages import Message


@dataclass(frozen=True)
class Recorded:
    """One recorded episode, as a replay needs it."""

    turns: tuple[PolicyTurn, ...]
    """The policy's turns in order (message and tool calls; the policy's own failure, if any)."""
    infrastructure_error: bool = False
    """Whether the recorded episode ended because the infrastructure failed."""
    mode: str = "tools"
    """The recorded episode's mode (tools or single): a replay in the other mode would send
    tool calls no tool runs, or send no tools for the calls."""


class ReplayPolicy:
    """Replays run ``run``; :meth:`for_sample` gives the policy of one sample index."""

    def __init__(self, run: str, recorded: Mapping[tuple[str, int], Recorded]) -> None:
        self.run = run
        self.spec = f"replay:{run}"
        self.recorded = recorded
        self.sample = 0

    def for_sample(self, sample: int) -> ReplayPolicy:
        """This replay, for the episodes of sample index ``sample``."""
        bound = ReplayPolicy(self.run, self.recorded)
        bound.sample = sample
        return bound

    def identity(self) -> PolicyIdentity:
        """The run replayed names the policy."""
        return PolicyIdentity(spec=self.spec, kind="replay")

    def has(self, task_id: str, sample: int) -> bool:
        """Whether the run recorded an episode of ``task_id`` with this sample index."""
        return (task_id, sample) in self.recorded

    def mode_of(self, task_id: str, sample: int) -> str | None:
        """The mode of the recorded episode of ``task_id`` and ``sample``; None for none."""
        episode = self.recorded.get((task_id, sample))
        return None if episode is None else episode.mode

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        """The recorded turn at this point of the conversation."""
        key = (request.task.id, self.sample)
        episode = self.recorded.get(key)
        if episode is None:
            raise PolicySpecError(
                f"run {self.run!r} has no episode of task {key[0]} sample {key[1]}",
                field="policy",
                fix="replay a run over the same tasks and k",
            )
        index = sum(message.role == "assistant" for message in request.messages)
        if index < len(episode.turns):
            return episode.turns[index]
        if episode.infrastructure_error:
            raise PolicyError(
                f"the recorded episode of {key[0]} sample {key[1]} in run {self.run!r} ended in "
                "an infrastructure error; there is nothing more to replay"
            )
        return PolicyTurn(
            message=Message(role="assistant"),
            failure=f"the recorded episode has no turn {index + 1}",
        )
