"""The ``sensitivity`` check: change one expected value, and the reference must now fail.

The family makes the probes (:class:`assay.families.base.SensitivityFamily`; for code see
:mod:`assay.families.code.sensitivity`): copies of the task with one expected value changed so
that no right answer matches both. The reference is verified against each. A verifier that still
passes it is not looking at that value, whatever it claims to check: an error finding, with the
change as evidence. A probe whose verification ends in ``error`` says nothing: it is kept with
the audit's verdicts (so the task is undecided) and the probing stops. Nothing is probed while
the reference does not pass on the task as it is. The reference on the task as it is is verified
afresh along with the probes (for the code family in the probes' own run), and the headroom check
takes that verdict.
"""

from __future__ import annotations

from assay.audit.base import AuditContext, CheckOutcome, SolutionVerdict
from assay.families.base import SensitivityFamily
from assay.findings import Finding, Severity
from assay.tasks.model import Task
from assay.verdicts import Status


class SensitivityCheck:
    """The reference fails once any one of the task's expected values is changed."""

    name = "sensitivity"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify the reference against each probe of the task; nothing to do for a family
        without probes or a task without a reference."""
        family = context.family
        if not isinstance(family, SensitivityFamily):
            return CheckOutcome()
        references = task.references()
        if not references:
            return CheckOutcome()
        label, reference = next(iter(sorted(references.items())))
        probes = family.probes(task)
        if not probes or context.verify(task, reference).status is not Status.PASS:
            return CheckOutcome()  # the reference check reports a reference that does not pass
        findings, verdicts = [], []
        # The reference on the task as it is, afresh, in the same call: for the code family
        # its run is the probes' run (their expected values never reach the sandbox), and the
        # headroom check takes that verdict as its second figure instead of running again.
        answers = context.verify_many(
            [(probe.task, reference) for probe in probes], fresh_reference=(task, reference)
        )
        for probe, verdict in zip(probes, answers, strict=True):
            if verdict.status is Status.ERROR:
                # the task stays undecided; the other probes would only say so again
                verdicts.append(SolutionVerdict(f"{label} (sensitivity {probe.name})", verdict))
                break
            if verdict.status is Status.PASS:
                findings.append(
                    Finding(
                        check=self.name,
                        severity=Severity.ERROR,
                        message=f"the verifier ignores {probe.name}: the reference still passes "
                        f"with its {probe.what.split(' ', 1)[0]} value changed",
                        evidence=f"{probe.name}: {probe.what}\n{verdict.summary}"[:2000],
                    )
                )
        return CheckOutcome(findings=findings, verdicts=verdicts)
