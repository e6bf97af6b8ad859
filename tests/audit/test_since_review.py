"""``assay audit --since RUN`` lists the finding that moved a decision: an info finding notes and
is left out, but one that needs a person (a check's ``review``) quarantines, and is listed."""

from __future__ import annotations

from datetime import UTC, datetime

from assay.audit.changes import change_lines, compare
from assay.audit.report import AuditReport, TaskAudit
from assay.findings import Decision, Finding, Severity

HOLDS = Finding(check="style", severity=Severity.INFO, message="read the prompt", review=True)
NOTES = Finding(check="style", severity=Severity.INFO, message="a long prompt")


def _audit(decision: Decision, *findings: Finding) -> TaskAudit:
    return TaskAudit(
        task_id="t", task_version="v1", path="tasks/t", decision=decision, findings=findings
    )


def _report(audited: TaskAudit) -> AuditReport:
    now = datetime.now(UTC)
    return AuditReport(
        run_id="new", root="tasks", started_at=now, finished_at=now, checks=(), tasks=(audited,)
    )


def test_an_info_finding_that_quarantines_is_listed_and_a_note_is_not() -> None:
    before = [_audit(Decision.ACCEPTED, NOTES)]
    after = _report(_audit(Decision.QUARANTINED, HOLDS))
    lines = change_lines(compare("old", before, after))
    assert lines == [
        "since audit old: 1 tasks changed, 0 unchanged",
        "  t: accepted -> quarantined",
        "    + [style] read the prompt",
    ]
    back = change_lines(compare("new", after.tasks, _report(_audit(Decision.ACCEPTED))))
    assert back[1:] == ["  t: quarantined -> accepted", "    - [style] read the prompt"]
    same = compare("old", [_audit(Decision.ACCEPTED)], _report(_audit(Decision.ACCEPTED, NOTES)))
    assert same.changes == ()
