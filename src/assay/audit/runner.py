"""Running audit checks over a task set, in parallel, one decision per task."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from assay.audit.base import AuditCheck, AuditContext, SolutionVerdict
from assay.audit.checker_crash import CheckerCrashCheck
from assay.audit.checks import EmptySubmissionCheck, KnownBadCheck, LintCheck, ReferenceCheck
from assay.audit.report import AuditReport, SolutionResult, TaskAudit, decide
from assay.errors import InputError
from assay.families import family_of, version_label
from assay.findings import Decision, Finding, Severity
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.taskset import LoadFailure, TaskSet
from assay.verdicts import Verdict

if TYPE_CHECKING:
    from assay.store import Store

ENTRY_POINT_GROUP = "assay.audit_checks"
VerdictSink = Callable[[Task, SolutionVerdict], None]


def default_checks() -> list[AuditCheck]:
    """The built-in checks, then any registered in the ``assay.audit_checks`` entry points."""
    checks: list[AuditCheck] = [
        LintCheck(),
        ReferenceCheck(),
        KnownBadCheck(),
        EmptySubmissionCheck(),
        CheckerCrashCheck(),
    ]
    names = {check.name for check in checks}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        check = entry.load()()
        if check.name not in names:
            checks.append(check)
            names.add(check.name)
    return checks


def run_audit(
    taskset: TaskSet,
    sandbox: Sandbox,
    *,
    checks: Sequence[AuditCheck] | None = None,
    workers: int = 2,
    on_task: Callable[[TaskAudit], None] | None = None,
    on_verdict: VerdictSink | None = None,
) -> AuditReport:
    """Audit every task of ``taskset``; tasks that failed to load are rejected by lint."""
    started = datetime.now(UTC)
    applied = list(checks) if checks is not None else default_checks()

    def audit(task: Task) -> TaskAudit:
        try:
            result = _audit_task(task, taskset, sandbox, applied, on_verdict)
        except Exception as exc:  # noqa: BLE001 - one task's surprise must not end the audit
            path = str(taskset.paths.get(task.id, taskset.root))
            result = _rejected(task.id, path, _crashed("audit", exc))
        if on_task is not None:
            on_task(result)
        return result

    broken = [_load_failure(failure) for failure in taskset.failures]
    for result in broken:
        if on_task is not None:
            on_task(result)
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        audited = list(pool.map(audit, taskset.tasks))
    finally:
        # On an interrupt, tasks not yet started are dropped rather than run to the end.
        pool.shutdown(wait=True, cancel_futures=True)
    return AuditReport(
        run_id=uuid.uuid4().hex[:12],
        root=str(taskset.root),
        started_at=started,
        finished_at=datetime.now(UTC),
        checks=tuple(check.name for check in applied),
        tasks=tuple(sorted(broken + audited, key=lambda t: t.task_id)),
    )


def run_audit_into(
    store: Store,
    taskset: TaskSet,
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_task: Callable[[TaskAudit], None] | None = None,
) -> AuditReport:
    """:func:`run_audit` with the default checks, then keep the report and every verdict
    behind it in ``store`` (one transaction).
    """
    verdicts: list[tuple[str, Verdict]] = []
    report = run_audit(
        taskset,
        sandbox,
        workers=workers,
        on_task=on_task,
        on_verdict=lambda _task, v: verdicts.append((v.solution, v.verdict)),
    )
    store.add_audit(report, verdicts)
    return report


def _audit_task(
    task: Task,
    taskset: TaskSet,
    sandbox: Sandbox,
    checks: Sequence[AuditCheck],
    on_verdict: VerdictSink | None,
) -> TaskAudit:
    path = str(taskset.paths.get(task.id, taskset.root))
    try:
        family = family_of(task)
    except InputError as exc:
        return _rejected(
            task.id, path, Finding(check="lint", severity=Severity.ERROR, message=str(exc))
        )
    context = AuditContext(family=family, sandbox=sandbox)
    findings: list[Finding] = []
    verdicts: list[SolutionVerdict] = []
    for check in checks:
        try:
            outcome = check.run(task, context)
        except Exception as exc:  # noqa: BLE001 - one task's surprise must not end the audit
            findings.append(_crashed(check.name, exc))
            continue
        findings += outcome.findings
        verdicts += outcome.verdicts
    for verdict in verdicts:
        if on_verdict is not None:
            on_verdict(task, verdict)
    return TaskAudit(
        task_id=task.id,
        task_version=task.content_version(version_label(family)),
        path=path,
        decision=decide(findings),
        findings=tuple(findings),
        solutions=tuple(
            SolutionResult(
                solution=v.solution,
                status=v.verdict.status,
                score=v.verdict.score,
                summary=v.verdict.summary,
            )
            for v in verdicts
        ),
    )


def _crashed(check: str, exc: Exception) -> Finding:
    """An ``error`` finding for a check (or the family under it) that raised."""
    return Finding(
        check=check,
        severity=Severity.ERROR,
        message="raised an exception, so the task could not be judged (a bug in the check, "
        "the family or the infrastructure)",
        evidence=f"{type(exc).__name__}: {exc}"[:2000],
    )


def _load_failure(failure: LoadFailure) -> TaskAudit:
    finding = Finding(check="lint", severity=Severity.ERROR, message=str(failure.error))
    return _rejected(failure.path.name, str(failure.path), finding)


def _rejected(task_id: str, path: str, finding: Finding) -> TaskAudit:
    return TaskAudit(
        task_id=task_id, task_version="", path=path, decision=Decision.REJECTED, findings=(finding,)
    )
