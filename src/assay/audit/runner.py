"""Running audit checks over a task set, in parallel, one decision per task."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

from assay.audit.base import AuditCheck, AuditContext, SolutionVerdict
from assay.audit.checker_crash import CheckerCrashCheck
from assay.audit.checks import EmptySubmissionCheck, KnownBadCheck, LintCheck, ReferenceCheck
from assay.audit.clearance import apply_clearances
from assay.audit.collector import between_windows, quiet_collector
from assay.audit.diversity import diversity
from assay.audit.drift import CHECK as DRIFT_CHECK
from assay.audit.drift import drift_findings
from assay.audit.flaky import FlakyCheck
from assay.audit.headroom import HeadroomCheck
from assay.audit.judge_redteam import JudgeRedTeamCheck
from assay.audit.mutation import MutationCheck
from assay.audit.profile import CHECK as PROFILE_CHECK
from assay.audit.profile import apply_profile
from assay.audit.redteam import RedTeamCheck
from assay.audit.report import (
    AuditReport,
    MutationResult,
    RedTeamResult,
    SolutionResult,
    TaskAudit,
    decide,
)
from assay.audit.sensitivity import SensitivityCheck
from assay.audit.setchecks import (
    ContaminationCheck,
    DuplicatesCheck,
    SetCheck,
    apply_set_findings,
    frozen_print,
)
from assay.audit.together import WINDOW, Given, Kept, verify_together
from assay.errors import ContainerRequiredError, InputError, SandboxError
from assay.families import family_of, version_label
from assay.findings import Decision, Finding, Severity
from assay.profiles import RunProfile
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.spec import Split
from assay.tasks.taskset import LoadFailure, TaskSet
from assay.verdicts import Status, Verdict

if TYPE_CHECKING:
    from assay.store import Store
    from assay.store.records import FrozenPrint

ENTRY_POINT_GROUP = "assay.audit_checks"
VerdictSink = Callable[[Task, SolutionVerdict], None]


TOGETHER = {"reference", "known-bad", "empty", "flaky"}
"""The checks whose solutions a window of tasks verifies together (:mod:`assay.audit.together`)."""

Check = AuditCheck | SetCheck
"""A check over one task at a time, or over the whole set."""


def default_checks() -> list[Check]:
    """The built-in checks, then any registered in the ``assay.audit_checks`` entry points."""
    checks: list[Check] = [
        LintCheck(),
        ReferenceCheck(),
        KnownBadCheck(),
        EmptySubmissionCheck(),
        FlakyCheck(),
        RedTeamCheck(),
        MutationCheck(),
        SensitivityCheck(),
        HeadroomCheck(),
        CheckerCrashCheck(),
        JudgeRedTeamCheck(),
        DuplicatesCheck(),
        ContaminationCheck(),
    ]
    names = {check.name for check in checks}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        check = entry.load()()
        if check.name not in names:
            checks.append(check)
            names.add(check.name)
    return checks


NEEDS_FLAG = {
    DRIFT_CHECK: ("--seed-tasks", "--seed-tasks DIR (the tasks the set was expanded from)"),
    PROFILE_CHECK: ("--profile", "--profile RUN (a run of `assay profile`)"),
}
"""Checks that run whenever the flag that gives their input is given: the flag, and how to
write it."""
FLAG_CHECKS = ("diversity", *NEEDS_FLAG)
"""Checks that are no per-task check of :func:`default_checks`, whose ids ``--checks`` takes as
well: ``diversity`` is in every report, the others run on their flag (:data:`NEEDS_FLAG`)."""


def select_checks(
    names: str | None,
    corpus: Path | None = None,
    *,
    seeds: bool = False,
    profile: bool = False,
) -> list[Check]:
    """The checks named in ``names`` (comma-separated ids, as ``--checks`` takes them; all when
    None), in the audit's own order, the contamination check reading ``corpus`` if given.
    Loading the tasks always runs; ``lint`` is a check like the others. The ids of
    :data:`FLAG_CHECKS` are taken too: they run when ``seeds`` or ``profile`` is given
    (``--seed-tasks``, ``--profile``), named or not, and are no check of this list.

    Raises :class:`InputError` for an empty list or an unknown id, naming the known ones, for a
    corpus when the contamination check is not selected, and for ``drift`` or ``profile``
    named without its input.
    """
    available = default_checks()
    known = [check.name for check in available]
    wanted = known if names is None else [n.strip() for n in names.split(",") if n.strip()]
    unknown = [name for name in wanted if name not in known and name not in FLAG_CHECKS]
    if unknown or not wanted:
        problem = f"unknown check {unknown[0]!r}" if unknown else "no check named"
        raise InputError(
            problem, field="--checks", fix=f"use ids from: {', '.join([*known, *FLAG_CHECKS])}"
        )
    given = {DRIFT_CHECK: seeds, PROFILE_CHECK: profile}
    for name, (flag, usage) in NEEDS_FLAG.items():
        if name in wanted and not given[name]:
            raise InputError(
                f"the {name} check needs {flag}",
                field="--checks",
                fix=f"add {usage} or leave {name} out of --checks",
            )
    if corpus is not None and "contamination" not in wanted:
        raise InputError(
            "only the contamination check reads a corpus",
            field="--corpus",
            fix="add contamination to --checks, or leave --corpus out",
        )
    if corpus is not None:
        available = [
            ContaminationCheck(corpus) if check.name == "contamination" else check
            for check in available
        ]
    return [check for check in available if check.name in wanted]


def run_audit(
    taskset: TaskSet,
    sandbox: Sandbox,
    *,
    checks: Sequence[Check] | None = None,
    workers: int = 2,
    on_task: Callable[[TaskAudit], None] | None = None,
    on_verdict: VerdictSink | None = None,
    seeds: TaskSet | None = None,
    recorded: Sequence[FrozenPrint] = (),
) -> AuditReport:
    """Audit every task of ``taskset``; tasks that failed to load are rejected by lint. With
    ``seeds`` (the tasks the set was expanded from), the diversity says how far it drifted.
    The contamination check compares the tasks with the frozen tasks ``recorded`` by earlier
    audits too (:meth:`assay.store.Store.frozen_prints`).

    Nothing one task does ends the audit: a task whose checks could not run (the sandbox, the
    verifier or assay failed) gets the decision ``error`` and the others go on.
    """
    started = datetime.now(UTC)
    applied = list(checks) if checks is not None else default_checks()
    per_task = [check for check in applied if not isinstance(check, SetCheck)]
    over_set = [check for check in applied if isinstance(check, SetCheck)]

    def path_of(task: Task) -> str:
        return _shown(taskset.paths.get(task.id, taskset.root))

    kept: Kept = {}

    def audit(task: Task) -> TaskAudit:
        path = path_of(task)
        try:
            result = _audit_task(
                task, path, sandbox, per_task, on_verdict, kept=kept.pop(id(task), None)
            )
        except Exception as exc:  # noqa: BLE001 - one task's surprise must not end the audit
            result = _only(task.id, path, Decision.ERROR, _crashed("audit", exc))
        if on_task is not None:
            on_task(result)
        return result

    taken = {task.id for task in taskset.tasks}
    broken = [_load_failure(failure, taken) for failure in taskset.failures]
    for result in broken:
        if on_task is not None:
            on_task(result)
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    together = {check.name for check in per_task} & TOGETHER
    audited: list[TaskAudit] = []
    with quiet_collector():  # one collection a window (assay.audit.collector)
        try:
            tasks = list(taskset.tasks)
            for start in range(0, len(tasks), WINDOW):
                if start:
                    between_windows()
                window = tasks[start : start + WINDOW]
                if together:
                    located = [(task, path_of(task)) for task in window]
                    kept.update(verify_together(located, sandbox, pool, together, workers))
                audited += pool.map(audit, window)
        finally:
            # On an interrupt, tasks not yet started are dropped rather than run to the end.
            pool.shutdown(wait=True, cancel_futures=True)
    report = AuditReport(
        run_id=uuid.uuid4().hex[:12],
        root=_shown(taskset.root),
        started_at=started,
        finished_at=started,
        checks=tuple(check.name for check in per_task),
        tasks=tuple(sorted(broken + audited, key=lambda t: t.task_id)),
        diversity=diversity(taskset.tasks, seeds),
    )
    # The set checks compare the tasks still in the running: a rejected task will not be used
    # and one that could not be audited is not decided yet, so neither makes another task a
    # duplicate. A frozen task is held out whatever its own audit found, though (fixed or
    # audited again, it is evaluated on), so a copy of it in another split is one all the same:
    # the contamination check compares every frozen task, and only the tasks in the running
    # get findings.
    out = {t.task_id for t in report.tasks if t.decision in (Decision.REJECTED, Decision.ERROR)}
    candidates = [task for task in taskset.tasks if task.id not in out]
    held_out = [t for t in taskset.tasks if t.id in out and t.spec.split is Split.FROZEN]
    ran_on = {task.id for task in candidates}  # the tasks the set checks judge
    for given in over_set:
        check = given.with_recorded(recorded) if isinstance(given, ContaminationCheck) else given
        compared = candidates + held_out if isinstance(check, ContaminationCheck) else candidates
        found = {task_id: f for task_id, f in check.run_set(compared).items() if task_id not in out}
        report = apply_set_findings(report, check.name, found, ran_on=ran_on)
    measured = report.diversity.drift if report.diversity is not None else None
    if measured is not None:
        found = drift_findings(measured, (task.id for task in candidates))
        report = apply_set_findings(report, DRIFT_CHECK, found, ran_on=ran_on)
    return report.model_copy(update={"finished_at": datetime.now(UTC)})


def run_audit_into(
    store: Store,
    taskset: TaskSet,
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_task: Callable[[TaskAudit], None] | None = None,
    profile: RunProfile | None = None,
    checks: Sequence[Check] | None = None,
    seeds: TaskSet | None = None,
) -> AuditReport:
    """:func:`run_audit` with ``checks`` (the default ones when None) and ``seeds``, then,
    with a stored ``profile``, its findings (:func:`apply_profile`), then the clearances the
    store keeps (:func:`apply_clearances`), then keep the report and every verdict behind it
    in ``store`` (one transaction), with a print of each frozen task of ``taskset``
    (:func:`assay.audit.setchecks.frozen_print`). The contamination check compares the tasks
    with the frozen tasks the store has recorded as well.

    Raises :class:`InputError`, before anything is audited, when ``profile`` is of none of the
    tasks (another set's run): joined, it would quarantine nothing and say nothing.
    """
    if profile is not None:
        _require_profiled(profile, taskset)
    verdicts: list[tuple[str, Verdict]] = []
    report = run_audit(
        taskset,
        sandbox,
        checks=checks,
        workers=workers,
        on_task=on_task,
        on_verdict=lambda _task, v: verdicts.append((v.solution, v.verdict)),
        seeds=seeds,
        recorded=store.frozen_prints(),
    )
    if profile is not None:
        report = apply_profile(report, profile.profile, profile.versions)
    report = apply_clearances(report, store.clearances())
    versions = {audited.task_id: audited.task_version for audited in report.tasks}
    frozen = [
        frozen_print(task, versions[task.id], report.run_id)
        for task in taskset.tasks
        if task.spec.split is Split.FROZEN and task.id in versions
    ]
    _keep(store, report, verdicts, frozen)
    return report


def _require_profiled(profile: RunProfile, taskset: TaskSet) -> None:
    """Raises :class:`InputError` when ``taskset`` has tasks and ``profile`` none of them."""
    ids = {task.id for task in taskset.tasks}
    if ids and ids.isdisjoint(task.task_id for task in profile.profile.tasks):
        raise InputError(
            f"rollout run {_shown(profile.profile.run)!r} profiled none of the {len(ids)} tasks "
            f"in {_shown(taskset.root)}, so no pass rate of it could hold a task for review",
            field="--profile",
            fix="name the run `assay profile` made of these tasks (`assay runs` lists them), or "
            "leave --profile out",
        )


def _keep(
    store: Store,
    report: AuditReport,
    verdicts: list[tuple[str, Verdict]],
    frozen: Sequence[FrozenPrint] = (),
) -> None:
    """Keep the finished audit; a store another writer holds is waited for (the store's
    patience), so the audit is not thrown away for a lock."""
    from assay.store.patience import patiently  # noqa: PLC0415 - the store imports the audit

    patiently(lambda: store.add_audit(report, verdicts, frozen))


def _audit_task(
    task: Task,
    path: str,
    sandbox: Sandbox,
    checks: Sequence[AuditCheck],
    on_verdict: VerdictSink | None,
    *,
    kept: Given | None = None,
) -> TaskAudit:
    """Apply ``checks`` in order, what ``kept`` holds already given. A check that finds
    the task unreadable (it raises :class:`InputError`) ends the task's audit with that one
    finding: the later checks need what is malformed. A check that fails leaves the task
    unfinished (``error``); after a failure of the sandbox (:class:`SandboxError`) no later
    check runs, after any other the rest still do.
    """
    try:
        family = family_of(task, Path(path))
    except InputError as exc:
        return _only(task.id, path, Decision.REJECTED, _finding("lint", str(exc)))
    context = AuditContext(family=family, sandbox=sandbox)
    if kept is not None:
        kept.give(task, context)
    findings: list[Finding] = []
    problems: list[Finding] = []
    verdicts: list[SolutionVerdict] = []
    asked_by: list[str] = []  # the check that gave each verdict
    mutation: MutationResult | None = None
    red_team: RedTeamResult | None = None
    completed: list[str] = []  # the checks that ran to their end
    for check in checks:
        try:
            outcome = check.run(task, context)
        except InputError as exc:
            _add_once(findings, _finding(check.name, str(exc.under(task.id, path))))
            break
        except ContainerRequiredError as exc:
            # Nothing later can verify it either: what ran so far is all this host can check.
            _add_once(findings, _container_required(check.name, exc))
            break
        except SandboxError as exc:
            # The sandbox failed: every later check verifies in it too, and the task is
            # undecided whatever they find, so they are not run (audit the task again).
            problems.append(_crashed(check.name, exc))
            break
        except Exception as exc:  # noqa: BLE001 - one task's surprise must not end the audit
            problems.append(_crashed(check.name, exc))
            continue
        for finding in outcome.findings:
            _add_once(findings, _located(finding, task.id, path))
        verdicts += outcome.verdicts
        asked_by += [check.name] * len(outcome.verdicts)
        if outcome.mutation is not None:
            mutation = outcome.mutation
        if outcome.red_team is not None:
            red_team = outcome.red_team
        completed.append(check.name)
    problems += [
        _unverified(name, v)
        for name, v in zip(asked_by, verdicts, strict=True)
        if v.verdict.status is Status.ERROR
    ]
    for verdict in verdicts:
        if on_verdict is not None:
            on_verdict(task, verdict)
    return TaskAudit(
        task_id=task.id,
        task_version=task.content_version(version_label(family)),
        path=path,
        decision=decide(findings, unfinished=bool(problems)),
        findings=tuple(findings + problems),
        solutions=tuple(
            SolutionResult(
                solution=v.solution,
                status=v.verdict.status,
                score=v.verdict.score,
                summary=v.verdict.summary,
            )
            for v in verdicts
        ),
        mutation=mutation,
        red_team=red_team,
        checks_run=tuple(completed),
    )


def _located(finding: Finding, task_id: str, path: str) -> Finding:
    """``finding`` naming the task's directory where it names a file as ``<task id>/...``."""
    if not finding.message.startswith(f"{task_id}/"):
        return finding
    message = str(Path(path) / finding.message.removeprefix(f"{task_id}/"))
    return finding.model_copy(update={"message": message})


def _add_once(findings: list[Finding], finding: Finding) -> None:
    """Add ``finding`` unless the same problem is already reported (by lint, say)."""
    if not any(f.message == finding.message and f.severity is finding.severity for f in findings):
        findings.append(finding)


def _finding(check: str, message: str) -> Finding:
    return Finding(check=check, severity=Severity.ERROR, message=message)


def _container_required(check: str, exc: ContainerRequiredError) -> Finding:
    """A task that needs a container backend: the static checks ran, the others cannot."""
    return Finding(
        check=check,
        severity=Severity.WARNING,
        review=True,
        message="not verified: the task needs a container backend, which assay does not have; "
        "only the checks before this one ran (a person must run the rest elsewhere)",
        evidence=str(exc)[:2000],
    )


def _crashed(check: str, exc: Exception) -> Finding:
    """What a check (or the family, the sandbox or assay under it) that raised left undone."""
    return Finding(
        check=check,
        severity=Severity.ERROR,
        message="could not run: the sandbox, the verifier or assay failed, not the task "
        "(audit the task again)",
        evidence=f"{type(exc).__name__}: {exc}"[:2000],
    )


def _unverified(check: str, verdict: SolutionVerdict) -> Finding:
    """An ``error`` verdict: infrastructure failed, so the solution's verdict is unknown. The
    finding is the check's that asked for the verdict, so that a later audit that does not run
    that check (``--checks``) sets it apart as not run (``--since``), not as gone."""
    return Finding(
        check=check,
        severity=Severity.ERROR,
        message=f"{verdict.solution} could not be verified (an infrastructure error, not the "
        "task's; audit the task again)",
        evidence=verdict.verdict.summary[:2000],
    )


def _load_failure(failure: LoadFailure, taken: set[str]) -> TaskAudit:
    """The rejection of a task that did not load, under its directory's name, or its path
    where that name is another task's id or another failure's (``taken`` grows)."""
    finding = _finding("lint", _shown(failure.error))
    name = _shown(failure.path.name)
    if name in taken:
        name = _shown(failure.path)
    while name in taken:
        name += " (does not load)"
    taken.add(name)
    return _only(name, _shown(failure.path), Decision.REJECTED, finding)


def _shown(text: object) -> str:
    """``text`` as a report can hold it: a byte of a file name that is not UTF-8 (which Python
    keeps as a lone surrogate, and JSON cannot) becomes U+FFFD."""
    return str(text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _only(task_id: str, path: str, decision: Decision, finding: Finding) -> TaskAudit:
    """The audit of a task that got no further than ``finding``."""
    return TaskAudit(
        task_id=task_id,
        task_version="",
        path=path,
        decision=decision,
        findings=(finding,),
        checks_run=(),
    )
