"""hidden/cases.json: versioned; a malformed one gets one line naming the file, field and fix."""

from __future__ import annotations

import json

import pytest

from assay.errors import TaskFormatError
from assay.families.code import CodeFamily
from assay.families.code.config import hidden_cases
from assay.tasks import Task
from tests.conftest import make_median_task


def _with_cases(data: object) -> Task:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    task = make_median_task()
    return task.model_copy(update={"hidden": {**task.hidden, "cases.json": raw}})


def _case(**fields: object) -> dict[str, object]:
    return {"id": "case-0", "args": [[1]], **fields}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"cases": [_case(expected=1), _case(id="b", args=[], expected=1), {"id": "c"}]},
            "median-1/hidden/cases.json: cases[2].args: required field is missing (add it)",
        ),
        (
            {"cases": [_case(expected=1), _case(id="b")]},
            "median-1/hidden/cases.json: cases[1]: the case has neither expected nor raises "
            "(correct the value)",
        ),
        (
            {"cases": [_case(expected=1, answer=2)]},
            "median-1/hidden/cases.json: cases[0].answer: unknown field "
            "(remove it (a case has id, args, expected or raises, weight, example))",
        ),
        (
            {"format": 2, "cases": [_case(raises="OopsError")]},
            "median-1/hidden/cases.json: cases[0].raises: 'OopsError' is not a builtin exception "
            "type such as ValueError (correct the value)",
        ),
        (
            {"format": 2, "cases": [_case(raises="ValueError|Oops")]},
            "median-1/hidden/cases.json: cases[0].raises: 'ValueError|Oops' is not a builtin "
            "exception type such as ValueError (correct the value)",
        ),
        (
            {"cases": [_case(raises="ValueError")]},
            'median-1/hidden/cases.json: (top level): raises needs "format": 2 (correct the value)',
        ),
        (
            {"format": 5, "cases": []},
            "median-1/hidden/cases.json: format: format 5 is newer than this assay reads (4) "
            "(upgrade assay)",
        ),
        (
            {"cases": [_case(expected=1), _case(expected=2)]},
            "median-1/hidden/cases.json: cases[1].id: case id 'case-0' repeats "
            "(give every case a unique id)",
        ),
        (
            b'{"cases": [{"id": "a", "args": [], "expected": NaN}]}',
            "median-1/hidden/cases.json: not plain JSON: NaN is not a number "
            "(correct the JSON or regenerate the task)",
        ),
        (
            b"\xff",
            "median-1/hidden/cases.json: not UTF-8 text (save it as UTF-8)",
        ),
    ],
)
def test_a_malformed_case_file_is_one_line_naming_file_field_and_fix(
    data: object, message: str
) -> None:
    with pytest.raises(TaskFormatError) as caught:
        hidden_cases(_with_cases(data))
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)
    findings = CodeFamily().lint(_with_cases(data))
    assert [f.message for f in findings] == [message]


def test_files_without_a_format_are_read_as_format_1() -> None:
    cases = hidden_cases(_with_cases({"cases": [_case(expected=None)]}))
    assert cases[0].expected is None
    assert cases[0].raises is None
    assert "expected" in cases[0].model_fields_set


def test_the_file_written_is_format_2_and_reads_back() -> None:
    task = make_median_task()
    data = json.loads(task.hidden["cases.json"])
    assert data["format"] == 2
    assert "raises" not in data["cases"][0]
    assert hidden_cases(_with_cases(data)) == hidden_cases(task)
    assert [c.expected for c in hidden_cases(task)] == [2, 2.5, None, 5, 7.5]
