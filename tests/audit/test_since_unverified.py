"""``assay audit --since RUN`` after an audit whose verifier failed on a solution: the finding
that says so is the check's that asked, so that a later audit that does not run that check sets
it apart as not run, rather than telling a person the problem went away."""

from __future__ import annotations

from pathlib import Path

from assay.audit import AuditContext, CheckOutcome, LintCheck, SolutionVerdict, run_audit
from assay.audit.changes import change_lines, compare
from assay.audit.runner import default_checks
from assay.errors import SandboxError
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
