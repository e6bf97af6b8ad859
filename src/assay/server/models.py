"""The environment API's records: what clients send and what the server answers.

Every record is a frozen pydantic model; the OpenAPI description is built from their JSON
schemas, so the description and the validation cannot drift apart. What a client is told about a
verdict is :class:`AgentVerdict`: status, reward and which criteria were met, never the
evidence, which for every built-in family can name expected values (``expected 2.5, got 2``),
nor the verifier's names for the criteria, which can say what a hidden check probes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    model_validator,
)

from assay.tasks.spec import Split
from assay.verdicts import Criterion, Status, Verdict

_FROZEN = ConfigDict(frozen=True, extra="forbid")
Number = Annotated[float, Strict()]
"""A JSON number: not a boolean, not a string of digits (as the description promises)."""


def _integral(value: object) -> object:
    """``value``, a float with no fraction as the int it is: JSON has one kind of number, and
    the description's ``integer`` takes 5.0 (JSON Schema counts it an integer)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Integer = Annotated[int, BeforeValidator(_integral), Strict()]
"""A JSON integer (5 or 5.0): not a boolean, not a string of digits, not 5.5."""


def first_problem(exc: ValidationError, whole: str) -> str:
    """The first thing wrong in ``exc``, in one line: where (``whole`` for the whole of it),
    then what. A key the client named is shown quoted where it holds anything but letters,
    digits and ``_-`` (a line break would make the one line two)."""
    error = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    parts = [_shown(part) for part in error["loc"]]
    said = error["msg"].removeprefix("Value error, ")  # pydantic's words for a validator's own
    return f"{'.'.join(parts) or whole}: {said}"[:500]


def _shown(part: str | int) -> str:
    text = str(part)
    return text if re.fullmatch(r"[\w-]+", text, re.ASCII) else repr(text)[:100]


class Curriculum(BaseModel):
    """Prefer tasks whose measured pass rate lies in a band, where rollouts teach the most."""

    model_config = _FROZEN

    low: Number = Field(default=0.1, ge=0, le=1, description="Lowest pass rate preferred.")
    high: Number = Field(default=0.9, ge=0, le=1, description="Highest pass rate preferred.")

    @model_validator(mode="after")
    def _ordered(self) -> Curriculum:
        if self.low > self.high:
            raise ValueError("curriculum: low must not exceed high")
        return self


class SamplingSpec(BaseModel):
    """Which tasks a session may be given; one is drawn at random among them."""

    model_config = _FROZEN

    family: str | None = Field(default=None, description="Only tasks of this family.")
    split: Split | None = Field(
        default=None,
        description="Only tasks of this split (train, dev, test, frozen); without it any split "
        "but frozen.",
    )
    tags: tuple[str, ...] = Field(default=(), description="Only tasks carrying every one of these.")
    weights: dict[str, Number] = Field(
        default_factory=dict,
        description="Mixture weights by family: the family is drawn first with these weights "
        "(families not named are not drawn), then a task within it. Empty: every task equally.",
    )
    curriculum: Curriculum | None = Field(
        default=None,
        description="Prefer tasks whose stored pass rate lies in the band; when none of the "
        "candidates does, any candidate is drawn.",
    )
    seed: Integer | None = Field(
        default=None, description="Seed of the draw, for a repeatable one."
    )

    @model_validator(mode="after")
    def _weights(self) -> SamplingSpec:
        if any(not math.isfinite(weight) or weight < 0 for weight in self.weights.values()):
            raise ValueError("weights: a family's weight must be a finite number, not negative")
        total = sum(self.weights.values())
        if self.weights and not 0 < total < math.inf:
            raise ValueError(
                "weights: at least one family needs a positive weight, and their sum must be "
                "finite (scale them down)"
            )
        return self


class CreateSession(BaseModel):
    """A new session: one task by its id, or one drawn by a sampling spec."""

    model_config = _FROZEN

    task_id: str | None = Field(default=None, description="The task to attempt.")
    sample: SamplingSpec | None = Field(default=None, description="Draw the task instead.")

    @model_validator(mode="after")
    def _one(self) -> CreateSession:
        if (self.task_id is None) == (self.sample is None):
            raise ValueError("give exactly one of task_id and sample")
        return self


class ToolCallRequest(BaseModel):
    """One tool call, by the tool's name, with its arguments as a JSON object."""

    model_config = _FROZEN

    tool: str = Field(min_length=1, max_length=200, description="Name of the tool.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="The arguments, as the tool's schema describes them."
    )


class Message(BaseModel):
    """One message of the starting conversation."""

    model_config = _FROZEN

    role: str = Field(description="system or user.")
    content: str = Field(description="The text.")


class Observation(BaseModel):
    """What an agent starts from: the prompt and the tools, in OpenAI function format."""

    model_config = _FROZEN

    session_id: str = Field(description="The session's id; only its creator knows it.")
    task_id: str = Field(description="The task attempted.")
    family: str = Field(description="The task's family and its version, e.g. 'code@2'.")
    messages: tuple[Message, ...] = Field(description="The system prompt and the task's prompt.")
    tools: list[dict[str, Any]] = Field(description="The tools, in OpenAI function format.")


class AgentCriterion(BaseModel):
    """One criterion of a verdict as an agent may see it: whether it was met, not why."""

    model_config = _FROZEN

    name: str = Field(
        description="Stable name of the check within the task: its kind and its place among "
        "the checks of that kind (case-01, reachability-03). The verifier's own names stay on "
        "the server: they can say what a hidden check probes."
    )
    kind: str = Field(description="What judged it: case, correctness, runtime, database, ...")
    part: Literal["check", "rubric"] = Field(
        description="check: decides the status; rubric: score."
    )
    passed: bool = Field(description="Whether the attempt met it.")
    weight: float = Field(ge=0, description="Relative weight in the score.")
    error: bool = Field(default=False, description="It could not be judged (infrastructure).")


class AgentVerdict(BaseModel):
    """The verdict on a submission, as computed by the server, without hidden values."""

    model_config = _FROZEN

    task_id: str = Field(description="The task attempted.")
    status: Status = Field(description="pass, fail, or error (infrastructure: never a reward).")
    reward: float | None = Field(
        description="The score in [0, 1]; null when the status is error or the score could not "
        "be made (a criterion could not be judged)."
    )
    summary: str = Field(
        description="One line: how many checks (and rubric criteria) were met, made from the "
        "criteria alone."
    )
    criteria: tuple[AgentCriterion, ...] = Field(description="Each criterion, met or not.")
    family: str = Field(description="The family and version that judged it.")
    task_version: str = Field(description="Content version of the task judged.")

    @classmethod
    def of(cls, verdict: Verdict) -> AgentVerdict:
        """The agent's view of ``verdict``: evidence, logs, the judges' records and the family's
        summary left out, and the criteria named by kind and place."""
        criteria = tuple(
            AgentCriterion(
                name=name,
                kind=criterion.kind,
                part=criterion.part,
                passed=criterion.passed,
                weight=criterion.weight,
                error=criterion.error is not None,
            )
            for name, criterion in zip(_places(verdict.criteria), verdict.criteria, strict=True)
        )
        return cls(
            task_id=verdict.task_id,
            status=verdict.status,
            reward=verdict.score if verdict.scored else None,
            summary=_summary(verdict, criteria),
            criteria=criteria,
            family=verdict.versions.family,
            task_version=verdict.versions.task,
        )


def _summary(verdict: Verdict, criteria: Sequence[AgentCriterion]) -> str:
    """The verdict in one line, made of what the agent's view shows and nothing else. The
    family's own summary is not shown: it quotes text from the sandbox that judged (a
    solution's error as it loaded, which can hold the hidden cases' arguments it was run on),
    and it may name checks or expected values."""
    if verdict.status is Status.ERROR:
        return "not judged: an infrastructure error, not the answer's; no reward"
    if not criteria:
        if verdict.status is Status.PASS:
            return "passed"
        return "failed before any check ran: nothing to judge, the answer refused, or out of budget"
    checks = [c for c in criteria if c.part == "check"]
    rubric = [c for c in criteria if c.part == "rubric"]
    text = f"{sum(c.passed for c in checks)}/{len(checks)} checks met"
    if rubric:
        text += f"; rubric: {sum(c.passed for c in rubric)}/{len(rubric)} criteria met"
    if not verdict.scored:
        text += "; no score: a criterion could not be judged"
    return text


def _places(criteria: Sequence[Criterion]) -> list[str]:
    """Each criterion's name for the agent: its kind and its place among those of its kind.
    The verifier's names are hidden data ("the web pods reach 8025" names a port probed)."""
    seen: Counter[str] = Counter()
    names = []
    for criterion in criteria:
        seen[criterion.kind] += 1
        names.append(f"{criterion.kind}-{seen[criterion.kind]:02d}")
    return names


class StepResult(BaseModel):
    """What one tool call gave back; after ``submit``, the verdict too."""

    model_config = _FROZEN

    output: str = Field(description="The observation shown to the agent.")
    ok: bool = Field(description="False when the call was refused, invalid or its command failed.")
    done: bool = Field(description="The episode has ended: the work was submitted and judged.")
    reward: float | None = Field(
        default=None, description="The verdict's reward once done; null before, and on error."
    )
    verdict: AgentVerdict | None = Field(default=None, description="The verdict once done.")


class SessionState(BaseModel):
    """Where a session stands."""

    model_config = _FROZEN

    session_id: str = Field(description="The session's id.")
    task_id: str | None = Field(description="The task attempted; null before the first reset.")
    steps: int = Field(ge=0, description="Tool calls made since the last reset.")
    done: bool = Field(description="The work was submitted and judged.")
    verdict: AgentVerdict | None = Field(default=None, description="The verdict once done.")


class TaskInfo(BaseModel):
    """A task the server offers, without its prompt or anything hidden."""

    model_config = _FROZEN

    task_id: str = Field(description="The task's id.")
    family: str = Field(description="The task's family.")
    split: str = Field(description="train, dev, test or frozen.")
    tags: tuple[str, ...] = Field(description="The task's tags.")
    pass_rate: float | None = Field(
        default=None, description="The stored pass rate the curriculum uses; null if unmeasured."
    )


class TaskList(BaseModel):
    """The tasks the server offers."""

    model_config = _FROZEN

    tasks: tuple[TaskInfo, ...] = Field(description="Every task, by id.")


class Problem(BaseModel):
    """Why a request was refused."""

    model_config = _FROZEN

    error: str = Field(description="What went wrong, in one line.")
    code: str = Field(description="A stable name: not_found, unauthorized, too_large, ...")


class Health(BaseModel):
    """The server is up."""

    model_config = _FROZEN

    status: Literal["ok"] = Field(description="Always ok.")
    sessions: int = Field(ge=0, description="Open sessions.")
    max_sessions: int = Field(ge=1, description="The cap on open sessions.")
