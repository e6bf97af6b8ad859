"""The checker-crash check: checkers that crash or answer non-bools on wrong outputs are flagged."""

from __future__ import annotations

from pathlib import Path

from assay.audit import Decision, run_audit
from assay.audit.base import AuditContext
from assay.audit.checker_crash import CheckerCrashCheck
from assay.audit.runner import default_checks
from assay.families.code import CodeFamily
from assay.findings import Severity
from assay.sandbox import Sandbox
from assay.tasks import TaskSet, save_task
from tests.conftest import make_median_task, with_checker

ROBUST = b"""
def check(args, output, expected):
    if type(output) is not type(expected):
        return False
    return output == expected
"""
FRAGILE = b"def check(args, output, expected):\n    return abs(output - expected) < 1e-9\n"
NON_BOOL = b"""
def check(args, output, expected):
    if output is None:
        return 0
    return output == expected
"""


def _findings(checker: bytes, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    task = with_checker(make_median_task(), checker)
    return (
        CheckerCrashCheck().run(task, AuditContext(family=CodeFamily(), sandbox=sandbox)).findings
    )


def test_it_is_a_default_check() -> None:
    assert "checker-crash" in [check.name for check in default_checks()]


def test_a_robust_checker_and_a_task_without_one_have_no_findings(sandbox: Sandbox) -> None:
    assert _findings(ROBUST, sandbox) == []
    context = AuditContext(family=CodeFamily(), sandbox=sandbox)
    assert CheckerCrashCheck().run(make_median_task(), context).findings == []


def test_a_checker_that_crashes_on_wrong_outputs_is_flagged(sandbox: Sandbox) -> None:
    findings = _findings(FRAGILE, sandbox)
    assert [f.severity for f in findings] == [Severity.WARNING]
    assert "crashes on" in findings[0].message
    assert "TypeError" in findings[0].evidence


def test_a_checker_that_answers_a_non_bool_rejects_the_task(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    findings = _findings(NON_BOOL, sandbox)
    assert [f.severity for f in findings] == [Severity.ERROR]
    assert "other than a bool" in findings[0].message
    task = with_checker(make_median_task(), NON_BOOL)
    report = run_audit(TaskSet.load(save_task(task, tmp_path)), sandbox)
    assert report.tasks[0].decision is Decision.REJECTED
    assert "checker-crash" in {f.check for f in report.tasks[0].findings}


def test_known_bad_outputs_reach_the_checker(sandbox: Sandbox) -> None:
    # Crashes only on the known-bad solution's output for [4, 1, 3, 2] (it returns 2.0 there).
    checker = b"""
def check(args, output, expected):
    if output == 2.0 and args == [[4, 1, 3, 2]]:
        raise RuntimeError("cannot judge this one")
    return type(output) is type(expected) and output == expected
"""
    findings = _findings(checker, sandbox)
    assert len(findings) == 1
    assert "bad-unsorted case-1" in findings[0].evidence


BETWEEN = b"""
def check(args, output, expected):
    values = args[0]
    if not values:
        return output is None
    ok = isinstance(output, (int, float)) and not isinstance(output, bool)
    return ok and min(values) <= output <= max(values)
"""
TOLERANT = b"""
import math
def check(args, output, expected):
    if expected is None or output is None:
        return output is expected
    ok = isinstance(output, (int, float)) and not isinstance(output, bool)
    return ok and math.isclose(output, expected, rel_tol=1e-6)
"""


def test_a_checker_that_judges_a_property_not_the_value_needs_review(sandbox: Sandbox) -> None:
    """A median checker that took any number between the smallest and the largest value was
    accepted (its mutation score 0.62, and checker tasks get no sensitivity probes): the first
    element of the list passed it. Near misses of the expected outputs show it."""
    [finding] = _findings(BETWEEN, sandbox)
    assert finding.severity is Severity.WARNING
    assert finding.review
    assert finding.message.startswith("the checker accepts near misses of the expected output")
    assert "expected 2, accepted 3" in finding.evidence
    assert _findings(TOLERANT, sandbox) == []  # a tolerance refuses a miss of 1% and 0.5
