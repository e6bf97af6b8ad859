"""Lint of code tasks: shown examples are normal; real leaks of cases and reference are not."""

from __future__ import annotations

from assay.families.code.config import Case, cases_json
from assay.families.code.lint import lint_code_task
from assay.tasks import Task
from tests.conftest import make_median_task

CASES = [
    Case(id="c0", args=[[3, 1, 2]], expected=2, example=True),
    Case(id="c1", args=[[4, 1]], expected=2.5),
    Case(id="c2", args=[[9]], expected=9),
]


def _errors(task: Task) -> list[str]:
    return [f.message for f in lint_code_task(task) if f.severity == "error"]


def _task(cases: list[Case], prompt_extra: str = "", reference: bytes | None = None) -> Task:
    task = make_median_task()
    solutions = dict(task.solutions)
    if reference is not None:
        solutions["reference"] = {"solution.py": reference}
    return task.model_copy(
        update={
            "hidden": {"cases.json": cases_json(cases)},
            "prompt": task.prompt + prompt_extra,
            "solutions": solutions,
        }
    )


def test_a_case_marked_as_example_may_be_shown() -> None:
    assert _errors(_task(CASES, "\n>>> median([3, 1, 2])\n2\n")) == []


def test_an_unmarked_hidden_case_shown_is_still_a_leak() -> None:
    errors = _errors(_task(CASES, "\nmedian([4, 1]) == 2.5\n"))
    assert errors == ["hidden case c1 is shown in prompt.md"]


def test_every_case_shown_is_an_error_even_when_marked() -> None:
    marked = [case.model_copy(update={"example": True}) for case in CASES]
    shown = "\nmedian([3, 1, 2]) == 2, median([4, 1]) == 2.5, median([9]) == 9\n"
    errors = _errors(_task(marked, shown))
    assert errors == [
        "every hidden case (3) is shown to the agent: a candidate that hard-codes them passes "
        "(add cases the prompt does not show)"
    ]


def test_an_example_contradicting_its_case_is_an_error() -> None:
    errors = _errors(_task(CASES, "\n>>> median([3, 1, 2])\n3\n"))
    assert errors == ["prompt.md shows median([3, 1, 2]) giving 3, but hidden case c0 expects 2"]


def test_a_reference_repeating_the_prompts_import_and_helper_is_no_leak() -> None:
    helper = (
        "from typing import List, Optional, Sequence\n\n\n"
        "def middle_index_of_the_sorted_values(values: Sequence[float]) -> int:\n"
        "    return len(values) // 2 if values else -1\n"
    )
    reference = (
        helper
        + "\n\ndef median(values: List[float]) -> Optional[float]:\n"
        + '    """>>> median([3, 1, 2]) is the middle value after sorting the values"""\n'
        + "    ordered = sorted(values); middle = middle_index_of_the_sorted_values(ordered)\n"
        + "    if middle < 0:\n        return None\n"
        + "    if len(ordered) % 2:\n        return ordered[middle]\n"
        + "    return (ordered[middle - 1] + ordered[middle]) / 2\n"
    )
    prompt = f"\n```python\n{helper}\n\ndef median(values: List[float]) -> Optional[float]:\n"
    prompt += '    """>>> median([3, 1, 2]) is the middle value after sorting the values"""\n```\n'
    assert _errors(_task(CASES, prompt, reference.encode())) == []
    leaked = (
        prompt
        + "    ordered = sorted(values); middle = middle_index_of_the_sorted_values(ordered)\n"
    )
    assert _errors(_task(CASES, leaked, reference.encode())) == [
        "a line of solutions/reference appears in prompt.md"
    ]


def test_an_example_showing_a_list_where_a_tuple_is_expected_contradicts_format_4() -> None:
    cases = [
        Case(id="c0", args=[[3, 1]], expected={"$tuple": [1, 3]}, example=True),
        Case(id="c1", args=[[4]], expected={"$tuple": [4]}),
    ]
    task = _task(cases, "\n>>> median([3, 1])\n(1, 3)\n")
    assert _errors(task) == []
    task = _task(cases, "\n>>> median([3, 1])\n[1, 3]\n")
    assert _errors(task) == [
        "prompt.md shows median([3, 1]) giving [1, 3], but hidden case c0 expects (1, 3)"
    ]


def test_an_int_shown_where_a_float_is_expected_contradicts() -> None:
    errors = _errors(_task(CASES, "\n>>> median([3, 1, 2])\n2.0\n"))
    assert errors == ["prompt.md shows median([3, 1, 2]) giving 2.0, but hidden case c0 expects 2"]
