"""Trajectory records: every step of an episode, its verdict and its cost, stored as they are."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.errors import InputError
from assay.families.base import ToolResult
from assay.policies.base import PolicyIdentity
from assay.policies.messages import Message, ToolCall, Usage
from assay.verdicts import Verdict

TRAJECTORY_FORMAT = 1
Mode = Literal["tools", "single"]


class EndReason(StrEnum):
    """Why an episode ended."""

    SUBMITTED = "submitted"
    """The agent called submit (tools mode)."""
    ANSWERED = "answered"
    """The agent's final message was its answer (single-turn mode, or a fenced block in tools
    mode when nothing was submitted through the tools)."""
    STOPPED = "stopped"
    """The agent stopped calling tools without submitting; its workspace was judged."""
    BUDGET = "budget"
    """A budget ran out (turns, tokens, wall time, sandbox CPU), a policy's turn outlived its
    time limit, or the conversation grew past its length limit; the episode fails."""
    POLICY_FAILED = "policy_failed"
    """The model itself failed (refusal, context too long, empty answer); the episode fails."""
    INFRASTRUCTURE = "infrastructure"
    """The model endpoint or a sandbox failed; the verdict is an error, never scored."""


class Budget(BaseModel):
    """What one episode may spend; None leaves a dimension unlimited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_turns: int = Field(default=20, ge=1, description="Policy calls (assistant messages).")
    max_tokens: int | None = Field(default=None, ge=1, description="Input plus output tokens.")
    max_wall_s: float | None = Field(
        default=600.0,
        gt=0,
        description="Wall time, seconds; checked before each policy turn, on its answer and "
        "before each tool call. Time spent waiting on the infrastructure (a free request slot "
        "or sandbox thread, a model endpoint's failed attempts and their backoff) is left out.",
    )
    max_sandbox_cpu_s: float | None = Field(
        default=60.0, gt=0, description="CPU seconds used by the agent's commands together."
    )
    max_turn_s: float | None = Field(
        default=1800.0,
        gt=0,
        description="Wall time one policy turn may take to answer: a policy whose act has not "
        "returned by then is cut off and the episode fails. It bounds a policy that hangs; a "
        "model policy's own timeout and retries fit in it (openai:MODEL's defaults, 5 attempts "
        "of 120 s, do). The waits the policy spends on the infrastructure, not the model (a free "
        "request slot under max_requests), are left out: the limit counts "
        "from when the request is sent (see assay.policies.base.TurnClock).",
    )


class ToolStep(BaseModel):
    """One tool call and what it gave back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    call: ToolCall = Field(description="The call as the model sent it.")
    result: ToolResult = Field(description="The observation returned to the model.")


class Step(BaseModel):
    """One turn: the policy's message and the tool calls it made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0, description="Position of the turn in the episode, from 0.")
    message: Message = Field(description="The assistant message, with its tool calls.")
    tools: tuple[ToolStep, ...] = Field(default=(), description="Tool calls run, in order.")
    usage: Usage = Field(default_factory=Usage, description="Tokens of this turn.")
    model_s: float = Field(default=0.0, ge=0, description="Wall time waiting for the policy.")
    tools_s: float = Field(default=0.0, ge=0, description="Wall time running the tool calls.")
    retries: int = Field(default=0, ge=0, description="Requests the policy retried this turn.")
    dropped_tool_calls: int = Field(
        default=0,
        ge=0,
        description="Tool calls the model sent past the most a turn takes: not in ``message``, "
        "never run, counted among the failed tool calls; the last tool result run says so.",
    )
    failure: str | None = Field(default=None, description="The policy's own failure, if any.")


class Cost(BaseModel):
    """What an episode cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens over all turns.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens over all turns.")
    usd: float | None = Field(
        default=None, ge=0, description="Price of the tokens; None when the model has no price."
    )
    sandbox_cpu_s: float = Field(
        default=0.0, ge=0, description="CPU seconds of the agent's commands and the verification."
    )
    wall_s: float = Field(default=0.0, ge=0, description="Wall time from reset to verdict.")
    model_s: float = Field(default=0.0, ge=0, description="Wall time waiting for the policy.")


class Trajectory(BaseModel):
    """One attempt by one policy at one task, whole: kept, exported and read back as it is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = Field(default=TRAJECTORY_FORMAT, description="Version of this record's shape.")
    episode_id: str = Field(description="Unique id of the episode.")
    task_id: str = Field(description="Id of the task attempted.")
    task_version: str = Field(description="Content version of the task, as on its verdict.")
    family: str = Field(description="Family name and code version, e.g. 'code@2'.")
    mode: Mode = Field(description="tools: act through tools; single: one answer, one block.")
    policy: PolicyIdentity = Field(description="Who acted, with prompt and tool versions.")
    prompt: tuple[Message, ...] = Field(description="The messages the episode started with.")
    tool_names: tuple[str, ...] = Field(default=(), description="The tools offered, by name.")
    budget: Budget = Field(description="The budget the episode ran under.")
    steps: tuple[Step, ...] = Field(default=(), description="Every turn, in order.")
    failed_tool_calls: int = Field(
        default=0,
        ge=0,
        description="Tool calls refused or failed (observations, not ends), those dropped past "
        "the most a turn takes too.",
    )
    end: EndReason = Field(description="Why the episode ended.")
    end_detail: str = Field(default="", description="The end in words: which budget, what error.")
    submission: dict[str, str] = Field(
        default_factory=dict,
        description="The files judged, as UTF-8 text (undecodable bytes replaced); empty when "
        "nothing was judged.",
    )
    verdict: Verdict = Field(description="The verdict: pass, fail, or error (infrastructure).")
    cost: Cost = Field(description="Tokens, price, sandbox CPU time and wall time.")
    started_at: datetime = Field(
        default_factory=lambda: datetime.now(UTC), description="When the episode began (UTC)."
    )


def write_jsonl(trajectories: Iterable[Trajectory], path: Path | str) -> Path:
    """Write one trajectory a line to ``path``, atomically (a temporary file, then a rename)."""
    path = Path(path)
    handle, staging = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            for trajectory in trajectories:
                out.write(trajectory.model_dump_json())
                out.write("\n")
        Path(staging).replace(path)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise
    return path


def read_jsonl(path: Path | str) -> list[Trajectory]:
    """Read trajectories written by :func:`write_jsonl`; blank lines are skipped.

    Raises :class:`InputError` naming the file and the line that is not a trajectory.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").split("\n")  # U+2028 is not an end
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read it: {exc}", path=path) from None
    trajectories = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            trajectories.append(Trajectory.model_validate_json(line))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "(the line)"
            raise InputError(
                f"not a trajectory: {where}: {error['msg']}",
                path=path,
                field=f"line {number}",
                fix="export trajectories with write_jsonl",
            ) from None
    return trajectories


def as_text_files(files: dict[str, bytes]) -> dict[str, str]:
    """Files as UTF-8 text for a record."""
    return {name: data.decode(errors="replace") for name, data in sorted(files.items())}


def schema_names(schemas: Iterable[dict[str, Any]]) -> tuple[str, ...]:
    """The function names of OpenAI tool schemas."""
    return tuple(str(schema.get("function", {}).get("name", "")) for schema in schemas)
