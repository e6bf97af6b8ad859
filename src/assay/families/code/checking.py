"""Judging each case in the trusted process: compare, or ask the task's trusted checker."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from assay.errors import TaskFormatError, VerifierError
from assay.families.code.compare import canonical, first_difference
from assay.families.code.config import Case, CodeConfig
from assay.tasks.model import Task
from assay.verdicts import Criterion

if TYPE_CHECKING:
    from assay.families.code.family import CaseOutputs

Checker = Callable[[list[object], object, object], object]
EVIDENCE_LIMIT = 300


def load_checker(task: Task, config: CodeConfig) -> Checker | None:
    """The task's ``check(args, output, expected)`` from ``hidden/``, if it names one.

    The checker is task-author code and runs in the trusted process, never with candidate code.
    """
    if config.checker is None:
        return None
    where = f"{task.id}/hidden/{config.checker}"
    source = task.hidden.get(config.checker)
    if source is None:
        raise TaskFormatError(
            "checker file is missing", path=where, fix="add it or drop code.checker"
        )
    namespace: dict[str, object] = {"__name__": "assay_checker"}
    try:
        exec(compile(source, where, "exec"), namespace)  # noqa: S102 - trusted task-author code
    except Exception as exc:  # noqa: BLE001 - any failure to load is the task's fault
        raise TaskFormatError(f"checker does not load: {exc}", path=where, fix="fix it") from None
    check = namespace.get("check")
    if not callable(check):
        raise TaskFormatError(
            "defines no check(args, output, expected)", path=where, fix="define the function"
        )
    return check


def judge(
    case: Case, outputs: CaseOutputs, config: CodeConfig, checker: Checker | None
) -> Criterion:
    """One criterion for one case, from what the sandbox returned for it."""
    if outputs.import_error is not None:
        return _failed(case, f"solution did not load: {outputs.import_error}")
    if case.id in outputs.errors:
        return _failed(case, f"raised or returned unplain data: {outputs.errors[case.id]}")
    if case.id not in outputs.values:
        return _failed(case, outputs.missing_reason())
    actual = outputs.values[case.id]
    if checker is not None:
        return _checked(case, actual, checker)
    difference = first_difference(
        case.expected,
        actual,
        tolerance=config.float_tolerance,
        unordered=config.compare == "unordered",
    )
    if difference is None:
        return Criterion(name=case.id, passed=True, evidence="matches")
    return _failed(case, difference)


def _checked(case: Case, actual: object, checker: Checker) -> Criterion:
    try:
        verdict = checker(list(case.args), actual, case.expected)
    except Exception as exc:
        raise VerifierError(f"the task's checker failed on case {case.id}: {exc!r}") from exc
    if type(verdict) is not bool:
        raise VerifierError(f"the task's checker returned {type(verdict).__name__}, not bool")
    evidence = (
        "accepted by the checker" if verdict else f"rejected by the checker: {canonical(actual)}"
    )
    return Criterion(name=case.id, passed=verdict, evidence=evidence[:EVIDENCE_LIMIT])


def _failed(case: Case, evidence: str) -> Criterion:
    return Criterion(name=case.id, passed=False, evidence=evidence[:EVIDENCE_LIMIT])
