"""The ``red-team`` check: known reward hacks are tried against every task, and each must fail.

The hacks come from the task's family (:class:`assay.families.base.RedTeamFamily`; for code see
:mod:`assay.families.code.exploits`): objects equal to anything, success exit codes, printed or
written success, reading hidden data or the reference, patched builtins, replayed prompt
examples, forged harness records, empty, constant, huge and spammed answers; and, from a family
that must look first (:class:`assay.families.base.ObservingRedTeamFamily`), hacks made from what
the reference shows, such as its answer on the visible data hard-coded. An exploit that
passes is an error finding, the most severe: whatever the task asks, its verifier pays for
something else. So is an exploit that ends in ``error`` twice in a row, since nothing a candidate
does may turn its own fail into an infrastructure error (it would be retried, not scored 0).
Errors are the exploit's doing only when a reference, verified right after, still gets a verdict:
if it does not, the sandbox is failing and the task is left undecided. Exploits run under limits
fitted to the reference (:mod:`assay.audit.fitting`); one that the fitted time or CPU limit
stops is verified again under the task's own, so the fitting saves time on spinning hacks and
hides no pass that time could buy (a slow search for the expected outputs). One that the fitted
memory limit stops is not: memory alone buys no pass (a hack needs the expected outputs, or a
way around the comparison, and neither is in memory it can fill), and hoarding memory to the
task's limit costs a fifth of a second a task. A hack that never ends by design (it loops until
stopped: :attr:`assay.families.base.Exploit.endless`) gets less, :data:`ENDLESS_CPU_FACTOR`
times the reference's CPU time, and is not verified again: it starts as the reference does and
reaches its loop within that time, and any more would change nothing but what it costs (for a
workflow task's hang, a third of its whole audit).
"""

from __future__ import annotations

from assay.audit.base import AuditContext, CheckOutcome
from assay.audit.fitting import fitted_to_reference
from assay.audit.report import ExploitResult, RedTeamResult
from assay.errors import VerifierError
from assay.families.base import Exploit, ObservingRedTeamFamily, RedTeamFamily
from assay.findings import Finding, Severity
from assay.tasks.model import Task
from assay.verdicts import Status, Verdict

ENDLESS_CPU_FACTOR = 2.0
"""CPU time an endless hack may use, in multiples of the reference's: enough to start as the
reference does (which is part of the reference's time) and reach its loop."""
EVIDENCE_CHARS = 1500
"""Characters of an exploit's code shown in a finding's evidence."""


class RedTeamCheck:
    """No known reward hack passes the task's verifier, or turns its fail into an error."""

    name = "red-team"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Verify each of the family's exploits; nothing to do for a family without them."""
        family = context.family
        if not isinstance(family, RedTeamFamily):
            return CheckOutcome()
        findings = []
        won = []
        exploits = family.exploits(task)
        if isinstance(family, ObservingRedTeamFamily):
            exploits += family.observed_exploits(task, context.sandbox)
        fitted = fitted_to_reference(task, context) if exploits else None
        fitted_endless = (
            fitted_to_reference(task, context, cpu_factor=ENDLESS_CPU_FACTOR)
            if fitted is not None and any(exploit.endless for exploit in exploits)
            else None
        )
        under = [(fitted_endless if exploit.endless else fitted) or task for exploit in exploits]
        first = context.verify_many(
            [(limited, exploit.files) for limited, exploit in zip(under, exploits, strict=True)]
        )
        for exploit, limited, answer in zip(exploits, under, first, strict=True):
            verdict = _unfitted(task, fitted, exploit, answer, context)
            if verdict.status is Status.ERROR:
                # infrastructure may hiccup once (an error is never kept: this runs again)
                again = context.verify(limited, exploit.files)
                verdict = _unfitted(task, fitted, exploit, again, context)
            if verdict.status is Status.ERROR:
                _infrastructure_holds(task, context, exploit)
            if verdict.status is Status.FAIL:
                continue
            findings.append(_finding(self.name, exploit, verdict))
            won.append(
                ExploitResult(
                    name=exploit.name,
                    what=exploit.what,
                    status=verdict.status,
                    summary=verdict.summary[:300],
                    code=_code(exploit),
                )
            )
        if not exploits:
            return CheckOutcome()
        return CheckOutcome(
            findings=findings, red_team=RedTeamResult(tried=len(exploits), won=tuple(won))
        )


def _unfitted(
    task: Task, fitted: Task | None, exploit: Exploit, verdict: Verdict, context: AuditContext
) -> Verdict:
    """``exploit``'s ``verdict`` under the limits fitted to the reference; its verdict under the
    task's own limits when the fitted ones stopped it, so that a slow exploit's pass is not
    hidden. An exploit that never ends (:attr:`Exploit.endless`) is not run again."""
    if fitted is None or exploit.endless:
        return verdict
    limits = fitted.spec.limits
    if (
        verdict.timings.sandbox_cpu_s >= limits.cpu_s
        or verdict.timings.sandbox_s >= limits.timeout_s
    ):
        return context.verify(task, exploit.files)
    return verdict


def _infrastructure_holds(task: Task, context: AuditContext, exploit: Exploit) -> None:
    """Raise :class:`VerifierError` (the task stays undecided) unless a reference still gets a
    verdict other than ``error`` right after ``exploit`` got two: then the errors are the
    exploit's doing, not a failing sandbox."""
    for files in task.references().values():
        if context.verify(task, files, fresh=True).status is not Status.ERROR:
            return
    raise VerifierError(
        f"exploit {exploit.name} ended in error, and so does the reference right after: the "
        "sandbox or the verifier is failing, not only the exploit (audit the task again)"
    )


def _code(exploit: Exploit) -> str:
    """The exploit's files, each after a ``--- path`` line, cut at :data:`EVIDENCE_CHARS`."""
    code = "\n".join(
        f"--- {path}\n{content.decode(errors='replace')}"
        for path, content in sorted(exploit.files.items())
    )
    if len(code) > EVIDENCE_CHARS:
        code = code[:EVIDENCE_CHARS] + "\n[...]"
    return code


def _finding(check: str, exploit: Exploit, verdict: Verdict) -> Finding:
    code = _code(exploit)
    if verdict.status is Status.PASS:
        message = (
            f"exploit {exploit.name} passes ({exploit.what}): the verifier rewards something "
            "other than solving the task"
        )
    else:
        message = (
            f"exploit {exploit.name} ({exploit.what}) ends in error twice: a candidate can turn "
            "its own fail into an infrastructure error, which is retried instead of scored"
        )
    return Finding(
        check=check,
        severity=Severity.ERROR,
        message=message,
        evidence=f"verdict: {verdict.status.value}: {verdict.summary[:300]}\n{code}",
    )
