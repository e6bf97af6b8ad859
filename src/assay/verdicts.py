"""The verdict on one attempt: pass, fail or error, a score, and per-criterion evidence.

``status`` is correctness: the family's own checks (for code, the hidden cases). ``score`` is the
weighted criteria: without a rubric the weighted share of the checks met; with one (see
:mod:`assay.families.code.rubric`) the weighted mean of the rubric's criteria, correctness among
them. A criterion that could not be judged (a judge that cannot be reached) is ``error``: it leaves
``status`` alone, and the verdict gets no score (``score_error``), never a made-up one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Status(StrEnum):
    """Outcome of verifying one attempt. ``error`` is infrastructure, never a score."""

    PASS = "pass"  # noqa: S105 - a status, not a password
    FAIL = "fail"
    ERROR = "error"


class JudgeRecord(BaseModel):
    """What a model judge was asked and what it answered, kept as evidence on its criterion."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="The model asked for.")
    served_model: str | None = Field(default=None, description="The model the server named.")
    base_url: str = Field(description="The endpoint the judge was asked at.")
    prompt_version: str = Field(description="Version of assay's judge prompt template.")
    prompt: str = Field(description="The messages sent, as text (the submission capped).")
    answer: str | None = Field(
        default=None, description="The judge's raw answer, capped; None when none came back."
    )
    score: float | None = Field(
        default=None, ge=0, le=1, description="The parsed score in [0, 1]; None if unparseable."
    )
    retries: int = Field(default=0, ge=0, description="Requests retried before the answer.")
    note: str = Field(default="", description="What happened: unreachable, unparseable, ...")


class Criterion(BaseModel):
    """One thing the verifier checked, such as one hidden test case or one rubric criterion."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Stable name of the check, e.g. the test case id.")
    passed: bool = Field(description="Whether the attempt met this criterion.")
    weight: float = Field(default=1.0, ge=0, description="Relative weight in the score.")
    evidence: str = Field(default="", description="What was seen: a difference, an error, a note.")
    part: Literal["check", "rubric"] = Field(
        default="check",
        description="check: one of the family's correctness checks, which decide the status; "
        "rubric: a criterion of the task's rubric, which counts in the score only.",
    )
    kind: str = Field(
        default="case", description="What judged it: case, correctness, runtime, style, judge."
    )
    score: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Graded result in [0, 1] for criteria judged on a scale; None: 1 if "
        "passed, else 0.",
    )
    error: str | None = Field(
        default=None,
        description="Set when the criterion could not be judged (infrastructure, such as a judge "
        "that cannot be reached): neither pass nor fail, and the verdict gets no score.",
    )
    judge: JudgeRecord | None = Field(
        default=None, description="For a model judge: its prompt, model, raw answer and score."
    )
    met_at_start: bool = Field(
        default=False,
        description="The starting state already meets it (a pass-to-pass test, a resource the "
        "task leaves as it is), so doing nothing meets it too: it scales the score of the "
        "changes the task asks for and never adds to it (see score_of).",
    )

    @property
    def status(self) -> Status:
        """pass, fail, or error when it could not be judged."""
        if self.error is not None:
            return Status.ERROR
        return Status.PASS if self.passed else Status.FAIL

    @property
    def value(self) -> float:
        """What it adds to the score before weighting: its graded score, else 1 or 0."""
        if self.score is not None:
            return self.score
        return 1.0 if self.passed else 0.0


class PythonEnvironment(BaseModel):
    """The Python a sandboxed job ran on: enough to build the same one on another machine."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    implementation: str = Field(description="Interpreter and its version, e.g. 'CPython 3.11.7'.")
    platform: str = Field(description="Platform and C library, e.g. 'linux-x86_64 glibc 2.36'.")
    packages: tuple[str, ...] = Field(
        default=(),
        description="Every distribution importable besides the standard library, as "
        "'name==version', sorted; empty when the job had the standard library only.",
    )


class JudgeVersion(BaseModel):
    """Which model judged a rubric criterion, and with which prompt template."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion: str = Field(description="The rubric criterion it judged.")
    model: str = Field(description="The model asked for.")
    served_model: str | None = Field(default=None, description="The model the server named.")
    base_url: str = Field(description="The endpoint.")
    prompt_version: str = Field(description="Version of assay's judge prompt template.")


class Versions(BaseModel):
    """The content versions a verdict was produced with, enough to reproduce it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str = Field(description="Content version of the task (see assay.tasks.content_version).")
    family: str = Field(description="Family name and code version, e.g. 'code@1'.")
    assay: str = Field(description="Version of the assay package.")
    python: PythonEnvironment | None = Field(
        default=None,
        description="The sandbox's Python environment the attempt ran in; None in verdicts "
        "made before it was recorded.",
    )
    rubric: str | None = Field(
        default=None,
        description="The rubric the score was made with: 'rubric@<code version>:<hash of "
        "hidden/rubric.toml>'; None without a rubric.",
    )
    judges: tuple[JudgeVersion, ...] = Field(
        default=(), description="The model judges asked, one per judge criterion judged."
    )


class Timings(BaseModel):
    """Where the time of a verification went, in seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wall_s: float = Field(ge=0, description="Total wall time of the verification.")
    sandbox_s: float = Field(default=0.0, ge=0, description="Wall time spent inside sandboxes.")
    sandbox_cpu_s: float = Field(default=0.0, ge=0, description="CPU time used inside sandboxes.")
    peak_memory_mb: float | None = Field(
        default=None,
        ge=0,
        description="The largest peak memory of the verification's sandboxed runs, MiB; None "
        "where the backend does not measure it.",
    )


class Verdict(BaseModel):
    """The judgement of one attempt at one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="Id of the task attempted.")
    status: Status = Field(
        description="pass or fail on correctness (the family's own checks), or error "
        "(infrastructure; never scored)."
    )
    score: float = Field(
        ge=0,
        le=1,
        description="The weighted criteria in [0, 1] (see the module docstring); 0, and no "
        "reward, when the status is error or score_error is set. Verdicts stored without it "
        "get it from their criteria.",
    )
    score_error: str | None = Field(
        default=None,
        description="Why there is no score although the status stands: a criterion could not "
        "be judged (a judge unreachable after its retries). Retry it like an error.",
    )
    criteria: tuple[Criterion, ...] = Field(default=(), description="Per-criterion results.")
    summary: str = Field(default="", description="One line a person can read.")
    logs: str = Field(default="", description="Captured sandbox output, truncated.")
    timings: Timings = Field(description="Where the time went.")
    versions: Versions = Field(description="What produced this verdict.")
    created_at: datetime = Field(
        default_factory=lambda: datetime.now(UTC), description="When the verdict was made (UTC)."
    )

    @model_validator(mode="before")
    @classmethod
    def _score_of_old_records(cls, data: Any) -> Any:
        """A record stored before verdicts carried a score gets the one its criteria give."""
        if not isinstance(data, dict) or "score" in data:
            return data
        if data.get("status") == Status.ERROR.value:
            return {**data, "score": 0.0}
        criteria = tuple(Criterion.model_validate(c) for c in data.get("criteria") or ())
        return {**data, "score": verdict_score(criteria)}

    @property
    def passed(self) -> bool:
        """Whether the attempt passed."""
        return self.status is Status.PASS

    @property
    def scored(self) -> bool:
        """Whether ``score`` means something: not an error, and every criterion was judged."""
        return self.status is not Status.ERROR and self.score_error is None


def score_of(criteria: Sequence[Criterion]) -> float:
    """The weighted mean of the criteria's values; 0 when there are none or no weight.

    Criteria ``met_at_start`` are not credited: the score is the mean over the changes the task
    asks for, times the mean over what the starting state already met. Doing nothing scores 0,
    and breaking what was kept takes its share off. Without such criteria (or without any
    others) it is the plain mean.
    """
    changes = _mean([c for c in criteria if not c.met_at_start])
    kept = _mean([c for c in criteria if c.met_at_start])
    if changes is None or kept is None:
        return changes if changes is not None else kept if kept is not None else 0.0
    return changes * kept


def _mean(criteria: Sequence[Criterion]) -> float | None:
    total = sum(c.weight for c in criteria)
    if total == 0:
        return None
    return min(1.0, max(0.0, sum(c.weight * c.value for c in criteria) / total))


def met_at_start(criteria: Iterable[Criterion], met: Collection[str]) -> tuple[Criterion, ...]:
    """``criteria``, the checks among them named in ``met`` (those the starting state meets)
    marked ``met_at_start``."""
    return tuple(
        c.model_copy(update={"met_at_start": True}) if c.part == "check" and c.name in met else c
        for c in criteria
    )


def verdict_score(criteria: tuple[Criterion, ...]) -> float:
    """A verdict's score from its criteria: the rubric's when it has one, else the checks'."""
    rubric = tuple(c for c in criteria if c.part == "rubric")
    return score_of(rubric or criteria)


def unscored_reason(criteria: tuple[Criterion, ...]) -> str | None:
    """Why criteria give no score: the first that could not be judged, or None."""
    for criterion in criteria:
        if criterion.error is not None:
            return f"{criterion.name}: {criterion.error}"
    return None
