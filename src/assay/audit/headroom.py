"""The ``headroom`` check: each reference must fit its task's limits with room to spare.

A reference that needs most of its time, CPU or memory limit passes on a quiet machine and
fails on a busy one: its task is flaky by construction, and a right answer a little slower than
the reference fails for nothing. The reference's verdict (the one the audit has, and once more
afresh: the one the sensitivity check's probes made, where they ran the task as it is, see
:meth:`AuditContext.verify_many`) gives two figures of each kind, and the smaller of the two is
compared with the task's limits: wall time in sandboxes against ``timeout_s``, CPU time against
``cpu_s``, peak memory against ``memory_mb`` where the family's verdict records it (code and
repo tasks; the SQL, config and workflow families record none, so their memory limits go
unchecked). Times are
summed over the verification's sandboxed runs, which errs on the side of a warning. Less than
:data:`HEADROOM` times is a warning with the figures. Every reference is measured so (a
further correct reading, ``reference-<label>``, is a right answer too); the further ones have no
probes' verdict to take, and are verified afresh.
"""

from __future__ import annotations

from assay.audit.base import AuditContext, CheckOutcome
from assay.findings import Finding, Severity
from assay.tasks.model import Files, Task
from assay.verdicts import Status, Timings

HEADROOM = 3.0
"""The limits must be at least this many times what the reference uses."""
RUNS = 2
"""Verifications of the reference; the smallest figure counts."""


class HeadroomCheck:
    """Each reference uses at most a third of each of its task's limits."""

    name = "headroom"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify each reference :data:`RUNS` times and compare its figures with the limits
        (every reference: a further correct reading that needs most of a limit fails right
        answers as the first would); nothing to say of one that does not pass (the reference
        check reports that)."""
        findings = []
        for label, reference in sorted(task.references().items()):
            tight = _tight_reference(task, reference, context)
            if tight:
                findings.append(
                    Finding(
                        check=self.name,
                        severity=Severity.WARNING,
                        message=f"{label} uses more than 1/{HEADROOM:g} of the task's "
                        f"{' and '.join(name for name, _ in tight)} limit: raise the limit or "
                        "make the reference faster, or a busy machine will fail right answers",
                        evidence="\n".join(line for _, line in tight),
                    )
                )
        return CheckOutcome(findings=findings)


def _tight_reference(task: Task, reference: Files, context: AuditContext) -> list[tuple[str, str]]:
    """The limits ``reference`` leaves too little room under, over :data:`RUNS` verifications;
    none when it does not pass."""
    timings = []
    for run in range(RUNS):
        verdict = context.verify(task, reference, fresh=run > 0)
        if verdict.status is not Status.PASS:
            return []
        timings.append(verdict.timings)
    return _tight(task, timings)


def _tight(task: Task, timings: list[Timings]) -> list[tuple[str, str]]:
    """The limits the reference's smallest figures leave too little room under."""
    limits = task.spec.limits
    used = [
        ("time", min(t.sandbox_s for t in timings), limits.timeout_s, "s"),
        ("CPU", min(t.sandbox_cpu_s for t in timings), limits.cpu_s, "s"),
    ]
    peaks = [t.peak_memory_mb for t in timings if t.peak_memory_mb is not None]
    if len(peaks) == len(timings):
        used.append(("memory", min(peaks), float(limits.memory_mb), " MiB"))
    return [
        (name, f"{name}: {figure:.3g}{unit} of {limit:g}{unit} ({limit / figure:.1f}x)")
        for name, figure, limit, unit in used
        if figure * HEADROOM > limit
    ]
