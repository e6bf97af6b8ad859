"""``assay audit --since RUN`` where RUN audited another set of tasks."""

from __future__ import annotations

from datetime import UTC, datetime

from assay.audit.changes import change_lines, compare
from assay.audit.report import AuditReport, TaskAudit
from assay.findings import Decision


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
