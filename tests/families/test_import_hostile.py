"""Benchmark files as a hostile author writes them: the recording job's output is forged, the
reference returns values the case file must not blur, the check's messages hold control
characters."""

from __future__ import annotations

import math

import pytest

from assay.families.code import CodeFamily, importers, shown
from assay.families.code._codec import decode
from assay.families.code.config import hidden_case_file
from assay.families.code.importers import Outcome, Problem, import_problems, report_lines
from assay.sandbox import PoolSandbox
from assay.verdicts import Status

pytestmark = pytest.mark.sandbox

FORGE = """
import json, os, sys

def check(candidate):
    assert candidate(1) == 2
    frame = sys._getframe()
    while 'job' not in frame.f_locals:
        frame = frame.f_back
    nonce = frame.f_locals['job']['nonce']
    os.write(1, ('\\n' + nonce + json.dumps(RECORD) + '\\n').encode())
    os._exit(0)
"""
ADD_ONE = "def f(x):\n    return x + 1\n"


def _problem(task_id: str, test: str, solution: str = ADD_ONE) -> Problem:
    return Problem(
        where=f"t.jsonl:{task_id}",
        task_id=task_id,
        prompt="def f(x):\n    '''Do it.'''\n",
        reference=solution,
        test=test,
        entry_point="f",
        benchmark="humaneval",
    )


def _forged(task_id: str, record: dict[str, object]) -> Problem:
    return _problem(task_id, FORGE.replace("RECORD", repr(record)))


GOOD = _problem("good", "def check(candidate):\n    assert candidate(1) == 2\n")


@pytest.mark.parametrize(
    "record",
    [
        {"status": "cases"},
        {"status": "whatever"},
        {"status": "cases", "calls": [{"args": [1], "expected": 2}], "tolerance": -1.0},
        {"status": "cases", "calls": [{"args": [1], "expected": 2}], "tolerance": 1e300},
        {"status": "cases", "calls": [{"args": [1], "expected": 2}] * 2001},
    ],
    ids=["no-calls", "unknown-status", "negative-tolerance", "huge-tolerance", "too-many-calls"],
)
def test_a_forged_record_fails_its_own_problem_and_the_others_are_imported(
    pool: PoolSandbox, record: dict[str, object]
) -> None:
    imported = import_problems([_forged("forged", record), GOOD], pool, workers=1)
    outcomes = {r.source_id: r.outcome for r in imported.reports}
    assert outcomes == {"forged": Outcome.FAILED, "good": Outcome.CASES}
    assert [task.id for task in imported.tasks] == ["humaneval-good"]


def test_a_nan_result_becomes_a_case_expecting_nan(pool: PoolSandbox) -> None:
    test = "import math\ndef check(candidate):\n    assert math.isnan(candidate(1))\n"
    solution = "def f(x):\n    return float('nan')\n"
    imported = import_problems([_problem("nan", test, solution)], pool, workers=1)
    assert imported.reports[0].outcome is Outcome.CASES, imported.reports[0].detail
    found = hidden_case_file(imported.tasks[0])
    assert found is not None
    expected = decode(found.cases[0].expected)
    assert isinstance(expected, float)
    assert math.isnan(expected)


def test_a_check_that_tells_negative_zero_from_zero_is_not_blurred_into_cases(
    pool: PoolSandbox,
) -> None:
    test = (
        "import math\n"
        "def check(candidate):\n"
        "    result = candidate(1)\n"
        "    assert result == 0.0 and math.copysign(1.0, result) < 0\n"
    )
    solution = "def f(x):\n    return -0.0\n"
    imported = import_problems([_problem("negzero", test, solution)], pool, workers=1)
    report = imported.reports[0]
    assert report.outcome is Outcome.LEGACY, report.detail
    assert "-0.0" in report.detail


def test_a_check_blind_to_the_sign_of_zero_still_becomes_cases(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    assert candidate(1) == [0.0, 1.5]\n"
    solution = "def f(x):\n    return [-0.0, 1.5]\n"
    imported = import_problems([_problem("zero", test, solution)], pool, workers=1)
    assert imported.reports[0].outcome is Outcome.CASES, imported.reports[0].detail


def test_the_report_has_one_line_per_problem_and_no_control_characters(
    pool: PoolSandbox,
) -> None:
    test = (
        "def check(candidate):\n"
        "    raise AssertionError('first\\nsecond\\x1b]0;title\\x07\\x1b[2J\\r')\n"
    )
    imported = import_problems([_problem("loud\x1b[31m", test), GOOD], pool, workers=1)
    lines = report_lines(imported)
    assert len(lines) == 3
    for line in lines:
        assert line.isprintable(), repr(line)
    assert "first" in lines[0]
    assert "second" in lines[0]


def test_a_prompt_too_large_for_a_task_is_not_imported(pool: PoolSandbox) -> None:
    big = _problem("big", GOOD.test)
    big = Problem(**{**big.__dict__, "prompt": "def f(x):\n    '''" + "word " * 250_000 + "'''\n"})
    imported = import_problems([big, GOOD], pool, workers=1)
    assert [r.outcome for r in imported.reports] == [Outcome.FAILED, Outcome.CASES]
    assert "prompt.md" in imported.reports[0].detail
    assert [task.id for task in imported.tasks] == ["humaneval-good"]


def test_text_utf8_cannot_hold_is_not_imported(pool: PoolSandbox) -> None:
    lone = _problem("lone", GOOD.test)
    lone = Problem(**{**lone.__dict__, "prompt": "def f(x):\n    '''Add \ud800 one.'''\n"})
    imported = import_problems([lone], pool, workers=1)
    report = imported.reports[0]
    assert report.outcome is Outcome.FAILED
    assert report.detail == "its prompt holds \\ud800, which UTF-8 cannot hold"


def test_a_result_that_cannot_be_encoded_is_said_to_be_why_it_is_not_imported(
    pool: PoolSandbox,
) -> None:
    solution = (
        "import enum\nclass Level(enum.IntEnum):\n    ONE = 1\ndef f(x):\n    return Level.ONE\n"
    )
    test = "def check(candidate):\n    assert candidate(1) == 1\n"
    imported = import_problems([_problem("enum", test, solution)], pool, workers=1)
    report = imported.reports[0]
    assert report.outcome is Outcome.FAILED
    assert "a result cannot be encoded" in report.detail
    assert "Level cannot be encoded" in report.detail


@pytest.mark.parametrize(
    ("solution", "test"),
    [
        ("def f(x):\n    return 10**5000 + x\n", "assert candidate(1) == 10**5000 + 1"),
        ("def f(x):\n    return x % 7\n", "assert candidate(10**5000) == 10**5000 % 7"),
    ],
    ids=["result", "argument"],
)
def test_an_integer_of_more_than_4300_digits_keeps_the_check_as_a_legacy_verifier(
    pool: PoolSandbox, solution: str, test: str
) -> None:
    check = f"def check(candidate):\n    {test}\n"
    imported = import_problems([_problem("huge", check, solution)], pool, workers=1)
    report = imported.reports[0]
    assert report.outcome is Outcome.LEGACY, report.detail
    assert "more than 4300 digits" in report.detail


def test_a_result_that_holds_itself_is_not_blamed_on_the_reference(pool: PoolSandbox) -> None:
    solution = "def f(x):\n    loop = [x]\n    loop.append(loop)\n    return loop\n"
    test = "def check(candidate):\n    result = candidate(1)\n    assert result[1] is result\n"
    imported = import_problems([_problem("loop", test, solution)], pool, workers=1)
    report = imported.reports[0]
    assert report.outcome is Outcome.FAILED
    assert "the reference fails its own check" not in report.detail
    assert "it holds itself" in report.detail


def test_the_prompt_is_read_for_examples_once_however_many_calls_the_check_makes(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[str] = []
    real = shown.shown_arguments

    def counted(text: str, *args: object, **kwargs: object) -> dict[str, str]:
        scans.append(text)
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(shown, "shown_arguments", counted)
    monkeypatch.setattr(importers, "shown_arguments", counted, raising=False)
    test = "def check(candidate):\n    for i in range(300):\n        assert candidate(i) == i + 1\n"
    problem = _problem("many", test)
    problem = Problem(**{**problem.__dict__, "prompt": "def f(x):\n    '''f(2) == 3'''\n"})
    imported = import_problems([problem], pool, workers=1)
    assert imported.reports[0].outcome is Outcome.CASES, imported.reports[0].detail
    found = hidden_case_file(imported.tasks[0])
    assert found is not None
    assert [case.id for case in found.cases if case.example] == ["case-2"]
    assert len(scans) == 1


def test_a_legacy_check_calling_the_function_by_its_name_sees_rebuilt_values_too(
    pool: PoolSandbox,
) -> None:
    """A check that calls the function by its name, as HumanEval/33 calls sort_third, stays
    legacy; there the name was the candidate's own function, whose object equal to everything
    reached the check's ``==`` and passed."""
    test = "def check(candidate):\n    assert f(1) == 2\n    assert f(3) == 6\n"
    imported = import_problems([_problem("by-name", test, "def f(x):\n    return 2 * x\n")], pool)
    assert [r.outcome for r in imported.reports] == [Outcome.LEGACY]
    (task,) = imported.tasks
    equal = b"class A:\n    def __eq__(self, other):\n        return True\n\n\n"
    equal += b"def f(x):\n    return A()\n"
    verdict = CodeFamily().verify(task, {"solution.py": equal}, pool)
    assert verdict.status is Status.FAIL
    assert "cannot be encoded" in verdict.criteria[0].evidence
    reference = b"def f(x):\n    return x + x\n"
    assert CodeFamily().verify(task, {"solution.py": reference}, pool).status is Status.PASS
