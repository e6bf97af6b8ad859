"""The first audit checks: lint, references pass, known-bad solutions fail, empty fails.

A verdict of ``error`` says nothing about the task (infrastructure failed): these checks keep it
among their verdicts and make no finding of it; the runner leaves such a task undecided. A task
the family cannot read raises :class:`assay.errors.InputError` out of the check.
"""

from __future__ import annotations

from assay.audit.base import AuditContext, CheckOutcome, SolutionVerdict
from assay.findings import Finding, Severity
from assay.tasks.model import Task
from assay.verdicts import Status, Verdict


class LintCheck:
    """The task directory is complete and well formed, and shows the agent nothing hidden."""

    name = "lint"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Static checks; no sandbox."""
        findings: list[Finding] = []
        if not task.references():
            findings.append(_finding(self.name, "no reference solution (solutions/reference/)"))
        if not task.known_bad():
            findings.append(
                Finding(
                    check=self.name,
                    severity=Severity.WARNING,
                    message="no known-bad solution (solutions/bad-<label>/): "
                    "nothing shows that the verifier rejects wrong work",
                )
            )
        findings += context.family.lint(task)
        return CheckOutcome(findings=findings)


class ReferenceCheck:
    """Every reference solution passes."""

    name = "reference"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify each reference; a ``fail`` rejects the task."""
        outcome = CheckOutcome()
        for label, files in task.references().items():
            verdict = context.verify(task, files)
            outcome.verdicts.append(SolutionVerdict(label, verdict))
            if verdict.status is Status.FAIL:
                outcome.findings.append(
                    _finding(
                        self.name,
                        f"{label} does not pass: {verdict.summary}",
                        _failed_cases(verdict),
                    )
                )
        return outcome


class KnownBadCheck:
    """Every known-bad solution fails."""

    name = "known-bad"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify each known-bad solution; a pass means the verifier cannot tell."""
        outcome = CheckOutcome()
        known_bad = task.known_bad()
        verdicts = context.verify_many([(task, files) for files in known_bad.values()])
        for label, verdict in zip(known_bad, verdicts, strict=True):
            outcome.verdicts.append(SolutionVerdict(label, verdict))
            if verdict.status is Status.PASS:
                outcome.findings.append(
                    _finding(self.name, f"{label} passes: the verifier does not catch this mistake")
                )
            elif _fails_alike(verdict):
                outcome.findings.append(
                    Finding(
                        check=self.name,
                        severity=Severity.WARNING,
                        message=f"{label} fails every criterion the same way, so it shows "
                        "nothing of what the verifier tells apart (a known-bad that does not "
                        "load, say): add one that runs and answers wrongly",
                        evidence=verdict.criteria[0].evidence[:500],
                    )
                )
        return outcome


def _fails_alike(verdict: Verdict) -> bool:
    """Whether ``verdict`` failed every one of its several criteria with one and the same
    evidence: nothing it was asked was judged on its own answer."""
    criteria = verdict.criteria
    return (
        len(criteria) > 1
        and not any(c.passed for c in criteria)
        and len({c.evidence for c in criteria}) == 1
    )


class EmptySubmissionCheck:
    """A submission that does nothing fails, and what score it still earns is said: a trainer
    that rewards the score (not the pass) pays a policy that much for doing nothing."""

    name = "empty"
    WARN_AT = 0.5
    """A do-nothing score from which the note is a warning: half the reward for nothing."""

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify the family's empty submission."""
        verdict = context.verify(task, context.family.empty_solution(task))
        outcome = CheckOutcome(verdicts=[SolutionVerdict("empty", verdict)])
        if verdict.status is Status.PASS:
            outcome.findings.append(_finding(self.name, "an empty submission passes"))
        elif verdict.status is Status.FAIL and verdict.score > 0:
            met = [c.name for c in verdict.criteria if c.passed]
            outcome.findings.append(
                Finding(
                    check=self.name,
                    severity=Severity.WARNING if verdict.score >= self.WARN_AT else Severity.INFO,
                    message=f"doing nothing fails but scores {verdict.score:.2f}: a trainer "
                    "that rewards the score, not the pass, pays that much for nothing",
                    evidence="met by doing nothing: " + "; ".join(met[:8])[:500],
                )
            )
        return outcome


def _failed_cases(verdict: Verdict) -> str:
    failed = [f"{c.name}: {c.evidence}" for c in verdict.criteria if not c.passed]
    return "; ".join(failed[:3])[:500]


def _finding(check: str, message: str, evidence: str = "") -> Finding:
    return Finding(check=check, severity=Severity.ERROR, message=message, evidence=evidence)
