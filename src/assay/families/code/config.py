"""The code family's task settings (``[code]`` in task.toml) and its hidden test cases."""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.errors import TaskFormatError
from assay.tasks.model import Task

CASES_FILE = "cases.json"


class CodeConfig(BaseModel):
    """What to call and how to compare, from the ``[code]`` table of task.toml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="Function to call.")
    entrypoint: str = Field(
        default="solution.py",
        pattern=r"^[A-Za-z_][A-Za-z0-9_/]*\.py$",
        description="File of the solution that defines the function.",
    )
    compare: Literal["exact", "unordered"] = Field(
        default="exact", description="unordered: a top-level list result is a multiset."
    )
    float_tolerance: float | None = Field(
        default=None, ge=0, description="Relative and absolute float tolerance (default 1e-9)."
    )
    checker: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.py$",
        description="A trusted checker in hidden/ defining check(args, output, expected) -> bool, "
        "for problems with more than one right answer.",
    )


class Case(BaseModel):
    """One hidden test: the arguments and the output the reference produced for them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="Stable case id, the criterion name on verdicts.")
    args: list[Any] = Field(description="Positional arguments, plain JSON data.")
    expected: Any = Field(description="The reference's output for these arguments.")


class CaseFile(BaseModel):
    """The contents of ``hidden/cases.json``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cases: tuple[Case, ...] = Field(min_length=1, description="The hidden test cases.")


def code_config(task: Task) -> CodeConfig:
    """The task's ``[code]`` settings; raises :class:`TaskFormatError` naming the field."""
    try:
        return CodeConfig.model_validate(task.spec.config)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "code." + ".".join(str(p) for p in first["loc"])
        raise TaskFormatError(
            first["msg"], path=f"{task.id}/task.toml", field=field, fix="correct the [code] table"
        ) from None


def hidden_cases(task: Task) -> tuple[Case, ...]:
    """The hidden cases; raises :class:`TaskFormatError` when the file is missing or malformed."""
    where = f"{task.id}/hidden/{CASES_FILE}"
    raw = task.hidden.get(CASES_FILE)
    if raw is None:
        raise TaskFormatError("file is missing", path=where, fix="regenerate the task")
    try:
        cases = _parse_cases(raw)
    except (ValueError, ValidationError) as exc:
        detail = str(exc).splitlines()[0]
        raise TaskFormatError(
            f"malformed: {detail}", path=where, fix="regenerate the task"
        ) from None
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        raise TaskFormatError("case ids repeat", path=where, field="id", fix="make them unique")
    return cases


@functools.lru_cache(maxsize=4096)
def _parse_cases(raw: bytes) -> tuple[Case, ...]:
    """Parsed once per distinct file: an audit verifies each task several times."""
    return CaseFile.model_validate(json.loads(raw)).cases


def cases_json(cases: list[Case]) -> bytes:
    """The bytes of ``hidden/cases.json`` for ``cases``."""
    payload = CaseFile(cases=tuple(cases)).model_dump(mode="json")
    return (json.dumps(payload, indent=1, ensure_ascii=False) + "\n").encode()
