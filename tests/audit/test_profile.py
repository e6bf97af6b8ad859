"""A stored pass-rate profile in the audit: 0% quarantines, 100% notes, another version nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay.audit import LintCheck, run_audit_into
from assay.audit.profile import apply_profile
from assay.audit.report import AuditReport, TaskAudit, summary_line
from assay.errors import InputError
from assay.families import family_of, version_label
from assay.findings import Decision, Severity
from assay.profiles import Profile, RunProfile, Sample, build_profile
from assay.sandbox import LocalSandbox
from assay.store import Store
from assay.tasks import TaskSet, save_task
from tests.conftest import make_median_task


def _report(*decisions: tuple[str, Decision]) -> AuditReport:
    now = datetime.now(UTC)
    tasks = tuple(
        TaskAudit(task_id=task, task_version=f"v-{task}", path=f"tasks/{task}", decision=decision)
        for task, decision in decisions
    )
    return AuditReport(
        run_id="a1", root="tasks", started_at=now, finished_at=now, checks=("lint",), tasks=tasks
    )


def _profile(**statuses: str) -> Profile:
    samples = [
        Sample(task.replace("_", "-"), i, {"p": "pass", "f": "fail", "e": "error"}[s])
        for task, row in statuses.items()
        for i, s in enumerate(row)
    ]
    return build_profile("p1", 4, samples)


def test_a_task_no_sample_solved_is_quarantined_not_accepted() -> None:
    report = _report(
        ("never", Decision.ACCEPTED),
        ("always", Decision.ACCEPTED),
        ("sometimes", Decision.ACCEPTED),
        ("broken", Decision.REJECTED),
    )
    profile = _profile(never="ffef", always="pppp", sometimes="pfpf", broken="ffff")
    versions = {task.task_id: task.task_version for task in report.tasks}
    held = apply_profile(report, profile, versions)
    decisions = {task.task_id: task.decision for task in held.tasks}
    assert decisions == {
        "never": Decision.QUARANTINED,
        "always": Decision.ACCEPTED,
        "sometimes": Decision.ACCEPTED,
        "broken": Decision.REJECTED,  # a rejected task stays rejected
    }
    never = next(t for t in held.tasks if t.task_id == "never")
    (finding,) = never.findings
    assert finding.severity is Severity.WARNING
    assert "no sample passed (run p1, k=4)" in finding.message
    assert finding.evidence == "0 of 3 scored samples passed (1 errors left out)"
    always = next(t for t in held.tasks if t.task_id == "always")
    assert "too easy" in always.findings[0].message
    assert not held.all_accepted
    assert "1 quarantined for review" in summary_line(held)
    assert held.checks == ("lint", "profile")


def test_a_profile_of_another_version_quarantines_nothing() -> None:
    report = _report(("never", Decision.ACCEPTED))
    held = apply_profile(report, _profile(never="ffff"), {"never": "v-older"})
    (task,) = held.tasks
    assert task.decision is Decision.ACCEPTED
    assert "another version" in task.findings[0].message


def test_tasks_the_profile_does_not_cover_are_left_alone() -> None:
    report = _report(("unprofiled", Decision.ACCEPTED))
    held = apply_profile(report, _profile(other="ffff"), {"other": "v-other"})
    assert held.tasks == report.tasks


def test_a_profile_of_none_of_the_tasks_is_refused_before_the_audit(tmp_path: Path) -> None:
    """Another set's profile would hold no task for review and say nothing: the 0% gate would
    be off without a word."""
    save_task(make_median_task("b"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    other = RunProfile(profile=_profile(a="ffff"), versions={"a": "v-a"})
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError) as caught:
            run_audit_into(store, taskset, LocalSandbox(), checks=[LintCheck()], profile=other)
        assert store.audit_runs() == []
    message = str(caught.value)
    assert message.startswith("--profile: rollout run 'p1' profiled none of the 1 tasks in ")
    assert "\n" not in message
    [task] = taskset.tasks
    version = task.content_version(version_label(family_of(task, tmp_path / "set" / "b")))
    same = RunProfile(profile=_profile(b="ffff"), versions={"b": version})
    with Store(tmp_path / "s.db") as store:
        report = run_audit_into(store, taskset, LocalSandbox(), checks=[LintCheck()], profile=same)
    assert [t.decision for t in report.tasks] == [Decision.QUARANTINED]
