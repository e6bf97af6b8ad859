"""Hidden cases a prompt shows with their results, without calling the function: a table of
arguments and results, or ``args -> result`` lines. All of them shown, a candidate that looks
them up passes."""

from __future__ import annotations

import pytest

from assay.families.code.config import Case, cases_json
from assay.families.code.lint import lint_code_task
from assay.families.code.shown import shown_pairs
from assay.tasks import Task
from tests.conftest import make_median_task
from tests.families.code.work import lines_run

CASES = [
    Case(id="c0", args=[[3, 1, 2]], expected=2, example=True),
    Case(id="c1", args=[[4, 1]], expected=2.5),
    Case(id="c2", args=[[9]], expected=9),
]
EVERY_CASE = (
    "every hidden case (3) is shown to the agent: a candidate that hard-codes them passes "
    "(add cases the prompt does not show)"
)


def _errors(task: Task) -> list[str]:
    return [f.message for f in lint_code_task(task) if f.severity == "error"]


def _task(prompt_extra: str, cases: list[Case] = CASES, **config: object) -> Task:
    task = make_median_task()
    spec = task.spec.model_copy(update={"config": {"function": "median", **config}})
    return task.model_copy(
        update={
            "spec": spec,
            "hidden": {"cases.json": cases_json(cases)},
            "prompt": task.prompt + prompt_extra,
        }
    )


@pytest.mark.parametrize(
    "shown_so",
    [
        "\n| values | median |\n|---|---|\n| [3, 1, 2] | 2 |\n| [4, 1] | 2.5 |\n| [9] | 9 |\n",
        "\n[3, 1, 2] -> 2\n[4, 1] => 2.5\n[9] → 9\n",
        "\n- `[3, 1, 2]` -> `2`\n- `[4, 1]` -> `2.5`;\n- `[9]` -> `9`.\n",
        "\nf([3,1,2]) returns 2. Calling f([4, 1]) gives 2.5, and f([9]) gives 9.0\n",
        "\nExamples:\n[3, 1, 2]: 2\n[4, 1]: 2.5\n[9]: 9\n",
        "\nInput: [3, 1, 2], Output: 2\n1. input = [4, 1]; expected = 2.5\n> Input: [9] Output: 9",
        "\nmedian([3, 1, 2]) == 2\n| [4, 1] | 2.5 |\n[9] -> 9\n",
    ],
    ids=["table", "arrows", "list-items", "prose", "colons", "input-output", "mixed"],
)
def test_every_case_shown_with_its_result_is_an_error(shown_so: str) -> None:
    assert _errors(_task(shown_so)) == [EVERY_CASE]


@pytest.mark.parametrize(
    "shown_so",
    [
        '\n{"input": [3, 1, 2], "output": 2}\n{"args": [[4, 1]], "expected": 2.5},\n'
        "{'input': {'values': [9]}, 'result': 9}\n",
        "\nInput: values = [3, 1, 2]\nOutput: 2\n\n**Input:** [4, 1]\n\n**Output:** 2.5\n"
        "Input: values = [9]\nExpected: 9\n",
        "\nFor input [3, 1, 2] the answer is 2.\nGiven [4, 1], the function should return 2.5.\n"
        "If the input is [9], the output is 9 because there is one value.\n",
        "\n[3, 1, 2] yields 2\n[4, 1] is 2.5\n`[9]` evaluates to `9`\n",
    ],
    ids=["json-lines", "input-then-output-lines", "sentences", "words"],
)
def test_every_case_shown_in_a_form_without_the_call_is_an_error(shown_so: str) -> None:
    assert _errors(_task(shown_so)) == [EVERY_CASE]


def test_an_input_line_whose_output_is_not_next_shows_nothing() -> None:
    shown = "\nInput: [3, 1, 2]\nOutput: 2\nInput: [4, 1]\nIt is sorted first.\nOutput: 2.5\n"
    assert _errors(_task(shown + "[9] -> 9\n")) == []


def test_a_case_shown_with_its_result_is_an_example_not_a_leak() -> None:
    assert _errors(_task("\n| [3, 1, 2] | 2 |\n| [4, 1] | 2.5 |\n")) == []


def test_a_line_with_another_result_does_not_show_the_case() -> None:
    assert _errors(_task("\n[3, 1, 2] -> 2\n[4, 1] -> 2\n[9] -> 9\n")) == []


def test_several_arguments_read_as_cells_or_as_one_side() -> None:
    for text in ("| 2 | 3 | 5 |", "2, 3 -> 5", "(2, 3) -> 5", "f(b=3, a=2) returns 5"):
        read = [(pair.args, pair.results) for pair in shown_pairs(text, "f", ("a", "b"))]
        assert any([2, 3] in args and results == [5] for args, results in read), (text, read)


def test_headers_rules_and_words_are_not_read() -> None:
    text = "| a | b |\n|---|---|\nNote: see above\nIt returns the median.\n{1: 2}\n"
    assert shown_pairs(text, "f", None) == []


def _lines_run(text: str) -> int:
    """The lines of :mod:`assay.families.code.shown` that reading ``text`` runs: the work the
    read does, counted instead of timed."""
    return lines_run(lambda: shown_pairs(text, "f", ("x",)))


@pytest.mark.parametrize(
    "line",
    [
        "| 1 | 2 |",
        "[1] -> 2",
        "f(f(f( -> : -> : returns 1",
        "a: b: c: d -> e => f",
        "Input: output: =",
        "for input for [1] given the answer is it is 2",
        '{"input": [1], "output": 2}',
        "Input: [1]\nOutput: 2",
    ],
)
def test_reading_grows_with_the_text_not_with_its_square(line: str) -> None:
    small, large = _lines_run((line + "\n") * 200), _lines_run((line + "\n") * 1600)
    assert large < 10 * small, (line, small, large)
    wide, wider = _lines_run(line * 200), _lines_run(line * 1600)
    assert wider < 10 * wide + 100, (line, wide, wider)


def _warnings(task: Task) -> list[str]:
    return [f.message for f in lint_code_task(task) if f.severity == "warning" and f.review]


def test_a_tolerance_that_passes_wrong_answers_needs_a_person() -> None:
    assert _warnings(_task("", float_tolerance=0.3)) == [
        "float_tolerance = 0.3 in task.toml passes a float 30% off the expected value (and any "
        "within 0.3 of it): a wrong answer passes; review it, or set float_tolerance to at "
        "most 0.01 in the [code] table"
    ]
    assert _warnings(_task("", float_tolerance=0.011)) != []
    (wide,) = _warnings(_task("", float_tolerance=5))
    assert "passes any float of the expected value's sign" in wide


def test_a_tolerance_the_checker_never_uses_is_left_alone() -> None:
    task = _task("", float_tolerance=0.3, legacy_check="check.py")
    task = task.model_copy(update={"hidden": {"check.py": b"def check(candidate):\n    pass\n"}})
    assert [m for m in _warnings(task) if "float_tolerance" in m] == []


@pytest.mark.parametrize("tolerance", [1e-9, 1e-6, 1e-2])
def test_a_tolerance_for_rounding_is_normal(tolerance: float) -> None:
    assert _warnings(_task("", float_tolerance=tolerance)) == []
