"""The ``flaky`` check: the verdicts on the task's own solutions do not change between runs.

The reference and the known-bad solutions are each verified :data:`RUNS` times in all: the
usual verdict, and once under each of :data:`CONDITIONS`, the varied runs at once (so each run
competes with the others for the CPU; the solutions of one run share a batch where the family
can). The hash seed, the time zone and the locale differ from run to run: the usual run has its
worker's random hash seed, UTC unless the host says otherwise and ``C.UTF-8``; the varied runs
have fixed seeds, time zones on both sides of the date line and locales of their own (the pool
runs them on a worker started under them, other sandboxes in a fresh interpreter that honours
them, :mod:`assay.sandbox.conditions`, and the workflow family, whose scripts run in a sandbox of
its own, takes them from the sandbox it is lent). A solution whose verdict changes is a finding
with the runs side by side: a reference that sometimes fails, or a known-bad that sometimes
passes, is a task whose reward is partly chance. Such a task is quarantined for a person to look
at (the cause may be the task, or a solution that depends on the clock or the hash order), never
accepted. Runs that end in ``error`` are infrastructure and are not counted as a change. Where
the family can reorder a task's cases (:class:`CaseOrderFamily`: the code and repo families),
the usual run has them as written, the second reversed and the third every other one first, so
that a solution which is right only in the task's own order (it keeps state between calls) is
found too. The audit runs a window's varied runs together, tasks mixed in batches of one set of
conditions (:mod:`assay.audit.together`); the check takes those statuses where it finds them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from assay.audit.base import AuditContext, CheckOutcome
from assay.families.base import CASE_ORDERS, BatchFamily, CaseOrderFamily, Family
from assay.findings import Finding, Severity
from assay.sandbox.conditions import WithEnvironment
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Status

CONDITIONS: tuple[dict[str, str], ...] = (
    {"PYTHONHASHSEED": "2", "TZ": "Pacific/Kiritimati", "LC_ALL": "de_DE.UTF-8", "LANG": "de_DE"},
    {"PYTHONHASHSEED": "3", "TZ": "America/Adak", "LC_ALL": "tr_TR.UTF-8", "LANG": "tr_TR"},
)
"""The conditions of the varied runs, one each: fixed hash seeds, time zones on both sides of
the date line (UTC+14 and UTC-10) and locales with their own decimal commas and case rules
(where the sandbox has them)."""
RUNS = 1 + len(CONDITIONS)
"""Verdicts on each solution: the usual one and one under each of :data:`CONDITIONS`."""


class FlakyCheck:
    """Verdicts on the reference and the known-bad solutions hold under other conditions."""

    name = "flaky"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Take each of the task's own solutions' verdict as usual, and verify each once under
        each of the :data:`CONDITIONS`, the conditions at once (the solutions of one condition
        in one batch where the family can: :class:`BatchFamily`): :data:`RUNS` in all."""
        solutions = own_solutions(task)
        if not solutions:
            return CheckOutcome()
        plain = context.verify_many([(task, files) for files in solutions.values()])
        with ThreadPoolExecutor(max_workers=len(CONDITIONS)) as pool:
            varied = list(
                pool.map(
                    lambda index: _varied(task, solutions, context, index), range(len(CONDITIONS))
                )
            )
        findings = []
        for at, label in enumerate(solutions):
            statuses = [("as usual", plain[at].status)]
            statuses += [(conditions, each[at]) for conditions, each in varied]
            decided = {status for _, status in statuses if status is not Status.ERROR}
            if len(decided) > 1:
                findings.append(_finding(self.name, label, statuses))
        return CheckOutcome(findings=findings)


def _varied(
    task: Task, solutions: dict[str, Files], context: AuditContext, index: int
) -> tuple[str, list[Status]]:
    """The conditions of run ``index``, in words, and each solution's status under them: the
    ones the audit already took (:meth:`AuditContext.keep_varied`), else verified here."""
    env = CONDITIONS[index]
    label = " ".join(f"{k}={v}" for k, v in env.items() if k != "LANG")
    family = context.family
    run = varied_run(task, family, index)
    if run is not task:
        label += f", cases {CASE_ORDERS[index + 1]}"
    given = [context.varied(index, files) for files in solutions.values()]
    if all(status is not None for status in given):
        return label, [status for status in given if status is not None]
    sandbox = conditioned(context.sandbox, index)
    items = [(run, files) for files in solutions.values()]
    if isinstance(family, BatchFamily) and len(items) > 1:
        verdicts = family.verify_many(items, sandbox)
    else:
        verdicts = [family.verify(run, files, sandbox) for files in solutions.values()]
    return label, [verdict.status for verdict in verdicts]


def own_solutions(task: Task) -> dict[str, Files]:
    """The solutions whose verdicts the check varies: the references and the known-bad."""
    return {**task.references(), **task.known_bad()}


def varied_run(task: Task, family: Family, index: int) -> Task:
    """The task as varied run ``index`` (under ``CONDITIONS[index]``) verifies it: its cases in
    order ``index + 1`` of :data:`CASE_ORDERS` where the family can reorder them
    (:class:`CaseOrderFamily`); the usual run has them as written."""
    if isinstance(family, CaseOrderFamily):
        return family.reordered(task, index + 1)
    return task


def conditioned(sandbox: Sandbox, index: int) -> Sandbox:
    """``sandbox``, its runs under the conditions of varied run ``index``."""
    return WithEnvironment(sandbox, CONDITIONS[index])


def _finding(check: str, label: str, statuses: list[tuple[str, Status]]) -> Finding:
    bad = label.startswith("bad-")
    what = "sometimes passes" if bad else "sometimes fails"
    return Finding(
        check=check,
        severity=Severity.WARNING,
        review=True,
        message=f"{label} {what}: its verdict changes with the run; quarantined until a person "
        "finds whether the task or the solution depends on chance, the clock or the locale",
        evidence="\n".join(f"{status.value:<5} {conditions}" for conditions, status in statuses),
    )
