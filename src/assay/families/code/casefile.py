"""``hidden/cases.json``: the inputs of the hidden tests and what each must produce.

The file carries a format number so that it can grow without breaking the files already written:

- format 1 (a file without ``"format"``): each case has ``id``, ``args`` and ``expected``;
- format 2: a case has either ``expected`` or ``raises``, the name of a builtin exception type
  the call must raise (see :mod:`assay.families.code.raising`);
- format 3: a case may have a ``weight`` (default 1), its share of the score: edge cases can
  count for more than common ones. It changes the score only, never the status.

A file of a newer format than this code reads is refused by name, never read half-way. Values are
plain JSON data within the bounds of :mod:`assay.families.code.records`.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from assay.errors import TaskFormatError
from assay.families.code.raising import expectable
from assay.families.code.records import MAX_DEPTH, NotPlainError, parse_plain
from assay.tasks.model import Task

CASES_FILE = "cases.json"
FORMAT = 3
"""The newest format this code reads; it writes the oldest (from 2) that holds the cases."""
MAX_FILE_CHARS = 64_000_000
"""Largest case file read, in characters."""
_FILE_DEPTH = MAX_DEPTH + 4  # the file's own object, the cases list, a case and its args


class Case(BaseModel):
    """One hidden test: the arguments, and the reference's output or the exception it raised."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="Stable case id, the criterion name on verdicts.")
    args: list[Any] = Field(description="Positional arguments, plain JSON data.")
    expected: Any = Field(
        default=None, description="The reference's output; absent when the case has raises."
    )
    raises: str | None = Field(
        default=None,
        description="Format 2: the builtin exception type the call must raise (a subclass "
        "counts), in place of expected.",
    )

    weight: float = Field(
        default=1.0,
        gt=0,
        le=1000,
        description="Format 3: the case's weight in the score (default 1); status ignores it.",
    )

    @field_validator("raises")
    @classmethod
    def _builtin(cls, name: str | None) -> str | None:
        if name is not None and not expectable(name):
            raise ValueError(f"{name!r} is not a builtin exception type such as ValueError")
        return name

    @model_validator(mode="after")
    def _one_outcome(self) -> Case:
        has_expected = "expected" in self.model_fields_set
        if self.raises is None and not has_expected:
            raise ValueError("the case has neither expected nor raises")
        if self.raises is not None and has_expected:
            raise ValueError("the case has both expected and raises")
        return self

    def as_json(self) -> dict[str, object]:
        """The case as written in the file: ``expected`` or ``raises``, never both; ``weight``
        only when it is not 1."""
        data: dict[str, object] = {"id": self.id, "args": self.args}
        if self.raises is not None:
            data["raises"] = self.raises
        else:
            data["expected"] = self.expected
        if self.weight != 1:
            data["weight"] = self.weight
        return data

    @property
    def needs_format(self) -> int:
        """The oldest format that holds this case."""
        if self.weight != 1:
            return 3
        return 2 if self.raises is not None else 1


class CaseFile(BaseModel):
    """The contents of ``hidden/cases.json``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = Field(default=1, ge=1, le=FORMAT, description="Format of the file; 1 if absent.")
    cases: tuple[Case, ...] = Field(min_length=1, description="The hidden test cases.")

    @model_validator(mode="after")
    def _format_holds_the_cases(self) -> CaseFile:
        if self.format < 2 and any(case.raises is not None for case in self.cases):
            raise ValueError('raises needs "format": 2')
        if self.format < 3 and any(case.weight != 1 for case in self.cases):
            raise ValueError('weight needs "format": 3')
        return self


def hidden_cases(task: Task) -> tuple[Case, ...]:
    """The hidden cases; raises :class:`TaskFormatError` when the file is missing or malformed.

    The error is one line naming ``<task id>/hidden/cases.json``, the field and the fix.
    """
    where = f"{task.id}/hidden/{CASES_FILE}"
    raw = task.hidden.get(CASES_FILE)
    if raw is None:
        raise TaskFormatError("file is missing", path=where, fix="regenerate the task")
    return _parse_cases(raw, where)


@functools.lru_cache(maxsize=4096)
def _parse_cases(raw: bytes, where: str) -> tuple[Case, ...]:
    """Parsed once per distinct file: an audit verifies each task several times."""
    try:
        data = parse_plain(raw.decode("utf-8"), max_chars=MAX_FILE_CHARS, max_depth=_FILE_DEPTH)
    except UnicodeDecodeError:
        raise TaskFormatError("not UTF-8 text", path=where, fix="save it as UTF-8") from None
    except NotPlainError as exc:
        raise TaskFormatError(
            f"not plain JSON: {exc}", path=where, fix="correct the JSON or regenerate the task"
        ) from None
    if isinstance(data, dict) and isinstance(data.get("format"), int) and data["format"] > FORMAT:
        raise TaskFormatError(
            f"format {data['format']} is newer than this assay reads ({FORMAT})",
            path=where,
            field="format",
            fix="upgrade assay",
        )
    try:
        cases = CaseFile.model_validate(data).cases
    except ValidationError as exc:
        raise _case_error(where, exc.errors()[0]) from None
    seen: set[str] = set()
    for index, case in enumerate(cases):
        if case.id in seen:
            raise TaskFormatError(
                f"case id {case.id!r} repeats",
                path=where,
                field=f"cases[{index}].id",
                fix="give every case a unique id",
            )
        seen.add(case.id)
    return cases


def _case_error(where: str, error: ErrorDetails) -> TaskFormatError:
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
    kind = error["type"]
    if kind == "missing":
        problem, fix = "required field is missing", "add it"
    elif kind == "extra_forbidden":
        problem, fix = (
            "unknown field",
            "remove it (a case has id, args, expected or raises, weight)",
        )
    else:
        problem, fix = error["msg"].removeprefix("Value error, "), "correct the value"
    return TaskFormatError(problem, path=where, field=field or "(top level)", fix=fix)


def cases_json(cases: list[Case]) -> bytes:
    """The bytes of ``hidden/cases.json`` for ``cases``, in the oldest format from 2 that holds
    them: files of cases without weights stay byte for byte what earlier versions wrote."""
    written = max([2, *(case.needs_format for case in cases)])
    CaseFile(format=written, cases=tuple(cases))  # the same checks as reading it back
    payload = {"format": written, "cases": [case.as_json() for case in cases]}
    return (json.dumps(payload, indent=1, ensure_ascii=False) + "\n").encode()
