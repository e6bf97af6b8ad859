"""The policy extension point: given the conversation and the tools, the next assistant message."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from assay.policies.messages import Message, Usage
from assay.tasks.model import Task


class TurnClock:
    """The time a turn's act has spent on the model, its waits for the infrastructure left
    out: the episode's turn limit (``Budget.max_turn_s``) counts only the time this clock runs.

    A policy pauses it (:meth:`paused`) while it waits on what is not the model's work, such as
    a free request slot under the run's cap (``max_requests``; ``openai:MODEL`` does so), and
    an episode queued behind others is not cut off before its request is sent. The limit stays
    a hard bound on the rest: a request in flight, or a retry's backoff, runs the clock. A
    policy that never pauses it is held to the wall time of its whole act.
    """

    def __init__(self) -> None:
        self._paused_at: float | None = None
        self._paused_s = 0.0
        self._resumed: asyncio.Event | None = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock for the block (within a paused block, nothing more)."""
        if self._paused_at is not None:
            yield
            return
        self._paused_at, self._resumed = time.monotonic(), asyncio.Event()
        try:
            yield
        finally:
            self._paused_s += time.monotonic() - self._paused_at
            self._paused_at = None
            self._resumed.set()

    @property
    def is_paused(self) -> bool:
        """Whether the clock is stopped now."""
        return self._paused_at is not None

    def paused_s(self) -> float:
        """Seconds the clock has been stopped, the pause under way too."""
        now = time.monotonic()
        return self._paused_s + (0.0 if self._paused_at is None else now - self._paused_at)

    async def resumed(self) -> None:
        """Return once the clock runs."""
        while self._paused_at is not None and self._resumed is not None:
            await self._resumed.wait()


@dataclass(frozen=True)
class PolicyRequest:
    """What a policy is asked: the conversation so far, the tools, and the task (which scripted
    policies read their solutions from; model policies see only the messages)."""

    messages: Sequence[Message]
    """The conversation so far, system prompt first."""
    tools: Sequence[dict[str, Any]]
    """Tool schemas in OpenAI function format; empty in single-turn mode."""
    task: Task
    """The task of the episode."""
    clock: TurnClock = field(default_factory=TurnClock)
    """The turn's clock, which the policy stops while it waits on the infrastructure."""


class PolicyTurn(BaseModel):
    """A policy's answer: the assistant message, or the reason the policy failed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: Message = Field(description="The assistant message, with any tool calls.")
    usage: Usage = Field(default_factory=Usage, description="Tokens this turn used.")
    served_model: str | None = Field(
        default=None, description="The model name the server reported; None for scripted ones."
    )
    latency_s: float = Field(default=0.0, ge=0, description="Wall time of the answer, retries too.")
    waited_s: float = Field(
        default=0.0,
        ge=0,
        description="Part of the latency spent on the infrastructure, not the model: waiting for "
        "a free request slot, failed attempts and their backoff. An episode's wall-time budget "
        "leaves it out.",
    )
    retries: int = Field(default=0, ge=0, description="Requests retried before this answer.")
    dropped_tool_calls: int = Field(
        default=0,
        ge=0,
        description="Tool calls the answer held past the most a turn takes: left out of "
        "``message``, never run; the episode records them and tells the model.",
    )
    failure: str | None = Field(
        default=None,
        description="Set when the model itself failed (refusal, overlong context, empty answer): "
        "the episode ends as fail.",
    )


class Sampling(BaseModel):
    """Sampling parameters sent with every request; None leaves the server's default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(default=None, ge=0, le=2, description="Temperature.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling mass.")
    max_tokens: int | None = Field(default=None, ge=1, description="Most tokens per answer.")
    seed: int | None = Field(default=None, description="Sampling seed, where the server obeys it.")


class PolicyIdentity(BaseModel):
    """Enough about a policy to say what produced a trajectory, and to run it again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str = Field(description="The spec it was made from: openai:MODEL, reference, bad:LABEL.")
    kind: str = Field(description="openai, reference, bad or empty.")
    model: str | None = Field(default=None, description="The model asked for, for model policies.")
    served_model: str | None = Field(
        default=None, description="The model name the server reported in its answers."
    )
    base_url: str | None = Field(default=None, description="The endpoint, for model policies.")
    sampling: Sampling = Field(default_factory=Sampling, description="Sampling parameters, seed.")
    prompt_version: str = Field(default="", description="Version of the prompt template used.")
    tools_version: str = Field(default="", description="Version of the tool schemas offered.")


@runtime_checkable
class Policy(Protocol):
    """What acts in an episode. Built in: ``openai:MODEL``, ``reference``, ``bad:LABEL``,
    ``empty`` (see :func:`assay.policies.parse_policy`)."""

    spec: str
    """The spec this policy was made from."""

    def identity(self) -> PolicyIdentity:
        """Who this policy is, as far as known now (the served model once it has answered)."""
        ...

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        """The next assistant message. Whatever the model does wrong is returned as a turn with
        ``failure`` set. Raises :class:`assay.errors.PolicyError` when the endpoint failed after
        its retries (infrastructure), :class:`assay.errors.PolicySpecError` when the policy
        cannot act on this task at all (a ``bad:LABEL`` the task lacks). Anything else it
        raises (an ``Exception``) ends the episode in error too, its type and message kept.
        """
        ...
