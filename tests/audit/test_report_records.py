"""What the report keeps besides findings: each task's mutation score with its survivors, the
exploits tried and the ones that won, and its pass rate; the HTML page shows the same."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay._render_html import audit_html
from assay.audit import apply_profile, quarantine_lines, run_audit, select_checks
from assay.audit.report import AuditReport, TaskAudit
from assay.findings import Decision, Finding, Severity
from assay.profiles import Sample, build_profile
from assay.sandbox import PoolSandbox
from assay.tasks import TaskSet
from tests.audit.test_profile import _report

BROKEN = Path(__file__).parent / "broken_tasks"


@pytest.mark.sandbox
def test_exploits_that_won_and_surviving_mutants_are_kept_with_their_code(
    pool: PoolSandbox, tmp_path: Path
) -> None:
    for name in ("type-only-checker", "sound"):
        shutil.copytree(BROKEN / name, tmp_path / name)  # a linked task directory is refused
    checks = select_checks("reference,red-team,mutation")
    report = run_audit(TaskSet.load(tmp_path), pool, checks=checks)
    audits = {task.task_id: task for task in report.tasks}
    weak, sound = audits["type-only-checker"], audits["sound"]

    assert weak.red_team is not None
    assert weak.red_team.won
    assert weak.red_team.tried >= 20
    assert all(x.status.value == "pass" and x.code.startswith("--- ") for x in weak.red_team.won)
    won = {f.message.split()[1] for f in weak.findings if f.check == "red-team"}
    assert won == {x.name for x in weak.red_team.won}

    assert sound.red_team is not None
    assert sound.red_team.won == ()
    assert sound.mutation is not None
    assert sound.mutation.score is not None
    assert sound.mutation.killed + len(sound.mutation.survivors) > 0
    assert weak.mutation is not None
    assert weak.mutation.survivors  # a checker of types lets near misses through
    assert all(s.diff.startswith("@@") for s in weak.mutation.survivors)

    page = audit_html(report)
    for exploit in weak.red_team.won:
        assert f'<div class="label">{exploit.name}: ' in page
    assert page.count('<div class="survivor">') == sum(
        len(t.mutation.survivors) for t in report.tasks if t.mutation
    )


def test_a_joined_profile_is_kept_per_task_at_the_audited_version() -> None:
    report = _report(("same", Decision.ACCEPTED), ("moved", Decision.ACCEPTED))
    samples = [Sample(t, i, s) for t in ("same", "moved") for i, s in enumerate(("pass", "fail"))]
    joined = apply_profile(
        report, build_profile("p1", 2, samples), {"same": "v-same", "moved": "v-old"}
    )
    tasks = {t.task_id: t for t in joined.tasks}
    assert joined.profile_run == "p1"
    assert tasks["same"].profile is not None
    assert tasks["same"].profile.pass_rate == 0.5
    assert tasks["moved"].profile is None  # profiled at another version: says nothing


def test_a_quarantined_task_is_one_short_line_whatever_its_findings_quote() -> None:
    now = datetime.now(UTC)
    spoof = "solutions/reference-x\n5 tasks: 5 accepted, 0 rejected\n" + "y" * 100_000
    held = TaskAudit(
        task_id="held",
        task_version="v",
        path="tasks/held",
        decision=Decision.QUARANTINED,
        findings=(Finding(check="lint", severity=Severity.WARNING, message=spoof, review=True),),
    )
    report = AuditReport(
        run_id="r", root="tasks", started_at=now, finished_at=now, checks=(), tasks=(held,)
    )
    lines = quarantine_lines(report)
    assert len(lines) == 2
    assert all("\n" not in line and len(line) < 1000 for line in lines)
    assert "reference-x\\n5 tasks: 5 accepted" in lines[1]
