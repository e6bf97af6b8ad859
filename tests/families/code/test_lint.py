"""Lint of code tasks: shown examples are normal; real leaks of cases and reference are not."""

from __future__ import annotations

import base64
import gzip

import pytest

from assay.families.code.config import Case, cases_json
from assay.families.code.lint import lint_code_task
from assay.tasks import Task
from tests.conftest import REFERENCE, make_median_task

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


@pytest.mark.parametrize(
    "shown",
    ["median([3, 1, 2]) yields 3", "median([3, 1, 2])  # 3", "median([3, 1, 2]) evaluates to 3"],
)
def test_an_example_contradicting_its_case_in_other_words_is_an_error(shown: str) -> None:
    errors = _errors(_task(CASES, f"\n{shown}\n"))
    assert errors == ["prompt.md shows median([3, 1, 2]) giving 3, but hidden case c0 expects 2"]


def test_a_contradiction_of_megabytes_is_one_short_line() -> None:
    long_list = list(range(100_000))
    cases = [Case(id="c0", args=[long_list], expected=[0] * 100_000, example=True), *CASES[1:]]
    (error,) = _errors(_task(cases, f"\n>>> median({long_list})\n{[1] * 100_000}\n"))
    assert len(error) < 1000
    assert error.startswith("prompt.md shows median([0, 1, 2, 3,")
    assert "but hidden case c0 expects [0, 0, 0" in error
    assert "(300,000 characters)" in error  # the shown value's length, said


def test_a_definition_written_with_equals_is_no_contradiction() -> None:
    assert _errors(_task(CASES, "\nmedian([3, 1, 2]) = 3 when the middle is kept\n")) == []
    assert _errors(_task(CASES, "\nmedian([3, 1, 2]) = 3\n")) == []


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


UNMARKED = [
    Case(id="c1", args=[[4, 1]], expected=2.5),
    Case(id="c2", args=[[9]], expected=9),
    Case(id="c3", args=[[5, 6, 7]], expected=6),
]


def _shown(task: Task) -> list[tuple[str, str]]:
    return [(f.message, f.evidence) for f in lint_code_task(task) if f.severity == "error"]


def test_a_hidden_case_shown_without_the_usual_spacing_is_a_leak() -> None:
    task = _task(UNMARKED, "\nFor example median([4,1])==2.5 and median( [5,6 , 7] ) is 6.\n")
    assert _shown(task) == [
        ("hidden case c1 is shown in prompt.md", "median([4,1])"),
        ("hidden case c3 is shown in prompt.md", "median( [5,6 , 7] )"),
    ]


def test_a_hidden_case_shown_with_other_literals_or_a_keyword_is_a_leak() -> None:
    # 4e0 is 4 by value (a candidate that hard-codes 4 answers 4.0 too); the keyword is bound
    # to its place by the reference's signature, median(values)
    task = _task(CASES, "\nmedian(values=[4e0, 0x1]) gives 2.5; so does median(values=[9.0]).\n")
    assert _shown(task) == [
        ("hidden case c1 is shown in prompt.md", "median(values=[4e0, 0x1])"),
        ("hidden case c2 is shown in prompt.md", "median(values=[9.0])"),
    ]


def test_calls_that_do_not_give_a_cases_arguments_are_no_leak() -> None:
    shown = (
        "\nmedian(items=[4, 1]) names no parameter of the reference; median([4, 1], 2) passes"
        " more; median([True]) passes no int; my_median([9]) is another function.\n"
    )
    cases = [*UNMARKED, Case(id="c4", args=[[1]], expected=1)]
    assert _shown(_task(cases, shown)) == []


def test_every_case_shown_in_any_text_form_is_an_error_even_when_marked() -> None:
    marked = [case.model_copy(update={"example": True}) for case in CASES]
    shown = "\nmedian([3,1,2]) == 2, median(values=[4, 1]) == 2.5, median([9.0]) == 9\n"
    assert _errors(_task(marked, shown)) == [
        "every hidden case (3) is shown to the agent: a candidate that hard-codes them passes "
        "(add cases the prompt does not show)"
    ]
    assert _errors(_task(marked, shown.replace("[9.0]", "[8]"))) == []


def _compared(compare: str, prompt: str) -> Task:
    task = _task(UNMARKED, prompt)
    config = {"function": "median", "compare": compare}
    return task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})


def test_a_promised_order_that_the_comparison_ignores_is_an_error() -> None:
    promise = "\nReturn the distinct values in ascending order (smallest first), each once.\n"
    for compare in ("unordered", "set"):
        assert _errors(_compared(compare, promise)) == [
            "prompt.md promises an order ('in ascending order'), but compare = "
            f'"{compare}" in task.toml ignores it: a result in any order passes; set compare = '
            '"exact" in the [code] table (or say the order does not matter)'
        ]
    for wording in (
        "sorted by length",
        "sorted descending",
        "in the order they appear",
        "in order of first appearance",
    ):
        assert len(_errors(_compared("unordered", f"\nReturn them {wording}.\n"))) == 1, wording
    assert _errors(_compared("exact", promise)) == []


def test_an_order_that_the_prompt_leaves_open_is_no_promise() -> None:
    for prompt in (
        "\nEach group is sorted in ascending order; the groups may be listed in any order.\n",
        "\nThe result need not be in ascending order.\n",
        "\nReturn the distinct values, each once.\n",
    ):
        assert _errors(_compared("unordered", prompt)) == [], prompt


def _clock_findings(reference: bytes) -> list[tuple[str, bool, str]]:
    return [
        (f.severity, f.review, f.message)
        for f in lint_code_task(_task(UNMARKED, reference=reference))
        if "clock" in f.message
    ]


def test_a_reference_that_reads_the_clock_is_quarantined_for_review() -> None:
    bomb = b"import datetime\n_OK = datetime.date.today() < datetime.date(2027, 1, 1)\n"
    assert _clock_findings(bomb + REFERENCE) == [
        (
            "warning",
            True,
            "solutions/reference/solution.py reads the clock (line 2: datetime.date.today()): "
            "its answers, and the verdicts, may change with the date; review it, and compute "
            "the answer from the arguments alone",
        )
    ]
    assert _clock_findings(REFERENCE) == []


def test_clock_calls_are_found_through_import_aliases() -> None:
    aliased = (
        b"import datetime as dt\nimport time as t\nfrom datetime import datetime as DT\n"
        b"from time import localtime, time_ns\n"
        b"def median(values):\n"
        b"    return [dt.datetime.now(), t.time(), DT.utcnow(), localtime(), time_ns()]\n"
    )
    found = [message.split(": its")[0] for _, _, message in _clock_findings(aliased)]
    assert [message.split("(line 6: ")[1] for message in found] == [
        "dt.datetime.now())",
        "t.time())",
        "DT.utcnow())",
        "localtime())",
        "time_ns())",
    ]
    converts = (
        b"import time\nfrom datetime import date\n"
        b"def median(values):\n"
        b"    return time.localtime(values[0]), date.fromisoformat('2020-01-01'), time.gmtime(0)\n"
        b"def label(t):\n"
        b"    return time.strftime('%Y', t)\n"
    )
    assert _clock_findings(converts) == []
    formatted = b"import time\ndef median(values):\n    return time.strftime('%z')\n"
    [(_, _, message)] = _clock_findings(formatted)
    assert "(line 3: time.strftime('%z'))" in message


def test_hidden_cases_encoded_in_the_workspace_are_a_copy() -> None:
    """A workspace note that was the base64 of the hidden cases (or the cases reversed, or
    compressed, or hex in a comment) passed the audit: only plain copies were looked for."""
    task = make_median_task()
    cases = task.hidden["cases.json"]
    encodings = {
        "notes.txt": base64.b64encode(cases),
        "data.txt": cases[::-1],
        "blob.bin": gzip.compress(cases),
        "helpers.py": b"# fixtures: " + cases.hex().encode() + b"\ndef helper():\n    pass\n",
    }
    for name, data in encodings.items():
        leaky = task.model_copy(update={"workspace": {name: data}})
        assert _errors(leaky) == [f"workspace/{name} is a copy of hidden/cases.json"], name
    unrelated = base64.b64encode(b"nothing of the task's, long enough to be compared at all")
    assert _errors(task.model_copy(update={"workspace": {"notes.txt": unrelated}})) == []
