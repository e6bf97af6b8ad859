"""Scripted policies: a task's own solutions, or the empty one, submitted like an agent would;
and ``mix:SEED``, which picks among them per task and sample like a model of uneven skill."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from assay.errors import PolicySpecError
from assay.families import family_of
from assay.families.base import Toolset, gives_tools
from assay.policies.base import PolicyIdentity, PolicyRequest, PolicyTurn
from assay.policies.messages import Message, ToolCall
from assay.tasks.model import REFERENCE, Files, Task

ScriptKind = Literal["reference", "bad", "empty", "mix"]


class ScriptedPolicy:
    """Submits fixed files: in tools mode each file with ``write_file`` and then ``submit`` in
    one message; in single-turn mode one answer holding the fenced entry point."""

    def __init__(self, kind: ScriptKind, label: str | None = None) -> None:
        self.kind = kind
        self.label = label
        self.spec = f"bad:{label}" if kind == "bad" else kind

    def identity(self) -> PolicyIdentity:
        """The spec is the whole identity: the files come from the task's version."""
        return PolicyIdentity(spec=self.spec, kind=self.kind)

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        """The scripted submission; after it, a closing message without tool calls."""
        toolset = _toolset(request.task)
        files = self._files(request.task)
        if not request.tools:
            answer = toolset.script_answer(files)
            return PolicyTurn(message=Message(role="assistant", content=answer))
        if any(message.role == "assistant" for message in request.messages):
            return PolicyTurn(message=Message(role="assistant", content="Done."))
        calls = tuple(
            ToolCall(id=f"call-{index}", name=name, arguments=json.dumps(arguments))
            for index, (name, arguments) in enumerate(toolset.script(files))
        )
        return PolicyTurn(message=Message(role="assistant", content=None, tool_calls=calls))

    def _files(self, task: Task) -> Files:
        name = self.solution_name(task)
        if name is None:
            return family_of(task).empty_solution(task)
        if name not in task.solutions:
            known = ", ".join(f"bad:{n.removeprefix('bad-')}" for n in task.known_bad()) or "none"
            raise PolicySpecError(
                f"task {task.id} has no solution {name!r}",
                field="policy",
                fix=f"its known-bad policies are: {known}",
            )
        return task.solutions[name]

    def solution_name(self, task: Task) -> str | None:
        """The name of the solution submitted on ``task``; None for the empty submission."""
        if self.kind == "empty":
            return None
        return REFERENCE if self.kind == "reference" else f"bad-{self.label}"


class MixedPolicy:
    """``mix:SEED``: a scripted stand-in for a model of uneven skill, for demos and for testing
    what reads pass rates (profiles, triage, the audit's quarantine) without a model.

    Each task gets a skill from its id and the seed: a fifth of the tasks 0 (never solved), a
    fifth 1 (always solved), the rest spread evenly between. Each sample of a task submits the
    reference with that probability, drawn from the task id, the seed and the sample index, and
    otherwise one of the task's known-bad solutions (the empty submission when it has none).
    The choices are a pure function of (seed, task id, sample): a resumed or repeated run makes
    the same ones.
    """

    kind = "mix"

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.spec = f"mix:{seed}"

    def identity(self) -> PolicyIdentity:
        """The spec is the whole identity: the choices follow from it and the task's version."""
        return PolicyIdentity(spec=self.spec, kind=self.kind)

    def skill(self, task_id: str) -> float:
        """The probability that a sample of ``task_id`` submits the reference."""
        draw = _unit(self.seed, task_id)
        if draw < 0.2:
            return 0.0
        if draw >= 0.8:
            return 1.0
        return (draw - 0.2) / 0.6

    def choice(self, task: Task, sample: int) -> str | None:
        """The solution sample ``sample`` submits on ``task``; None for the empty one."""
        if _unit(self.seed, task.id, sample) < self.skill(task.id):
            return REFERENCE
        bad = sorted(task.known_bad())
        if not bad:
            return None
        return bad[int(_unit(self.seed, task.id, sample, "bad") * len(bad))]

    def for_sample(self, sample: int) -> ScriptedPolicy:
        """The policy of the episodes of sample index ``sample``."""
        return _MixedSample(self, sample)

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        """As sample 0 would act; a run asks :meth:`for_sample` for each sample's policy."""
        return await self.for_sample(0).act(request)


class _MixedSample(ScriptedPolicy):
    """One sample index of a :class:`MixedPolicy`."""

    def __init__(self, mixed: MixedPolicy, sample: int) -> None:
        super().__init__("mix")
        self.spec = mixed.spec
        self._mixed = mixed
        self._sample = sample

    def solution_name(self, task: Task) -> str | None:
        return self._mixed.choice(task, self._sample)


def _unit(*parts: object) -> float:
    """A number in [0, 1) that depends only on ``parts``, the same on every machine."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _toolset(task: Task) -> Toolset:
    family = family_of(task)
    if not gives_tools(family):
        raise PolicySpecError(
            f"family {family.name!r} gives agents no tools",
            field="policy",
            fix="pick a task of a family with tools",
        )
    return family.tools(task)
