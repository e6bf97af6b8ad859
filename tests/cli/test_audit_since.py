"""``assay audit --since RUN``: what changed since an earlier audit, task by task."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit.changes import change_lines, compare
from assay.audit.report import AuditReport, TaskAudit
from assay.findings import Decision, Finding, Severity
from tests.conftest import REFERENCE

Run = Callable[..., Result]


def audited(task_id: str, decision: Decision, *findings: Finding, version: str = "v1") -> TaskAudit:
    return TaskAudit(
        task_id=task_id, task_version=version, path=task_id, decision=decision, findings=findings
    )


def report(*tasks: TaskAudit) -> AuditReport:
    now = datetime.now(UTC)
    return AuditReport(
        run_id="after", root=".", started_at=now, finished_at=now, checks=("lint",), tasks=tasks
    )


def test_the_same_directory_spelt_another_way_is_no_change() -> None:
    def at(path: str) -> TaskAudit:
        broken = Finding(
            check="lint", severity=Severity.ERROR, message=f"{path}/task.toml: is not TOML"
        )
        return TaskAudit(
            task_id="t",
            task_version="",
            path=path,
            decision=Decision.REJECTED,
            findings=(broken,),
        )

    changes = compare("before", [at("tasks/t")], report(at("/home/me/tasks/t")))
    assert (changes.changes, changes.unchanged) == ((), 1)


def test_decisions_versions_and_findings_are_compared_and_notes_are_not() -> None:
    passing = Finding(check="known-bad", severity=Severity.ERROR, message="bad-x passes")
    note = Finding(check="mutation", severity=Severity.INFO, message="3 of 4 mutants fail")
    before = [
        audited("same", Decision.ACCEPTED, note),
        audited("fixed", Decision.REJECTED, passing),
        audited("gone", Decision.ACCEPTED),
        audited("edited", Decision.ACCEPTED),
    ]
    after = report(
        audited("same", Decision.ACCEPTED),  # only a note went away: unchanged
        audited("fixed", Decision.ACCEPTED),
        audited("edited", Decision.ACCEPTED, version="v2"),
        audited("new", Decision.QUARANTINED),
    )
    changes = compare("before", before, after)
    assert changes.unchanged == 1
    assert [(c.task_id, c.before, c.after) for c in changes.changes] == [
        ("edited", Decision.ACCEPTED, Decision.ACCEPTED),
        ("fixed", Decision.REJECTED, Decision.ACCEPTED),
        ("gone", Decision.ACCEPTED, None),
        ("new", None, Decision.QUARANTINED),
    ]
    assert change_lines(changes) == [
        "since audit before: 4 tasks changed, 1 unchanged",
        "  edited: accepted -> accepted (new version)",
        "  fixed: rejected -> accepted",
        "    - [known-bad] bad-x passes",
        "  gone: accepted -> gone",
        "  new: new -> quarantined",
    ]


@pytest.mark.sandbox
def test_the_command_shows_what_changed_since_a_stored_audit(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    first_report = tmp_path / "first.json"
    first = run_cli("audit", str(median_dir.parent), "--json", str(first_report))
    assert first.exit_code == 0, first.output
    run_id = json.loads(first_report.read_text())["run_id"]
    (median_dir / "solutions/bad-unsorted/solution.py").write_bytes(REFERENCE)
    shutil.copytree(median_dir, median_dir.parent / "copy")
    (median_dir.parent / "copy/task.toml").write_text(
        (median_dir / "task.toml").read_text().replace('id = "median-1"', 'id = "copy"')
    )
    second = run_cli("audit", str(median_dir.parent), "--since", run_id, "--checks", "known-bad")
    assert second.exit_code == 1
    lines = second.output.splitlines()
    start = lines.index(f"since audit {run_id}: 2 tasks changed, 0 unchanged")
    assert lines[start + 1 :] == [
        "  copy: new -> rejected",
        "    + [known-bad] bad-unsorted passes: the verifier does not catch this mistake",
        "  median-1: accepted -> rejected (new version)",
        "    + [known-bad] bad-unsorted passes: the verifier does not catch this mistake",
    ]


def test_an_unknown_run_is_one_line_before_auditing(run_cli: Run, median_dir: Path) -> None:
    result = run_cli("audit", str(median_dir.parent), "--since", "nope")
    assert result.exit_code == 2
    assert "--since: no audit run named 'nope' in this store" in result.output
    assert "auditing" not in result.output


def test_findings_of_checks_not_run_again_are_set_apart_not_gone() -> None:
    """A full audit, then ``--checks lint --since``: the reference's failure was not looked at
    again, so it did not go away."""
    failing = Finding(check="reference", severity=Severity.ERROR, message="reference fails")
    linted = Finding(check="lint", severity=Severity.WARNING, message="prompt is short")
    before = [audited("t", Decision.REJECTED, failing, linted)]
    after = report(audited("t", Decision.ACCEPTED))
    changes = compare("before", before, after, ("lint", "reference", "known-bad"))
    assert change_lines(changes) == [
        "since audit before: 1 tasks changed, 0 unchanged",
        "  t: rejected -> accepted",
        "    - [lint] prompt is short",
        "    ? [reference] reference fails (not run this time)",
    ]
    # the same decision, and only a check not run differs: no change
    alone = [audited("t", Decision.REJECTED, failing)]
    same = compare("before", alone, report(audited("t", Decision.REJECTED)), ("reference",))
    assert (same.changes, same.unchanged) == ((), 1)
