"""Audit records: a finding about one task, and the decision the findings lead to."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Severity(StrEnum):
    """How much a finding matters. Any ``error`` rejects the task."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Decision(StrEnum):
    """What the audit concluded about a task."""

    ACCEPTED = "accepted"
    QUARANTINED = "quarantined"
    REJECTED = "rejected"
    ERROR = "error"
    """The task could not be audited (sandbox, verifier or assay failed); audit it again."""


class Finding(BaseModel):
    """One observation an audit check made about one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: str = Field(description="Name of the check that made the finding.")
    severity: Severity = Field(description="error rejects the task; warning and info do not.")
    message: str = Field(description="One line a person can act on.")
    evidence: str = Field(default="", description="What was seen: paths, outputs, verdicts.")
    review: bool = Field(
        default=False,
        description="A person must look before the task is used: a task with such a finding and "
        "no error is quarantined, not accepted.",
    )
