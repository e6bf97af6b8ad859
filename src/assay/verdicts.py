"""The verdict on one attempt: pass, fail or error, with per-criterion evidence."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Status(StrEnum):
    """Outcome of verifying one attempt. ``error`` is infrastructure, never a score."""

    PASS = "pass"  # noqa: S105 - a status, not a password
    FAIL = "fail"
    ERROR = "error"


class Criterion(BaseModel):
    """One thing the verifier checked, such as one hidden test case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Stable name of the check, e.g. the test case id.")
    passed: bool = Field(description="Whether the attempt met this criterion.")
    weight: float = Field(default=1.0, ge=0, description="Relative weight in the score.")
    evidence: str = Field(default="", description="What was seen: a difference, an error, a note.")


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


class Timings(BaseModel):
    """Where the time of a verification went, in seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wall_s: float = Field(ge=0, description="Total wall time of the verification.")
    sandbox_s: float = Field(default=0.0, ge=0, description="Wall time spent inside sandboxes.")
    sandbox_cpu_s: float = Field(default=0.0, ge=0, description="CPU time used inside sandboxes.")


class Verdict(BaseModel):
    """The judgement of one attempt at one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="Id of the task attempted.")
    status: Status = Field(description="pass, fail, or error (infrastructure; never scored).")
    score: float = Field(ge=0, le=1, description="Weighted share of criteria passed; 0 on error.")
    criteria: tuple[Criterion, ...] = Field(default=(), description="Per-criterion results.")
    summary: str = Field(default="", description="One line a person can read.")
    logs: str = Field(default="", description="Captured sandbox output, truncated.")
    timings: Timings = Field(description="Where the time went.")
    versions: Versions = Field(description="What produced this verdict.")
    created_at: datetime = Field(
        default_factory=lambda: datetime.now(UTC), description="When the verdict was made (UTC)."
    )

    @property
    def passed(self) -> bool:
        """Whether the attempt passed."""
        return self.status is Status.PASS


def score_of(criteria: tuple[Criterion, ...]) -> float:
    """The weighted share of criteria passed; 0 when there are none."""
    total = sum(c.weight for c in criteria)
    if total == 0:
        return 0.0
    return sum(c.weight for c in criteria if c.passed) / total
