"""Judging each case in the trusted process, from what the sandbox reported for it."""

from __future__ import annotations

from collections.abc import Mapping

from assay.families.code.checking import CheckAnswer
from assay.families.code.compare import canonical, first_difference
from assay.families.code.config import Case, CodeConfig
from assay.families.code.outputs import CaseOutputs, Outcome, Raised, Refused, Returned
from assay.families.code.raising import counts_as
from assay.verdicts import Criterion

EVIDENCE_LIMIT = 300


def judge(
    case: Case,
    outputs: CaseOutputs,
    config: CodeConfig,
    checks: Mapping[str, CheckAnswer],
    *,
    encoded: bool = False,
) -> Criterion:
    """One criterion for one case; ``checks`` holds the task checker's answers, if it has one.

    Nothing here raises: what the candidate produced is hostile data, so a surprise while
    judging it fails the case with the surprise as evidence. It never becomes an error, which
    the candidate could use to escape its fail.
    """
    try:
        return _judge(case, outputs, config, checks, encoded=encoded)
    except Exception as exc:  # noqa: BLE001 - the trusted side must not crash on hostile output
        return _failed(case, f"the output could not be judged: {type(exc).__name__}: {exc}")


def _judge(
    case: Case,
    outputs: CaseOutputs,
    config: CodeConfig,
    checks: Mapping[str, CheckAnswer],
    *,
    encoded: bool,
) -> Criterion:
    outcome = outputs.outcomes.get(case.id)
    usable = outputs.tampered is None and outputs.import_error is None
    if not usable or not isinstance(outcome, Returned | Raised):
        return _failed(case, _unusable(outputs, outcome))
    if case.raises is not None:
        criterion = _judge_raised(case, case.raises, outcome)
    elif isinstance(outcome, Raised):
        return _failed(case, f"raised {outcome.message}")
    else:
        criterion = _judge_value(case, outcome.value, config, checks.get(case.id), encoded=encoded)
    if not criterion.passed or config.inputs == "any":
        return criterion
    return _judge_inputs(case, outcome, config) or criterion


def _judge_inputs(case: Case, outcome: Returned | Raised, config: CodeConfig) -> Criterion | None:
    """The failure of a call that broke the task's ``code.inputs`` rule, if it did."""
    if outcome.changed:
        position = outcome.changed[0]
        was = canonical(case.args[position]) if position < len(case.args) else "?"
        return _failed(
            case,
            f"the call changed argument {position + 1} of {len(case.args)}, which the task says "
            f"must not be modified; it was {was}",
        )
    if config.inputs == "unshared" and isinstance(outcome, Returned) and outcome.shared:
        return _failed(
            case,
            "the result holds a list, dict or set that is part of an argument (the task asks "
            "for a result independent of its inputs: changing one would change the other)",
        )
    return None


def _unusable(outputs: CaseOutputs, outcome: Outcome | None) -> str:
    """Why a case has no outcome to judge."""
    if outputs.tampered is not None:
        return f"the run's records were tampered with: {outputs.tampered}"
    if outputs.import_error is not None:
        return f"solution did not load: {outputs.import_error}"
    if isinstance(outcome, Refused):
        return f"returned unplain data: {outcome.reason}"
    return outputs.missing_reason()


def _judge_value(
    case: Case, value: object, config: CodeConfig, answer: CheckAnswer | None, *, encoded: bool
) -> Criterion:
    if answer is not None:
        detail = "" if answer.passed else f": {canonical(value)}"
        return _criterion(case, answer.passed, answer.evidence + detail)
    difference = first_difference(
        case.expected,
        value,
        tolerance=config.float_tolerance,
        unordered=config.compare == "unordered",
        encoded=encoded,
        numbers_by_value=config.numbers == "by-value",
        any_container=config.containers == "any",
        as_set=config.compare == "set",
    )
    if difference is None:
        return _criterion(case, True, "matches")
    return _failed(case, difference)


def _judge_raised(case: Case, expected: str, outcome: Returned | Raised) -> Criterion:
    if isinstance(outcome, Returned):
        returned = canonical(outcome.value)
        return _failed(case, f"expected {expected} to be raised, returned {returned}")
    if counts_as(expected, outcome.builtins):
        return _criterion(case, True, f"raised {outcome.type_name}")
    return _failed(case, f"expected {expected} to be raised, got {outcome.message}")


def _criterion(case: Case, passed: bool, evidence: str) -> Criterion:
    return Criterion(
        name=case.id, passed=passed, weight=case.weight, evidence=evidence[:EVIDENCE_LIMIT]
    )


def _failed(case: Case, evidence: str) -> Criterion:
    return _criterion(case, False, evidence)
