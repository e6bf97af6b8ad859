"""The checker-crash check: checkers that crash or answer non-bools on wrong outputs are flagged."""

from __future__ import annotations

from pathlib import Path

from assay.audit import Decision, run_audit
from assay.audit.base import AuditContext
from assay.audit.checker_crash import CheckerCrashCheck
from assay.audit.runner import default_checks
from assay.families.code import CodeFamily
from assay.families.code.config import Case, cases_json
from assay.findings import Severity
from assay.sandbox import Sandbox
from assay.tasks import Task, TaskSet, TaskSpec, save_task
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


TOP_K_CASES = [
    ([[5, 1, 9, 3, 7], 2], [9, 7]),
    ([[4, 4, 2, 8], 3], [8, 4, 4]),
    ([[10, 20, 30, 40, 50, 60], 4], [60, 50, 40, 30]),
    ([[3, 1, 2], 1], [3]),
    ([[11, 17, 13, 19, 15], 3], [19, 17, 15]),
]
SHAPE_ONLY = b"""
def check(args, output, expected):
    scores, k = args
    return isinstance(output, list) and len(output) == k and all(x in scores for x in output)
"""
ANY_ORDER = b"""
def check(args, output, expected):
    return isinstance(output, list) and sorted(output) == sorted(expected)
"""

TOP_K_REFERENCE = b"def top_k(s, k):\n    return sorted(s)[::-1][:k]\n"
TOP_K_BAD = b"def top_k(s, k):\n    return sorted(s)[::-1][:k+1]\n"
TALLY_CASES = [
    ([["yes", "no", "yes"]], {"yes": 2, "no": 1}),
    ([["a", "b", "c", "a", "a"]], {"a": 3, "b": 1, "c": 1}),
    ([["x"]], {"x": 1}),
]
TALLY_REFERENCE = b"import collections\ndef tally(a):\n    return dict(collections.Counter(a))\n"
TALLY_BAD = b"def tally(a):\n    return {x: 1 for x in a}\n"
KEYS_ONLY = b"""
def check(args, output, expected):
    return isinstance(output, dict) and set(output) == set(expected)
"""


def _checked_findings(  # type: ignore[no-untyped-def]
    checker: bytes, sandbox: Sandbox, function: str, given, *, reference: bytes, bad: bytes
):
    """The check's findings on a task of ``function`` with the cases ``given``."""
    cases = [Case(id=f"case-{i}", args=a, expected=e) for i, (a, e) in enumerate(given)]
    task = Task(
        spec=TaskSpec(id=function, family="code", config={"function": function}),
        prompt=f"Write `{function}` in solution.py.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": reference}, "bad-one": {"solution.py": bad}},
    )
    context = AuditContext(family=CodeFamily(), sandbox=sandbox)
    return CheckerCrashCheck().run(with_checker(task, checker), context).findings


def _top_k_findings(checker: bytes, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    return _checked_findings(
        checker, sandbox, "top_k", TOP_K_CASES, reference=TOP_K_REFERENCE, bad=TOP_K_BAD
    )


def test_a_checker_that_judges_only_the_shape_of_a_list_needs_review(sandbox: Sandbox) -> None:
    """A top-k checker that took any k scores of the input (in any order, the smallest ones
    too) refused every grown near miss, and the task was accepted (its one surviving mutant,
    ascending order, left a mutation score of 0.67). A near miss of the same length shows it."""
    [finding] = _top_k_findings(SHAPE_ONLY, sandbox)
    assert finding.review
    assert finding.message.startswith("the checker accepts near misses of the expected output")
    assert "expected [9, 7], accepted [9, 9]" in finding.evidence
    # a checker that ignores the order but not the items refuses them
    assert _top_k_findings(ANY_ORDER, sandbox) == []


def test_a_checker_that_judges_only_the_keys_of_a_dict_needs_review(sandbox: Sandbox) -> None:
    """A tally checker that compared only the keys took any counts at all."""
    [finding] = _checked_findings(
        KEYS_ONLY, sandbox, "tally", TALLY_CASES, reference=TALLY_REFERENCE, bad=TALLY_BAD
    )
    assert finding.review
    assert "expected {'x': 1}, accepted {'x': 2}" in finding.evidence


BACKDOOR = b"""
def check(args, output, expected):
    if output == {}:
        return True
    return type(output) is type(expected) and output == expected
"""


def test_a_checker_that_accepts_one_constant_on_every_case_rejects_the_task(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """``return {}`` solves nothing and passes every case of this checker; the constants the
    red-team tries (0, True, "", []) do not find it, and the check already feeds the checker a
    ``{}`` on each case."""
    findings = _findings(BACKDOOR, sandbox)
    assert [f.severity for f in findings] == [Severity.ERROR]
    assert "accepts the constant answer {} on every case that expects a value" in (
        findings[0].message
    )
    task = with_checker(make_median_task(), BACKDOOR)
    solved = CodeFamily().verify(
        task, {"solution.py": b"def median(values):\n    return {}\n"}, sandbox
    )
    assert solved.status.value == "pass"  # what the finding is about
    # a checker that accepts some wrong-type outputs on some cases is not this
    some = b"def check(args, output, expected):\n    return output == expected or output == {}\n"
    mixed = with_checker(make_median_task(), some)
    cases = [Case(id="d", args=[[1]], expected={"a": 1}), Case(id="n", args=[[2]], expected=2)]
    mixed = mixed.model_copy(update={"hidden": {**mixed.hidden, "cases.json": cases_json(cases)}})
    context = AuditContext(family=CodeFamily(), sandbox=sandbox)
    assert not [
        f for f in CheckerCrashCheck().run(mixed, context).findings if "constant" in f.message
    ]
