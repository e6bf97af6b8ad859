"""A broken task is named once, at the path the user gave; infrastructure failing is an error."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import assay.families.code.family
import assay.families.code.judging
from assay.errors import SandboxError
from assay.families.code import CodeFamily
from assay.families.code.outputs import CaseOutputs
from assay.sandbox.batch import Run
from assay.tasks import save_task
from tests.cli.conftest import Invoke
from tests.conftest import REFERENCE, make_median_task

MALFORMED = [
    ('{"cases": [{"id": "a", "args": [[1]]}]}', "cases[0]", "neither expected nor raises"),
    ('{"cases": [{"id": "a", "args": 1, "expected": 1}]}', "cases[0].args", "valid list"),
    ('{"format": 2, "cases": []}', "cases", "at least 1 item"),
    ('{"cases": [{"id": "a", "args": [], "expected": 1, "x": 1}]}', "cases[0].x", "unknown field"),
    ("[1, 2", "", "not plain JSON"),
]


@pytest.fixture(params=MALFORMED, ids=["no-expected", "args", "empty", "extra", "syntax"])
def malformed(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """``tasks/`` with two sound tasks and ``tasks/broken`` whose case file is malformed."""
    text, field, problem = request.param
    for task_id in ("broken", "fine"):
        save_task(make_median_task(task_id), tmp_path / "tasks")
    (tmp_path / "tasks/broken/hidden/cases.json").write_text(text)
    (tmp_path / "attempt.py").write_bytes(REFERENCE)
    return field, problem


def test_verify_names_the_case_file_at_the_path_given_and_the_field(
    invoke: Invoke, malformed: tuple[str, str]
) -> None:
    field, problem = malformed
    result = invoke("verify", "tasks/broken", "--solution", "attempt.py")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1, result.stderr
    line = result.stderr
    assert line.startswith("error: tasks/broken/hidden/cases.json: "), line
    if field:
        assert f"cases.json: {field}: " in line
    assert problem in line


def test_audit_reports_a_malformed_case_file_once_and_runs_no_check_that_needs_it(
    invoke: Invoke, malformed: tuple[str, str], tmp_path: Path
) -> None:
    field, problem = malformed
    result = invoke("audit", "tasks", "--json", "report.json")
    assert result.exit_code == 1, result.output
    assert "2 tasks: 1 accepted, 1 rejected" in result.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    [broken] = [t for t in report["tasks"] if t["task_id"] == "broken"]
    assert broken["decision"] == "rejected"
    [finding] = broken["findings"]
    assert finding["message"].startswith("tasks/broken/hidden/cases.json: "), finding
    if field:
        assert f"cases.json: {field}: " in finding["message"]
    assert problem in finding["message"]
    assert broken["solutions"] == []
    assert "cannot verify" not in result.stdout


def test_a_sandbox_failure_in_an_audit_is_an_error_not_a_rejection(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unlucky = make_median_task("unlucky")
    marked = {"solution.py": REFERENCE + b"# the worker running this dies\n"}
    unlucky = unlucky.model_copy(update={"solutions": {**unlucky.solutions, "reference": marked}})
    save_task(unlucky, tmp_path / "tasks")
    save_task(make_median_task("lucky"), tmp_path / "tasks")
    run_cases = assay.families.code.family.run_cases

    def dies(*args: object, **kwargs: object) -> CaseOutputs:
        solution = kwargs["solution"]
        assert isinstance(solution, dict)
        if b"worker running this dies" in solution["solution.py"]:
            raise SandboxError("the worker died")
        return run_cases(*args, **kwargs)  # type: ignore[arg-type]

    run_many = assay.families.code.family.run_many

    def batch_dies(
        sandbox: object, command: object, runs: Sequence[Run], **kwargs: object
    ) -> object:
        if any(b"worker running this dies" in run.files.get("solution.py", b"") for run in runs):
            raise SandboxError("the worker died")
        return run_many(sandbox, command, runs, **kwargs)  # type: ignore[arg-type]

    # The worker dies under the marked solution alone, and under any batch that holds it.
    monkeypatch.setattr(assay.families.code.family, "run_cases", dies)
    monkeypatch.setattr(assay.families.code.family, "run_many", batch_dies)
    result = invoke("audit", "tasks", "--json", "report.json")
    assert result.exit_code == 3, result.output
    assert "2 tasks: 1 accepted, 0 rejected, 1 could not be audited (error)" in result.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    decisions = {t["task_id"]: t["decision"] for t in report["tasks"]}
    assert decisions == {"lucky": "accepted", "unlucky": "error"}
    [task] = [t for t in report["tasks"] if t["task_id"] == "unlucky"]
    [problem] = [f for f in task["findings"] if f["severity"] != "info"]  # a note may come too
    assert problem["severity"] == "error", task["findings"]
    assert "the worker died" in problem["evidence"]
    assert {s["solution"]: s["status"] for s in task["solutions"]}["reference"] == "error"
    [run] = json.loads(invoke("runs", "--json").stdout)
    assert (run["tasks"], run["accepted"], run["rejected"]) == (2, 1, 0)


def test_a_task_that_is_wrong_and_could_not_be_checked_whole_is_rejected(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = make_median_task("wrong")
    solutions = {**task.solutions, "bad-unsorted": task.solutions["reference"]}
    save_task(task.model_copy(update={"solutions": solutions}), tmp_path / "tasks")
    run_cases = assay.families.code.family.run_cases

    def dies_on_empty(*args: object, **kwargs: object) -> CaseOutputs:
        solution = kwargs["solution"]
        assert isinstance(solution, dict)
        if solution == CodeFamily().empty_solution(task):
            raise SandboxError("the worker died")
        return run_cases(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(assay.families.code.family, "run_cases", dies_on_empty)
    result = invoke("audit", "tasks", "--json", "report.json")
    assert result.exit_code == 1, result.output
    [audit] = json.loads((tmp_path / "report.json").read_text())["tasks"]
    assert audit["decision"] == "rejected"
    # the verdict that could not be had is filed under the check that asked for it
    assert {f["check"] for f in audit["findings"]} == {"known-bad", "empty"}
    [unverified] = [f for f in audit["findings"] if f["check"] == "empty"]
    assert "the worker died" in json.dumps(unverified)


def test_a_task_file_that_cannot_be_read_rejects_that_task_only(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for task_id in ("unreadable", "fine"):
        save_task(make_median_task(task_id), tmp_path / "tasks")
    real_open = os.open

    def failing(path: str | Path, flags: int, *args: Any, **kwargs: Any) -> int:
        where = Path(path) if isinstance(path, str | Path) else Path()
        if where.name == "cases.json" and where.parent.parent.name == "unreadable":
            raise OSError(errno.EIO, "Input/output error", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing)
    result = invoke("audit", "tasks", "--json", "report.json")
    assert result.exit_code == 1, result.output
    assert "2 tasks: 1 accepted, 1 rejected" in result.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    [task] = [t for t in report["tasks"] if t["decision"] == "rejected"]
    assert task["findings"][0]["message"] == (
        "tasks/unreadable/hidden/cases.json: cannot be read: Input/output error "
        "(check the file and its permissions)"
    )
    result = invoke("verify", "tasks/unreadable", "--solution", "tasks/fine/solutions/reference")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: tasks/unreadable/hidden/cases.json: cannot be read")


def test_a_surprise_while_judging_a_candidates_output_fails_it(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_task(make_median_task(), tmp_path / "tasks")
    (tmp_path / "odd.py").write_bytes(b"def median(values):\n    return [[[['odd']]]]\n")
    first_difference = assay.families.code.judging.first_difference

    def fragile(expected: object, actual: object, **options: object) -> str | None:
        if actual == [[[["odd"]]]]:
            raise RecursionError("maximum recursion depth exceeded in comparison")
        return first_difference(expected, actual, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(assay.families.code.judging, "first_difference", fragile)
    result = invoke("verify", "tasks/median-1", "--solution", "odd.py", "--json")
    assert result.exit_code == 1, result.output
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "fail"
    assert verdict["criteria"][0]["evidence"] == (
        "the output could not be judged: RecursionError: maximum recursion depth exceeded "
        "in comparison"
    )
    result = invoke("verify", "tasks/median-1", "--solution", "tasks/median-1/solutions/reference")
    assert result.exit_code == 0, result.output
