"""The code family's task settings (``[code]`` in task.toml).

The hidden cases live in :mod:`assay.families.code.casefile`; they are re-exported here for the
callers that have always found them in this module.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from assay.errors import InputError, TaskFormatError
from assay.families.code.casefile import (
    CASES_FILE,
    Case,
    CaseFile,
    cases_json,
    hidden_case_file,
    hidden_cases,
)
from assay.sandbox import package_modules
from assay.tasks.model import Task
from assay.tasks.spec import Number

__all__ = [
    "CASES_FILE",
    "Case",
    "CaseFile",
    "CodeConfig",
    "cases_json",
    "code_config",
    "hidden_case_file",
    "hidden_cases",
]

PackageName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")]


class CodeConfig(BaseModel):
    """What to call and how to compare, from the ``[code]`` table of task.toml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="Function to call.")
    entrypoint: str = Field(
        default="solution.py",
        pattern=r"^[A-Za-z_][A-Za-z0-9_/]*\.py$",
        description="File of the solution that defines the function.",
    )
    compare: Literal["exact", "unordered", "set"] = Field(
        default="exact",
        description="unordered: a top-level list result (or tuple, in case files of format 4) "
        'is a multiset; set: with containers = "any", a top-level collection is a set '
        "(order and repeats do not matter, as set(f(x)) == ... has it).",
    )
    containers: Literal["typed", "any"] = Field(
        default="typed",
        description="any: a top-level list, tuple, set or frozenset result matches another of "
        "these types with the same items (for benchmarks imported with checks that convert "
        "the result: tuple(f(x)) == ...).",
    )
    numbers: Literal["typed", "by-value"] = Field(
        default="typed",
        description="typed: an int, a float and a bool never match each other (2 is not 2.0); "
        "by-value: numbers match by value whatever their type, as Python's == has it (for "
        "benchmarks imported with checks that compare with ==).",
    )
    inputs: Literal["any", "unchanged", "unshared"] = Field(
        default="any",
        description="unchanged: a call that leaves any argument other than it was (compared by "
        "value, as encoded data, after it returns or raises) fails its case, for prompts that "
        "say the inputs must not be modified; unshared: besides, no list, dict, set or "
        "bytearray in the result may be part of an argument (a caller changing the result "
        "would change the input), for prompts that ask for a new, independent result.",
    )
    float_tolerance: Number | None = Field(
        default=None,
        ge=0,
        description="Relative and absolute float tolerance (default 1e-9); above 0.01 the audit "
        "quarantines the task for a person.",
    )
    checker: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.py$",
        description="A checker in hidden/ defining check(args, output, expected) -> bool, for "
        "problems with more than one right answer. Task code: it runs in its own sandbox.",
    )
    legacy_check: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.py$",
        description="A legacy verifier in hidden/ defining check(candidate), as imported "
        "benchmarks ship it (HumanEval's test), for problems whose check could not be turned "
        "into cases. It runs in the sandbox together with the candidate, so the candidate can "
        "tamper with it: exploitable by construction, and the audit quarantines such tasks.",
    )
    imports: tuple[PackageName, ...] = Field(
        default=(),
        description="Packages a candidate may import besides the standard library: top-level "
        "module or distribution names installed in assay's environment (their runtime "
        "requirements come along). Empty: the standard library only.",
    )


def code_config(task: Task) -> CodeConfig:
    """The task's ``[code]`` settings; raises :class:`TaskFormatError` naming the field."""
    where = f"{task.id}/task.toml"
    try:
        config = CodeConfig.model_validate(task.spec.config)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "code." + ".".join(str(p) for p in first["loc"])
        raise TaskFormatError(
            first["msg"], path=where, field=field, fix="correct the [code] table"
        ) from None
    try:
        package_modules(config.imports)
    except InputError as exc:
        fix = f"{exc.fix} from code.imports" if exc.fix else None
        raise TaskFormatError(exc.problem, path=where, field="code.imports", fix=fix) from None
    return config
