"""A set check's findings move a task's decision as a per-task check's do: an error rejects, a
finding that needs a person quarantines, and a warning that asks for no person holds nothing (a
task held by it could never be cleared: a clearance names the findings that need a person). And
a frozen task is held out whatever its own audit found: a copy of it is a copy."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from assay.audit import apply_clearances, clearance_for, run_audit, select_checks
from assay.findings import Decision, Finding, Severity
from assay.sandbox import LocalSandbox
from assay.tasks import Split, Task, TaskSet, save_task
from tests.conftest import make_median_task


class Saying:
    """A set check (a plugin's, say) that makes one finding on task ``a``."""

    name = "saying"

    def __init__(self, finding: Finding) -> None:
        self.finding = finding

    def run_set(self, tasks: Sequence[Task]) -> dict[str, list[Finding]]:
        return {"a": [self.finding]}


def _audit(tmp_path: Path, finding: Finding) -> Decision:
    for task_id in ("a", "b"):
        save_task(make_median_task(task_id), tmp_path / "set")
    report = run_audit(TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=[Saying(finding)])
    decisions = {t.task_id: t.decision for t in report.tasks}
    assert decisions["b"] is Decision.ACCEPTED
    return decisions["a"]


def test_a_set_checks_warning_that_asks_for_no_person_leaves_the_task_accepted(
    tmp_path: Path,
) -> None:
    plain = Finding(check="saying", severity=Severity.WARNING, message="slightly odd")
    assert _audit(tmp_path, plain) is Decision.ACCEPTED


def test_a_set_checks_finding_that_needs_a_person_quarantines_and_can_be_cleared(
    tmp_path: Path,
) -> None:
    held = Finding(check="saying", severity=Severity.INFO, message="look at it", review=True)
    for task_id in ("a", "b"):
        save_task(make_median_task(task_id), tmp_path / "set")
    report = run_audit(TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=[Saying(held)])
    [audited] = [t for t in report.tasks if t.task_id == "a"]
    assert audited.decision is Decision.QUARANTINED
    cleared = clearance_for(audited, report.run_id, by="ana", reason="fine", at=datetime.now(UTC))
    again = apply_clearances(report, [cleared])
    assert {t.task_id: t.decision for t in again.tasks}["a"] is Decision.ACCEPTED


def test_a_set_checks_error_rejects(tmp_path: Path) -> None:
    wrong = Finding(check="saying", severity=Severity.ERROR, message="broken")
    assert _audit(tmp_path, wrong) is Decision.REJECTED


def test_a_copy_of_a_frozen_task_the_audit_rejected_is_still_a_copy(tmp_path: Path) -> None:
    """A frozen task rejected today (no reference yet, a reference that fails) is fixed and
    evaluated on tomorrow: its copy in train leaks it whatever the original's own audit found.
    The rejected original gets no finding of the set checks."""
    held = make_median_task("held", split=Split.FROZEN)
    held = held.model_copy(update={"solutions": {"bad-unsorted": held.solutions["bad-unsorted"]}})
    leak = make_median_task("leak")
    leak = leak.model_copy(update={"prompt": held.prompt.replace("Write", "Please write")})
    for made in (held, leak):
        save_task(made, tmp_path / "set")
    checks = select_checks("lint,contamination,duplicates")
    report = run_audit(TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=checks)
    tasks = {t.task_id: t for t in report.tasks}
    assert tasks["held"].decision is Decision.REJECTED
    assert {f.check for f in tasks["held"].findings} == {"lint"}
    assert tasks["leak"].decision is Decision.REJECTED
    [copied] = [f for f in tasks["leak"].findings if f.check == "contamination"]
    assert copied.message.startswith("copies frozen task held (")
