"""``hidden/rubric.toml``: the weighted criteria a code task's score is made of.

A task without the file is scored as before: the weighted share of hidden cases passed. With it,
the score is the weighted mean of the rubric's criteria; the status is still decided by the
hidden cases alone. The file sits in ``hidden/``: it is part of the task's content version and
never reaches the agent. See the README ("Rubrics, judges and scores") for the format.
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from assay import _toml
from assay.errors import TaskFormatError
from assay.judges.model import JudgeSpec
from assay.tasks.model import Task

RUBRIC_FILE = "rubric.toml"
FORMAT = 1
VERSION = "1"
"""Version of the code that turns a rubric into a score; part of ``Versions.rubric``."""
CORRECTNESS = "correctness"
DEFAULT_STYLE_RULES = ("E", "F", "W", "B", "UP", "SIM", "N")

Name = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")]


class Correctness(BaseModel):
    """The hidden cases as one criterion: their weighted share passed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    weight: float = Field(default=1.0, ge=0, le=1000, description="Weight in the score.")


class _Criterion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name = Field(description="Unique within the rubric; the criterion name on verdicts.")
    weight: float = Field(default=1.0, ge=0, le=1000, description="Weight in the score.")


class RuntimeCriterion(_Criterion):
    """CPU time on the hidden cases against the reference's, measured in the sandbox."""

    kind: Literal["runtime"] = Field(description="runtime")
    max_ratio: float = Field(
        default=10.0,
        gt=1,
        le=1000,
        description="Score 1 at or below the reference's time, 0 at this many times it, "
        "falling with the logarithm of the ratio between.",
    )
    rounds: int = Field(
        default=3, ge=1, le=10, description="Repetitions; the best of each is taken."
    )
    floor_ms: float = Field(
        default=20.0,
        ge=0.1,
        le=10_000,
        description="Times below this are taken as this: differences smaller than the noise "
        "count for nothing (a few milliseconds between runs of the same code where each job "
        "starts a fresh process).",
    )
    pass_at: float = Field(default=0.5, ge=0, le=1, description="Passes at this score or above.")


class StyleCriterion(_Criterion):
    """ruff's findings on the submitted entrypoint."""

    kind: Literal["style"] = Field(description="style")
    select: tuple[Annotated[str, Field(pattern=r"^[A-Z]{1,4}[0-9]{0,4}$")], ...] = Field(
        default=DEFAULT_STYLE_RULES, min_length=1, description="ruff rule codes or prefixes."
    )
    line_length: int = Field(default=100, ge=40, le=400, description="For the E501 rule.")
    max_findings: int = Field(
        default=10, ge=1, le=1000, description="Score 1 with no finding, 0 with this many or more."
    )
    pass_at: float = Field(default=1.0, ge=0, le=1, description="Passes at this score or above.")


class JudgeCriterion(_Criterion, JudgeSpec):
    """A model judge's answer to a question about the submission."""

    kind: Literal["judge"] = Field(description="judge")


RubricCriterion = Annotated[
    RuntimeCriterion | StyleCriterion | JudgeCriterion, Field(discriminator="kind")
]


class Rubric(BaseModel):
    """The contents of ``hidden/rubric.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = Field(default=FORMAT, ge=1, le=FORMAT, description="Format of the file.")
    correctness: Correctness = Field(
        default_factory=Correctness, description="The weight of the hidden cases."
    )
    criteria: tuple[RubricCriterion, ...] = Field(
        default=(), max_length=32, description="The criteria besides correctness."
    )

    @model_validator(mode="after")
    def _weighed(self) -> Rubric:
        if self.correctness.weight + sum(c.weight for c in self.criteria) <= 0:
            raise ValueError("every weight is 0")
        return self


@functools.lru_cache(maxsize=1024)
def _parse(raw: bytes, where: str) -> tuple[Rubric, str]:
    try:
        data = _toml.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TaskFormatError("not UTF-8 text", path=where, fix="save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"not TOML: {exc}", path=where, fix="correct the TOML") from None
    except RecursionError:
        raise TaskFormatError(
            "nested too deeply to be read", path=where, fix="keep tables a few levels deep"
        ) from None
    if isinstance(data.get("format"), int) and data["format"] > FORMAT:
        raise TaskFormatError(
            f"format {data['format']} is newer than this assay reads ({FORMAT})",
            path=where,
            field="format",
            fix="upgrade assay",
        )
    try:
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        raise _error(where, exc.errors()[0]) from None
    seen = {CORRECTNESS}
    for index, criterion in enumerate(rubric.criteria):
        if criterion.name in seen:
            raise TaskFormatError(
                f"criterion name {criterion.name!r} repeats or is reserved",
                path=where,
                field=f"criteria[{index}].name",
                fix="give every criterion a unique name other than 'correctness'",
            )
        seen.add(criterion.name)
    label = f"rubric@{VERSION}:{hashlib.sha256(raw).hexdigest()[:16]}"
    return rubric, label


def task_rubric(task: Task) -> tuple[Rubric, str] | None:
    """The task's rubric and its label for ``Versions.rubric``, or None when it has none.

    Raises :class:`TaskFormatError`, one line naming ``<task id>/hidden/rubric.toml``, the field
    and the fix, when the file is malformed or asks for what the task cannot give.
    """
    raw = task.hidden.get(RUBRIC_FILE)
    if raw is None:
        return None
    where = f"{task.id}/hidden/{RUBRIC_FILE}"
    rubric, label = _parse(raw, where)
    for index, criterion in enumerate(rubric.criteria):
        if isinstance(criterion, RuntimeCriterion) and "reference" not in task.solutions:
            raise TaskFormatError(
                "a runtime criterion needs the task's reference solution to time against",
                path=where,
                field=f"criteria[{index}].kind",
                fix="add solutions/reference/ or drop the criterion",
            )
    return rubric, label


_KINDS = "use kind = runtime, style or judge"
_PATTERNS = {
    "name": "lowercase letters, digits, - and _, at most 64",
    "select": "ruff rule codes or prefixes such as E501 or E",
    "base_url": "an http:// or https:// URL",
}


def _error(where: str, error: ErrorDetails) -> TaskFormatError:
    # A discriminated union puts the kind in the location: criteria.1.judge.model
    loc = [p for p in error["loc"] if p not in ("runtime", "style", "judge")]
    kind = error["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        loc.append("kind")
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    named = next((str(p) for p in reversed(loc) if isinstance(p, str)), "")
    problem, fix = error["msg"].removeprefix("Value error, "), "correct the value"
    if kind == "missing":
        problem, fix = "required field is missing", "add it"
    elif kind == "extra_forbidden":
        problem, fix = "unknown field", "remove it"
    elif kind == "union_tag_invalid":
        given = error["input"].get("kind") if isinstance(error["input"], dict) else None
        problem, fix = f"unknown kind {given!r}", _KINDS
    elif kind == "union_tag_not_found":
        problem, fix = "required field is missing", _KINDS
    elif kind == "string_pattern_mismatch":
        problem, fix = f"{error['input']!r} is not allowed here", _PATTERNS.get(named, fix)
    elif kind == "value_error" and named == "base_url":
        fix = "an http:// or https:// URL with a host, in printable ASCII (xn-- for others)"
    return TaskFormatError(problem, path=where, field=field or "(top level)", fix=fix)
