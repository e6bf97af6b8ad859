"""``assay audit --since RUN`` after an audit whose verifier failed on a solution: the finding
that says so is the check's that asked, so that a later audit that does not run that check sets
it apart as not run, rather than telling a person the problem went away."""

from __future__ import annotations

from pathlib import Path

from assay.audit import AuditContext, CheckOutcome, LintCheck, SolutionVerdict, run_audit
from assay.audit.changes import change_lines, compare
from assay.audit.runner import default_checks
from assay.errors import ContainerRequiredError, InputError, SandboxError
from assay.findings import Decision, Finding, Severity
from assay.sandbox import LocalSandbox
from assay.tasks import Task, TaskSet, save_task
from assay.verdicts import Status, Timings, Verdict, Versions
from tests.conftest import make_median_task


class FailingReference:
    """The reference check on a sandbox that fails: its verdict is an ``error``."""

    name = "reference"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        verdict = Verdict(
            task_id=task.id,
            status=Status.ERROR,
            score=0.0,
            summary="the sandbox failed",
            timings=Timings(wall_s=0.01),
            versions=Versions(task="1", family="code@1", assay="0"),
        )
        return CheckOutcome(verdicts=[SolutionVerdict("reference", verdict)])


def test_an_unverified_reference_is_not_run_when_the_reference_check_is_left_out(
    tmp_path: Path,
) -> None:
    save_task(make_median_task("t"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    before = run_audit(taskset, LocalSandbox(), checks=[LintCheck(), FailingReference()])
    [audited] = before.tasks
    assert audited.decision is Decision.ERROR
    [unverified] = audited.findings
    assert unverified.check == "reference"
    assert unverified.message.startswith("reference could not be verified")
    after = run_audit(taskset, LocalSandbox(), checks=[LintCheck()])
    known = [check.name for check in default_checks()]
    lines = change_lines(compare(before.run_id, before.tasks, after, known))
    assert "  t: error -> accepted" in lines
    assert any(
        line.startswith("    ? [reference] reference could not be verified") for line in lines
    )
    assert not any(line.startswith("    - ") for line in lines)


class ForgingLint:
    """A check whose finding quotes text with line breaks in it, as a verifier's message can."""

    name = "lint"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        message = "verifier said: ok\n    - [reference] reference fails\r\n  other: error -> ok"
        return CheckOutcome(
            findings=[Finding(check="lint", severity=Severity.ERROR, message=message)]
        )


def test_a_finding_with_line_breaks_prints_as_one_line_of_the_comparison(
    tmp_path: Path,
) -> None:
    save_task(make_median_task("t"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    before = run_audit(taskset, LocalSandbox(), checks=[LintCheck()])
    after = run_audit(taskset, LocalSandbox(), checks=[ForgingLint()])
    lines = change_lines(compare(before.run_id, before.tasks, after, ["lint"]))
    assert lines[1:] == [
        "  t: accepted -> rejected",
        "    + [lint] verifier said: ok\\n    - [reference] reference fails\\r\\n"
        "  other: error -> ok",
    ]
    assert not any("\n" in line or "\r" in line for line in lines)


class DownReference:
    """The reference check on a sandbox that is down: the checks after it are not run."""

    name = "reference"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        raise SandboxError("the sandbox is down")


class PassingKnownBad:
    """The known-bad check finding a known-bad solution that passes."""

    name = "known-bad"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        found = Finding(check=self.name, severity=Severity.ERROR, message="bad-unsorted passes")
        return CheckOutcome(findings=[found])


def test_a_defect_an_unfinished_audit_did_not_look_for_again_is_not_said_to_be_gone(
    tmp_path: Path,
) -> None:
    save_task(make_median_task("t"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    before = run_audit(taskset, LocalSandbox(), checks=[LintCheck(), PassingKnownBad()])
    checks = [LintCheck(), DownReference(), PassingKnownBad()]
    after = run_audit(taskset, LocalSandbox(), checks=checks)
    assert after.tasks[0].decision is Decision.ERROR
    known = [check.name for check in default_checks()]
    lines = change_lines(compare(before.run_id, before.tasks, after, known))
    assert lines[1] == "  t: rejected -> error"
    assert lines[2].startswith("    + [reference] could not run")
    assert lines[3:] == [
        "    ? [known-bad] bad-unsorted passes (not confirmed: this audit could not finish the "
        "task)"
    ]


class UnreadableReference:
    """The reference check finding the task unreadable: the checks after it are not run."""

    name = "reference"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        raise InputError("the reference is not UTF-8", path=f"{task.id}/solutions/reference")


class NeedsAContainer:
    """The reference check on a task only a container backend can run."""

    name = "reference"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        raise ContainerRequiredError("the task's environment is a Dockerfile")


def test_a_defect_the_checks_stopped_before_is_not_said_to_be_gone(tmp_path: Path) -> None:
    """A later audit that found the task unreadable, or needing a container, at a check before
    the known-bad one never looked for the passing known-bad solution again: it used to say
    the defect went away (the report had no record of which checks ran; format 4 has)."""
    save_task(make_median_task("t"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    before = run_audit(taskset, LocalSandbox(), checks=[LintCheck(), PassingKnownBad()])
    known = [check.name for check in default_checks()]
    for stopper, after_decision in (
        (UnreadableReference(), "rejected"),
        (NeedsAContainer(), "quarantined"),
    ):
        after = run_audit(taskset, LocalSandbox(), checks=[LintCheck(), stopper, PassingKnownBad()])
        [audited] = after.tasks
        assert audited.checks_run == ("lint",)
        lines = change_lines(compare(before.run_id, before.tasks, after, known))
        assert lines[1] == f"  t: rejected -> {after_decision}", lines
        assert "    ? [known-bad] bad-unsorted passes (not run this time)" in lines, lines
        assert not any(line.startswith("    - ") for line in lines), lines


def test_a_task_that_no_longer_loads_went_nowhere(tmp_path: Path) -> None:
    save_task(make_median_task("t"), tmp_path / "set")
    before = run_audit(
        TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=[LintCheck(), PassingKnownBad()]
    )
    (tmp_path / "set" / "t" / "task.toml").write_text("id = [\n")
    after = run_audit(
        TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=[LintCheck(), PassingKnownBad()]
    )
    [audited] = after.tasks
    assert audited.checks_run == ()
    lines = change_lines(compare(before.run_id, before.tasks, after, ["lint", "known-bad"]))
    assert "    ? [known-bad] bad-unsorted passes (not run this time)" in lines, lines
    assert not any(line.startswith("    - ") for line in lines), lines


def test_a_finding_of_a_check_that_ran_to_its_end_does_go_away(tmp_path: Path) -> None:
    save_task(make_median_task("t"), tmp_path / "set")
    taskset = TaskSet.load(tmp_path / "set")
    before = run_audit(taskset, LocalSandbox(), checks=[LintCheck(), PassingKnownBad()])
    after = run_audit(taskset, LocalSandbox(), checks=[LintCheck(), QuietKnownBad()])
    assert after.tasks[0].checks_run == ("lint", "known-bad")
    lines = change_lines(compare(before.run_id, before.tasks, after, ["lint", "known-bad"]))
    assert lines[1:] == ["  t: rejected -> accepted", "    - [known-bad] bad-unsorted passes"]


class QuietKnownBad:
    """The known-bad check finding nothing: every known-bad solution failed."""

    name = "known-bad"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        return CheckOutcome()


def test_a_stop_found_again_is_not_set_apart(tmp_path: Path) -> None:
    """The reference check found the task unreadable in both audits (a new version between):
    its finding was found again, so it is neither gone nor "not run this time"."""
    save_task(make_median_task("t"), tmp_path / "set")
    checks = [LintCheck(), UnreadableReference(), PassingKnownBad()]
    before = run_audit(TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=checks)
    prompt = tmp_path / "set" / "t" / "prompt.md"
    prompt.write_text(prompt.read_text() + "\nReturn a float.\n")
    after = run_audit(TaskSet.load(tmp_path / "set"), LocalSandbox(), checks=checks)
    changes = compare(before.run_id, before.tasks, after, ["lint", "reference", "known-bad"])
    [change] = changes.changes
    assert change.new_version
    assert change.not_run == ()
    assert (change.appeared, change.went_away) == ((), ())
