"""``hidden/cases.json``: the inputs of the hidden tests and what each must produce.

The file carries a format number so that it can grow without breaking the files already written:

- format 1 (a file without ``"format"``): each case has ``id``, ``args`` and ``expected``;
- format 2: a case has either ``expected`` or ``raises``, the name of a builtin exception type
  the call must raise (see :mod:`assay.families.code.raising`);
- format 3: a case may have a ``weight`` (default 1), its share of the score: edge cases can
  count for more than common ones. It changes the score only, never the status;
- format 4: ``args`` and ``expected`` are *encoded* values (:mod:`assay.families.code._codec`),
  so that tuples, sets, frozensets, dicts with keys other than strings, infinite or NaN floats
  and bytes round-trip exactly: ``{"$tuple": [1, 2]}`` is the tuple ``(1, 2)``, and a candidate
  returning the list ``[1, 2]`` there fails, as Python's ``==`` would have it. The candidate's
  results come back encoded the same way (in formats 1 to 3 a tuple result reads as a list and
  the other types are refused). A case may also say ``"example": true``: the prompt shows it on
  purpose, as an example, and lint does not call that a leak.

A file of a newer format than this code reads is refused by name, never read half-way. Values are
JSON data within the bounds of :mod:`assay.families.code.records`.

A task with a legacy verifier (``code.legacy_check``) may have no case file: it has no cases.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

from assay.errors import TaskFormatError
from assay.families.code._codec import EncodingError, normalize
from assay.families.code.raising import expectable
from assay.families.code.records import MAX_DEPTH, NotPlainError, parse_plain
from assay.tasks.model import Task
from assay.tasks.spec import Count, Number

CASES_FILE = "cases.json"
FORMAT = 4
"""The newest format this code reads; it writes the oldest (from 2) that holds the cases."""
ENCODED = 4
"""The first format whose values are encoded (:mod:`assay.families.code._codec`)."""
MAX_FILE_CHARS = 64_000_000
"""Largest case file read, in characters."""
_FILE_DEPTH = 2 * MAX_DEPTH + 4  # a tag adds a level (format 4); the file, the list, a case, args


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
        "counts), in place of expected; several joined by | when any of them will do.",
    )

    weight: Number = Field(
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

    example: StrictBool = Field(
        default=False,
        description="Format 4: the prompt shows this case on purpose, as an example.",
    )

    def as_json(self) -> dict[str, object]:
        """The case as written in the file: ``expected`` or ``raises``, never both; ``weight``
        only when it is not 1, ``example`` only when true."""
        data: dict[str, object] = {"id": self.id, "args": self.args}
        if self.raises is not None:
            data["raises"] = self.raises
        else:
            data["expected"] = self.expected
        if self.weight != 1:
            data["weight"] = self.weight
        if self.example:
            data["example"] = True
        return data

    @property
    def needs_format(self) -> int:
        """The oldest format that holds this case."""
        if self.example:
            return 4
        if self.weight != 1:
            return 3
        return 2 if self.raises is not None else 1


class CaseFile(BaseModel):
    """The contents of ``hidden/cases.json``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Count = Field(
        default=1, ge=1, le=FORMAT, description="Format of the file; 1 if absent."
    )
    cases: tuple[Case, ...] = Field(min_length=1, description="The hidden test cases.")

    @model_validator(mode="after")
    def _format_holds_the_cases(self) -> CaseFile:
        if self.format < 2 and any(case.raises is not None for case in self.cases):
            raise ValueError('raises needs "format": 2')
        if self.format < 3 and any(case.weight != 1 for case in self.cases):
            raise ValueError('weight needs "format": 3')
        if self.format < ENCODED and any(case.example for case in self.cases):
            raise ValueError('example needs "format": 4')
        return self

    @property
    def encoded(self) -> bool:
        """Whether values are encoded (format 4 on): the harness then sends results encoded."""
        return self.format >= ENCODED

    @functools.cached_property
    def harness_cases(self) -> str:
        """:func:`harness_cases_json` of the cases: encoded once per file, not once per
        verification."""
        return harness_cases_json((case.id, case.args) for case in self.cases)


def harness_cases_json(cases: Iterable[tuple[str, object]]) -> str:
    """(id, arguments) pairs as the harness's job lists them, ``[{"id", "args"}, ...]``, as
    JSON text."""
    return json.dumps([{"id": case_id, "args": args} for case_id, args in cases])


def hidden_case_file(task: Task) -> CaseFile | None:
    """The case file, or None for a task with a legacy verifier and no case file; raises
    :class:`TaskFormatError` when the file is missing or malformed (one line naming
    ``<task id>/hidden/cases.json``, the field and the fix)."""
    where = f"{task.id}/hidden/{CASES_FILE}"
    raw = task.hidden.get(CASES_FILE)
    if raw is None:
        if task.spec.config.get("legacy_check"):
            return None
        raise TaskFormatError("file is missing", path=where, fix="regenerate the task")
    return _parse_cases(raw, where)


def hidden_cases(task: Task) -> tuple[Case, ...]:
    """The hidden cases (none for a legacy-verifier task without a case file); raises
    :class:`TaskFormatError` when the file is missing or malformed.

    The error is one line naming ``<task id>/hidden/cases.json``, the field and the fix.
    """
    found = hidden_case_file(task)
    return () if found is None else found.cases


def plain_case_data(raw: bytes, where: str) -> object:
    """A hidden case file (of this family or the repository family) read as plain JSON: text
    that is not UTF-8, an object repeating a key (a case's ``expected`` given twice, one shown
    to a reader and the other judged by), NaN, Infinity, a number or a nesting past the bounds
    is one :class:`TaskFormatError` naming ``where``."""
    try:
        return parse_plain(raw.decode("utf-8"), max_chars=MAX_FILE_CHARS, max_depth=_FILE_DEPTH)
    except UnicodeDecodeError:
        raise TaskFormatError("not UTF-8 text", path=where, fix="save it as UTF-8") from None
    except NotPlainError as exc:
        raise TaskFormatError(
            f"not plain JSON: {exc}", path=where, fix="correct the JSON or regenerate the task"
        ) from None


@functools.lru_cache(maxsize=4096)
def _parse_cases(raw: bytes, where: str) -> CaseFile:
    """Parsed once per distinct file: an audit verifies each task several times."""
    data = plain_case_data(raw, where)
    if isinstance(data, dict) and isinstance(data.get("format"), int) and data["format"] > FORMAT:
        raise TaskFormatError(
            f"format {data['format']} is newer than this assay reads ({FORMAT})",
            path=where,
            field="format",
            fix="upgrade assay",
        )
    try:
        case_file = CaseFile.model_validate(data)
    except ValidationError as exc:
        raise _case_error(where, exc.errors()[0]) from None
    cases = case_file.cases
    if case_file.encoded:
        case_file = case_file.model_copy(update={"cases": _normalized(cases, where)})
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
    return case_file


def _normalized(cases: tuple[Case, ...], where: str) -> tuple[Case, ...]:
    """Format 4's cases with their values in canonical encoding; raises
    :class:`TaskFormatError` naming the first malformed value."""
    fixed = []
    for index, case in enumerate(cases):
        update: dict[str, object] = {}
        for name in ("args", "expected"):
            if name == "expected" and case.raises is not None:
                continue
            try:
                update[name] = normalize(getattr(case, name))
            except EncodingError as exc:
                raise TaskFormatError(
                    f"not a valid encoded value: {exc}",
                    path=where,
                    field=f"cases[{index}].{name}",
                    fix='write a tuple as {"$tuple": [...]}, a set as {"$set": [...]}, a dict '
                    'with other keys as {"$dict": [[key, value], ...]}, a float as '
                    '{"$float": "inf"}, bytes as {"$bytes": "<base64>"} (format 4)',
                ) from None
        fixed.append(case.model_copy(update=update))
    return tuple(fixed)


def _case_error(where: str, error: ErrorDetails) -> TaskFormatError:
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
    kind = error["type"]
    if kind == "missing":
        problem, fix = "required field is missing", "add it"
    elif kind == "extra_forbidden":
        problem, fix = (
            "unknown field",
            "remove it (a case has id, args, expected or raises, weight, example)",
        )
    else:
        problem, fix = error["msg"].removeprefix("Value error, "), "correct the value"
    return TaskFormatError(problem, path=where, field=field or "(top level)", fix=fix)


def cases_json(cases: list[Case], *, min_format: int = 2) -> bytes:
    """The bytes of ``hidden/cases.json`` for ``cases``, in the oldest format from ``min_format``
    that holds them: files of cases without weights stay byte for byte what earlier versions
    wrote. Cases with encoded values need ``min_format=4``."""
    written = max([min_format, *(case.needs_format for case in cases)])
    CaseFile(format=written, cases=tuple(cases))  # the same checks as reading it back
    payload = {"format": written, "cases": [case.as_json() for case in cases]}
    return (json.dumps(payload, indent=1, ensure_ascii=False) + "\n").encode()
