"""Static checks of repo tasks: sound tasks are clean, each defect is named."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from assay.errors import TaskFormatError
from assay.families.repo import RepoFamily
from assay.families.repo.cases import repo_cases
from assay.tasks import Task
from assay.tasks.spec import TaskSpec

FAMILY = RepoFamily()


def _with_cases(task: Task, edit: dict[str, object]) -> Task:
    data = json.loads(task.hidden["cases.json"])
    data.update(edit)
    return task.model_copy(update={"hidden": {"cases.json": json.dumps(data).encode()}})


def test_generated_tasks_are_clean(generated: list[Task], sorted_leftovers: Task) -> None:
    for task in [*generated, sorted_leftovers]:
        assert FAMILY.lint(task) == [], task.id


def test_each_defect_is_one_finding(decimal_comma: Task) -> None:
    cases = json.loads(decimal_comma.hidden["cases.json"])["cases"]
    only_p2p = _with_cases(
        decimal_comma, {"cases": [c for c in cases if c["kind"] != "fail-to-pass"]}
    )
    assert ["no fail-to-pass case" in f.message for f in FAMILY.lint(only_p2p)] == [True]
    shadowing = decimal_comma.model_copy(
        update={"workspace": {**decimal_comma.workspace, "json.py": b"x = 1\n"}}
    )
    assert any("standard library" in f.message for f in FAMILY.lint(shadowing))
    unread = _with_cases(decimal_comma, {"readings": ["by-amount"]})
    assert any("reference-by-amount" in f.message for f in FAMILY.lint(unread))
    broken = decimal_comma.model_copy(update={"hidden": {"cases.json": b'{"cases": []}'}})
    [finding] = FAMILY.lint(broken)
    assert "cases.json" in finding.message
    moved = {k: v for k, v in decimal_comma.solutions["reference"].items() if k != "rota/export.py"}
    lost = decimal_comma.model_copy(
        update={"solutions": {**decimal_comma.solutions, "reference": moved}}
    )
    assert any("has no module rota.export" in f.message for f in FAMILY.lint(lost))


def test_the_hidden_cases_copied_into_the_workspace_are_named(decimal_comma: Task) -> None:
    cases = decimal_comma.hidden["cases.json"]
    for copied in (cases, json.dumps(json.loads(cases), separators=(",", ":")).encode()):
        leaky = decimal_comma.model_copy(
            update={"workspace": {**decimal_comma.workspace, "tests/fixtures/c.json": copied}}
        )
        assert [f.message for f in FAMILY.lint(leaky)] == [
            "workspace/tests/fixtures/c.json is a copy of hidden/cases.json"
        ]


def _task_with(case: dict[str, object], readings: list[str]) -> Task:
    cases = {"readings": readings, "cases": [{"id": "f2p-01", "kind": "fail-to-pass", **case}]}
    return Task(
        spec=TaskSpec(id="repo-x", family="repo"),
        prompt="Fix it.\n",
        workspace={"pkg/__init__.py": b"", "pkg/cli.py": b"def main(argv):\n    return 0\n"},
        hidden={"cases.json": json.dumps(cases).encode()},
    )


CLI_CASE = {"cli": "pkg.cli:main", "argv": ["in.csv"], "expect": {"value": None}}


@pytest.mark.parametrize("name", ["../../outside.csv", "/etc/cron.d/x", "", "a//b", "./in.csv"])
def test_an_input_file_written_outside_its_case_is_named(name: str) -> None:
    """The reference would fail the case with no word of why; the file is named instead."""
    task = _task_with({**CLI_CASE, "files": {name: "x"}}, [])
    [finding] = FAMILY.lint(task)
    assert "cases.0.files" in finding.message
    assert "not a plain path relative to the case's directory" in finding.message
    with pytest.raises(TaskFormatError, match=r"hidden/cases\.json: cases\.0\.files"):
        repo_cases(task)


def test_input_files_with_spaces_dots_and_directories_are_plain() -> None:
    files = {"my data.csv": "x", ".env": "y", "logs/app.log.1": "z"}
    case_file = repo_cases(_task_with({**CLI_CASE, "files": files}, []))
    assert case_file.cases[0].files == files


def test_a_reading_the_file_does_not_list_is_named() -> None:
    """It would never be judged: a submission of that reading would fail with no word of why."""
    case = {**CLI_CASE, "readings": {"by-amount": {"value": 1}}}
    [finding] = FAMILY.lint(_task_with(case, []))
    assert "case f2p-01 gives the reading 'by-amount', which readings does not list" in (
        finding.message
    )
    assert repo_cases(_task_with(case, ["by-amount"])).readings == ["by-amount"]


def _nan_expected(text: str) -> str:
    data = json.loads(text)
    data["cases"][0]["expect"] = {"value": float("nan")}
    return json.dumps(data)


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        # expect given twice: a reader sees the first, the verifier judged by the last
        (lambda text: text.replace('"expect": {', '"expect": {"value": 0}, "expect": {', 1), "key"),
        (_nan_expected, "NaN"),
    ],
)
def test_a_case_file_that_is_not_plain_json_is_one_line_naming_it(
    decimal_comma: Task, edit: Callable[[str], str], named: str
) -> None:
    """The hidden cases are read as the code family's are: an object repeating a key was taken
    with its last value (a case's expected outcome could be shown one way and judged another),
    NaN and integers past Python's text limit too."""
    text = decimal_comma.hidden["cases.json"].decode()
    edited = edit(text)
    assert edited != text
    task = decimal_comma.model_copy(update={"hidden": {"cases.json": edited.encode()}})
    [finding] = FAMILY.lint(task)
    assert "hidden/cases.json: not plain JSON: " in finding.message
    assert named in finding.message
    assert "\n" not in finding.message
    with pytest.raises(TaskFormatError, match="not plain JSON"):
        repo_cases(task)
