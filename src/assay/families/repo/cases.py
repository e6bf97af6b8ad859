"""``hidden/cases.json`` of a repo task, and the ``[repo]`` table of its ``task.toml``.

A case calls into the submitted project in one of two ways:

- ``call``: ``"package.module:function"`` is imported and called with ``args`` (encoded values,
  :mod:`assay.families.code._codec`); its result, or the builtin exception it raised, is the
  outcome;
- ``cli``: ``"package.module:main"`` is called with the list ``argv``, with ``stdin`` as standard
  input and a fresh working directory holding ``files``; the outcome is
  ``{"exit": code, "stdout": text, "files": {name: content}}``, the files being those it wrote or
  changed there, and each input file it removed with the content None.

Each case is ``fail-to-pass`` (the workspace as given gets it wrong; the change must make it
right) or ``pass-to-pass`` (the workspace gets it right already and must keep doing so). The
expected outcome is the reference's; a vague request may have other reasonable readings, each
with its own reference, and ``readings`` then holds what each of them gives where it differs.
"""

from __future__ import annotations

import functools
import json
import posixpath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from assay.errors import TaskFormatError
from assay.families.code.casefile import plain_case_data
from assay.families.code.config import Case
from assay.families.code.raising import expectable
from assay.families.repo.rubric import RepoRubric
from assay.tasks.model import Task

CASES_FILE = "cases.json"
FORMAT = 1
FAIL_TO_PASS = "fail-to-pass"  # noqa: S105 - a kind of case, not a password
PASS_TO_PASS = "pass-to-pass"  # noqa: S105 - a kind of case, not a password
_TARGET = r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$"


class Expect(BaseModel):
    """What a case must give: a value (encoded) or a builtin exception type."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: Any = Field(default=None, description="The encoded value the case must give.")
    raises: str | None = Field(
        default=None, description="The builtin exception type it must raise, in place of value."
    )

    @model_validator(mode="after")
    def _builtin(self) -> Expect:
        if self.raises is not None and not expectable(self.raises):
            raise ValueError(f"{self.raises!r} is not a builtin exception type")
        return self


class RepoCase(BaseModel):
    """One hidden case: how to call into the project, and what must come out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$", description="Criterion name.")
    kind: Literal["fail-to-pass", "pass-to-pass"] = Field(description="What the case guards.")
    call: str | None = Field(default=None, pattern=_TARGET, description="module:function")
    args: list[Any] = Field(default_factory=list, description="Encoded arguments of a call.")
    cli: str | None = Field(default=None, pattern=_TARGET, description="module:main, given argv")
    argv: list[str] = Field(default_factory=list, description="Arguments of a cli case.")
    stdin: str = Field(default="", description="Standard input of a cli case.")
    files: dict[str, str] = Field(
        default_factory=dict, description="Files in a cli case's working directory."
    )
    expect: Expect = Field(description="The reference's outcome.")
    readings: dict[str, Expect] = Field(
        default_factory=dict,
        description="The outcome under other readings of the request, where it differs.",
    )
    weight: float = Field(default=1.0, gt=0, le=1000, description="Share of the score.")

    @model_validator(mode="after")
    def _one_target(self) -> RepoCase:
        if (self.call is None) == (self.cli is None):
            raise ValueError("a case has exactly one of call and cli")
        return self

    @field_validator("files")
    @classmethod
    def _plain_names(cls, value: dict[str, str]) -> dict[str, str]:
        """A case's input files are written in its own directory: ``..``, ``/etc/x`` or an
        empty name would be written elsewhere or not at all, and the reference fail the case."""
        for name in value:
            if name.startswith("/") or "\0" in name or {"", ".", ".."} & set(name.split("/")):
                raise ValueError(
                    f"the input file {name[:100]!r} is not a plain path relative to the case's "
                    "directory"
                )
            for end in range(1, name.count("/") + 1):
                if (directory := "/".join(name.split("/")[:end])) in value:
                    raise ValueError(
                        f"the input file {directory[:100]!r} is also the directory of "
                        f"{name[:100]!r}: rename one of them"
                    )
        return value

    def job(self) -> dict[str, object]:
        """What the sandbox's harness is told: the inputs, never the outcome."""
        if self.call is not None:
            return {"id": self.id, "call": self.call, "args": self.args}
        return {
            "id": self.id,
            "cli": self.cli,
            "argv": self.argv,
            "stdin": self.stdin,
            "files": self.files,
        }

    def judged_as(self, reading: str = "") -> Case:
        """The case as the code family judges one: an id, an expected value or exception."""
        expect = self.readings.get(reading, self.expect) if reading else self.expect
        if expect.raises is not None:
            return Case(id=self.id, args=[], raises=expect.raises, weight=self.weight)
        return Case(id=self.id, args=[], expected=expect.value, weight=self.weight)


class CaseFile(BaseModel):
    """The contents of ``hidden/cases.json``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[1] = Field(default=1, description="The file's format.")
    readings: list[str] = Field(
        default_factory=list, description="Names of the request's other reasonable readings."
    )
    cases: list[RepoCase] = Field(min_length=1, description="The hidden cases, in run order.")

    @model_validator(mode="after")
    def _unique(self) -> CaseFile:
        ids = [case.id for case in self.cases]
        if len(set(ids)) != len(ids):
            raise ValueError("case ids repeat")
        for case in self.cases:
            unknown = sorted(set(case.readings) - set(self.readings))
            if unknown:
                raise ValueError(
                    f"case {case.id} gives the reading {unknown[0]!r}, which readings does not "
                    "list (a reading not listed is never judged)"
                )
        return self

    def dumps(self) -> bytes:
        """The file's text."""
        data = self.model_dump(mode="json", exclude_defaults=False)
        return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()


class RepoConfig(BaseModel):
    """The ``[repo]`` table of task.toml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    paths: tuple[str, ...] = Field(
        default=(".",),
        description="Project directories on the import path of the cases (after the stdlib).",
    )
    tests: str = Field(
        default="tests", description="Directory of the project's visible tests (never a verdict)."
    )
    cli: str | None = Field(
        default=None, pattern=_TARGET, description="The project's entry point, module:main."
    )
    rubric: RepoRubric | None = Field(
        default=None,
        description="Weighted criteria the score is made of (the status is the cases'): see "
        "assay.families.repo.rubric. None: the score is the share of cases passed.",
    )

    @field_validator("paths")
    @classmethod
    def _project_paths(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for path in value:
            _inside_project(path)
        return value

    @field_validator("tests")
    @classmethod
    def _tests_path(cls, value: str) -> str:
        return _inside_project(value)


def _inside_project(path: str) -> str:
    """``path`` if it names a directory of the project (relative, not leaving it); the
    project is all a verification sees, so ``/etc`` or ``..`` can only be a mistake."""
    normal = posixpath.normpath(path) if path else ""
    if not normal or normal.startswith(("/", "../")) or normal == ".." or "\\" in path:
        raise ValueError(f"{path!r} is not a directory of the project: give a relative path in it")
    return path


def repo_config(task: Task) -> RepoConfig:
    """The task's ``[repo]`` settings; raises :class:`TaskFormatError` naming the field."""
    try:
        return RepoConfig.model_validate(task.spec.config)
    except ValidationError as exc:
        raise _format_error(
            exc, f"{task.id}/task.toml", "repo", "correct the [repo] table"
        ) from None


def repo_cases(task: Task) -> CaseFile:
    """The task's hidden cases; raises :class:`TaskFormatError` naming the file and field."""
    data = task.hidden.get(CASES_FILE)
    where = f"{task.id}/hidden/{CASES_FILE}"
    if data is None:
        raise TaskFormatError("missing", path=where, fix="add the hidden cases")
    return _parse(data, where)


@functools.lru_cache(maxsize=256)
def _parse(data: bytes, where: str) -> CaseFile:
    """The file read as plain JSON, as the code family's is (:func:`plain_case_data`)."""
    plain = plain_case_data(data, where)
    try:
        return CaseFile.model_validate(plain)
    except ValidationError as exc:
        raise _format_error(exc, where, "", "see assay.families.repo.cases") from None


def _format_error(exc: ValidationError, where: str, prefix: str, fix: str) -> TaskFormatError:
    first = exc.errors()[0]
    field = ".".join(str(part) for part in (prefix, *first["loc"]) if part != "")
    return TaskFormatError(first["msg"], path=where, field=field or None, fix=fix)
