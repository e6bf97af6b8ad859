"""hidden/rubric.toml: a malformed rubric is one line naming the file, the field and the fix."""

from __future__ import annotations

import pytest

from assay.errors import TaskFormatError
from assay.families.code import CodeFamily
from assay.families.code.rubric import JudgeCriterion, RuntimeCriterion, task_rubric
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from tests.conftest import REFERENCE, make_median_task

WHERE = "median-1/hidden/rubric.toml"


def with_rubric(text: str | bytes, task: Task | None = None) -> Task:
    task = task or make_median_task()
    raw = text.encode() if isinstance(text, str) else text
    return task.model_copy(update={"hidden": {**task.hidden, "rubric.toml": raw}})


JUDGE = '[[criteria]]\nname = "j"\nkind = "judge"\nmodel = "m"\nquestion = "q"\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("criteria = [", "not TOML: Invalid value (at end of document) (correct the TOML)"),
        (
            "x = " + "[" * 5000 + "]" * 5000,
            "nested too deeply to be read (keep tables a few levels deep)",
        ),
        (b"\xff", "not UTF-8 text (save it as UTF-8)"),
        ("format = 2", "format: format 2 is newer than this assay reads (1) (upgrade assay)"),
        ("formatt = 1", "formatt: unknown field (remove it)"),
        ("[correctness]\nweight = 0", "(top level): every weight is 0 (correct the value)"),
        (
            '[[criteria]]\nname = "x"\nkind = "speed"',
            "criteria[0].kind: unknown kind 'speed' (use kind = runtime, style or judge)",
        ),
        (
            '[[criteria]]\nname = "x"',
            "criteria[0].kind: required field is missing (use kind = runtime, style or judge)",
        ),
        (
            '[[criteria]]\nname = "x"\nkind = "judge"\nquestion = "q"',
            "criteria[0].model: required field is missing (add it)",
        ),
        (
            '[[criteria]]\nname = "Fast Code"\nkind = "runtime"',
            "criteria[0].name: 'Fast Code' is not allowed here "
            "(lowercase letters, digits, - and _, at most 64)",
        ),
        (
            '[[criteria]]\nname = "s"\nkind = "style"\nselect = ["e501"]',
            "criteria[0].select[0]: 'e501' is not allowed here "
            "(ruff rule codes or prefixes such as E501 or E)",
        ),
        (
            JUDGE + 'base_url = "file:///etc/passwd"',
            "criteria[0].base_url: 'file:///etc/passwd' is not allowed here "
            "(an http:// or https:// URL)",
        ),
        (
            '[[criteria]]\nname = "r"\nkind = "runtime"\nmax_ratio = 0.5',
            "criteria[0].max_ratio: Input should be greater than 1 (correct the value)",
        ),
        (
            JUDGE + JUDGE,
            "criteria[1].name: criterion name 'j' repeats or is reserved "
            "(give every criterion a unique name other than 'correctness')",
        ),
        (
            '[[criteria]]\nname = "correctness"\nkind = "style"',
            "criteria[0].name: criterion name 'correctness' repeats or is reserved "
            "(give every criterion a unique name other than 'correctness')",
        ),
    ],
)
def test_a_malformed_rubric_is_one_line_naming_file_field_and_fix(
    text: str | bytes, message: str
) -> None:
    task = with_rubric(text)
    with pytest.raises(TaskFormatError) as caught:
        task_rubric(task)
    assert str(caught.value) == f"{WHERE}: {message}"
    assert [f.message for f in CodeFamily().lint(task)] == [str(caught.value)]
    with pytest.raises(TaskFormatError):  # verify refuses it before running anything
        CodeFamily().verify(task, {"solution.py": REFERENCE}, LocalSandbox())


def test_a_runtime_criterion_needs_a_reference_to_time_against() -> None:
    task = make_median_task()
    task = task.model_copy(update={"solutions": {"bad-unsorted": task.solutions["bad-unsorted"]}})
    with pytest.raises(TaskFormatError) as caught:
        task_rubric(with_rubric('[[criteria]]\nname = "fast"\nkind = "runtime"', task))
    assert str(caught.value) == (
        f"{WHERE}: criteria[0].kind: a runtime criterion needs the task's reference solution to "
        "time against (add solutions/reference/ or drop the criterion)"
    )


def test_a_valid_rubric_reads_with_its_defaults_and_a_content_label() -> None:
    text = '[correctness]\nweight = 2\n[[criteria]]\nname = "fast"\nkind = "runtime"\n' + JUDGE
    read = task_rubric(with_rubric(text))
    assert read is not None
    rubric, label = read
    assert rubric.correctness.weight == 2
    runtime, judge = rubric.criteria
    assert isinstance(runtime, RuntimeCriterion)
    assert (runtime.rounds, runtime.max_ratio) == (3, 10.0)
    assert isinstance(judge, JudgeCriterion)
    assert (judge.scale, judge.pass_at, judge.max_chars) == (10, 0.5, 12_000)
    assert label.startswith("rubric@1:")
    other = task_rubric(with_rubric(text + "# changed\n"))
    assert other is not None
    assert other[1] != label
    assert task_rubric(make_median_task()) is None
