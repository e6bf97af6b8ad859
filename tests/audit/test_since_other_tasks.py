"""``assay audit --since RUN`` where RUN audited another set of tasks."""

from __future__ import annotations

from datetime import UTC, datetime

from assay.audit.changes import change_lines, compare
from assay.audit.report import AuditReport, TaskAudit, path_free
from assay.findings import Decision, Finding, Severity


def _audit(task_id: str) -> TaskAudit:
    return TaskAudit(
        task_id=task_id, task_version="v1", path=f"tasks/{task_id}", decision=Decision.ACCEPTED
    )


def _report(*task_ids: str) -> AuditReport:
    now = datetime.now(UTC)
    tasks = tuple(_audit(task_id) for task_id in task_ids)
    return AuditReport(
        run_id="new", root="tasks", started_at=now, finished_at=now, checks=(), tasks=tasks
    )


def test_an_audit_of_other_tasks_is_said_to_share_none() -> None:
    lines = change_lines(compare("old", [_audit("a"), _audit("b")], _report("c")))
    assert lines[0] == "since audit old: 3 tasks changed, 0 unchanged"
    assert "no task was in both audits" in lines[1]
    assert "old" in lines[1]


def test_an_audit_of_the_same_tasks_says_nothing_of_the_kind() -> None:
    lines = change_lines(compare("old", [_audit("a"), _audit("b")], _report("a", "c")))
    assert not any("no task was in both" in line for line in lines)
    lines = change_lines(compare("old", [], _report("a")))
    assert not any("no task was in both" in line for line in lines)


def test_a_task_audited_as_its_own_directory_is_no_change() -> None:
    """``assay audit .`` inside the task, then ``assay audit tasks/t``: the directory ``.``
    (or ``t``) is taken out of the messages only where it names the directory, not from every
    dot or t of their words, so the same finding is the same."""
    message = "solutions/reference/solution.py reads the clock (line 2: time.localtime())"
    shown = Finding(check="lint", severity=Severity.WARNING, message=message, review=True)

    def at(path: str) -> TaskAudit:
        return TaskAudit(
            task_id="t",
            task_version="v1",
            path=path,
            decision=Decision.QUARANTINED,
            findings=(shown,),
        )

    for before, after in ((".", "tasks/t"), ("t", "/home/me/t"), ("tasks/t", ".")):
        changes = compare("old", [at(before)], _report().model_copy(update={"tasks": (at(after),)}))
        assert (changes.changes, changes.unchanged) == ((), 1), (before, after)


def test_the_directory_is_taken_out_where_it_names_the_task_or_its_files() -> None:
    assert path_free("t/task.toml: is not TOML", "t") == "<task>/task.toml: is not TOML"
    assert path_free("the t: it", "t") == "the <task>: it"
    assert path_free("at ./x and 0.5", ".") == "at <task>/x and 0.5"
    assert path_free("tasks/tt/task.toml", "tasks/t") == "tasks/tt/task.toml"
    assert path_free("my-t/x", "t") == "my-t/x"
