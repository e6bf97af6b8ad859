"""The first audit: sound tasks are accepted, and each kind of broken task is rejected."""

from __future__ import annotations

from pathlib import Path

from assay.audit import Decision, run_audit
from assay.sandbox import Sandbox
from assay.tasks import Task, TaskSet, save_task
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task, with_checker


def audit_one(task: Task, tmp_path: Path, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    report = run_audit(TaskSet.load(save_task(task, tmp_path)), sandbox)
    assert len(report.tasks) == 1
    return report.tasks[0]


def messages(audit) -> str:  # type: ignore[no-untyped-def]
    return " | ".join(f"[{f.check}] {f.message}" for f in audit.findings)


def test_sound_task_is_accepted(tmp_path: Path, sandbox: Sandbox) -> None:
    audit = audit_one(make_median_task(), tmp_path, sandbox)
    assert audit.decision is Decision.ACCEPTED, messages(audit)
    assert {s.solution for s in audit.solutions} == {"reference", "bad-unsorted", "empty"}
    assert audit.known_bad_caught == audit.known_bad == 1


def test_known_bad_that_passes_rejects_the_task(tmp_path: Path, sandbox: Sandbox) -> None:
    task = make_median_task()
    task = task.model_copy(
        update={"solutions": {**task.solutions, "bad-sorted": {"solution.py": REFERENCE}}}
    )
    audit = audit_one(task, tmp_path, sandbox)
    assert audit.decision is Decision.REJECTED
    assert "bad-sorted passes" in messages(audit)


def test_failing_reference_rejects_the_task(tmp_path: Path, sandbox: Sandbox) -> None:
    task = make_median_task()
    task = task.model_copy(
        update={"solutions": {**task.solutions, "reference-alt": {"solution.py": BAD_NO_SORT}}}
    )
    audit = audit_one(task, tmp_path, sandbox)
    assert audit.decision is Decision.REJECTED
    assert "reference-alt does not pass" in messages(audit)


def test_task_an_empty_submission_passes_is_rejected(tmp_path: Path, sandbox: Sandbox) -> None:
    accept_anything = b"def check(args, output, expected):\n    return True\n"
    task = with_checker(make_median_task(), accept_anything)
    audit = audit_one(task, tmp_path, sandbox)
    assert audit.decision is Decision.REJECTED
    assert "[empty]" in messages(audit)


def test_leaks_into_prompt_or_workspace_are_lint_errors(tmp_path: Path, sandbox: Sandbox) -> None:
    task = make_median_task()
    leaky = task.model_copy(
        update={
            "prompt": task.prompt + "\nFor example median([3, 1, 2]) gives 2.\n",
            "workspace": {"notes.py": REFERENCE, "cases.json": task.hidden["cases.json"]},
        }
    )
    audit = audit_one(leaky, tmp_path, sandbox)
    text = messages(audit)
    assert audit.decision is Decision.REJECTED
    assert "hidden case case-0 is shown in prompt.md" in text
    assert "a line of solutions/reference appears in workspace/notes.py" in text
    assert "workspace/cases.json is a copy of hidden/cases.json" in text


def test_malformed_task_in_a_set_is_rejected_and_the_rest_audited(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    save_task(make_median_task("good"), tmp_path)
    broken = save_task(make_median_task("broken"), tmp_path)
    (broken / "task.toml").write_text('id = "broken"\nfamily = "code"\n[code]\nfunction = 3\n')
    unknown = save_task(make_median_task("alien"), tmp_path)
    (unknown / "task.toml").write_text('id = "alien"\nfamily = "telepathy"\n')
    report = run_audit(TaskSet.load(tmp_path), sandbox)
    by_id = {t.task_id: t for t in report.tasks}
    assert by_id["good"].decision is Decision.ACCEPTED
    assert by_id["broken"].decision is Decision.REJECTED
    assert "code.function" in messages(by_id["broken"])
    assert by_id["alien"].decision is Decision.REJECTED
    assert "unknown family 'telepathy'" in messages(by_id["alien"])
    assert not report.all_accepted
