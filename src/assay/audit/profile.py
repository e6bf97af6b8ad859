"""What a stored pass-rate profile adds to an audit (``assay audit --profile RUN``).

A task that no sample of a capable policy solved is either broken or harder than anything can
learn from yet: a person must look before it trains anything, so the audit quarantines it
instead of accepting it. A task every sample solved is accepted with a note that it is too easy.
A profile of another version of the task says nothing about this one.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.audit.report import AuditReport, TaskAudit
from assay.findings import Decision, Finding, Severity
from assay.profiles import Profile, TaskProfile

CHECK = "profile"


def apply_profile(
    report: AuditReport, profile: Profile, versions: Mapping[str, str]
) -> AuditReport:
    """``report`` with the profile's findings added, the tasks at 0% quarantined, and each
    task's pass rate kept where it was profiled at the audited version.

    ``versions`` gives the content version each task was profiled at.
    """
    by_task = {task.task_id: task for task in profile.tasks}
    tasks = tuple(
        _apply(audited, by_task.get(audited.task_id), versions, profile) for audited in report.tasks
    )
    return report.model_copy(
        update={"tasks": tasks, "checks": (*report.checks, CHECK), "profile_run": profile.run}
    )


def _apply(
    audited: TaskAudit,
    profiled: TaskProfile | None,
    versions: Mapping[str, str],
    profile: Profile,
) -> TaskAudit:
    version = versions.get(audited.task_id)
    if profiled is not None and audited.task_version and audited.checks_run is not None:
        audited = audited.model_copy(update={"checks_run": (*audited.checks_run, CHECK)})
    if profiled is not None and audited.task_version and version == audited.task_version:
        audited = audited.model_copy(update={"profile": profiled})
    finding = _finding(audited, profiled, version, profile)
    if finding is None:
        return audited
    decision = audited.decision
    if finding.severity is Severity.WARNING and decision is Decision.ACCEPTED:
        decision = Decision.QUARANTINED
    return audited.model_copy(
        update={"findings": (*audited.findings, finding), "decision": decision}
    )


def _finding(
    audited: TaskAudit, profiled: TaskProfile | None, version: str | None, profile: Profile
) -> Finding | None:
    where = f"run {profile.run}, k={profile.k}"
    if profiled is None or not audited.task_version:
        return None
    if version != audited.task_version:
        return Finding(
            check=CHECK,
            severity=Severity.INFO,
            message=f"the profile ({where}) is of another version of this task: profile it again",
            evidence=f"profiled {version}, audited {audited.task_version}",
        )
    evidence = f"{profiled.passed} of {profiled.samples - profiled.errors} scored samples passed"
    evidence += f" ({profiled.errors} errors left out)" if profiled.errors else ""
    if profiled.pass_rate == 0:
        return Finding(
            check=CHECK,
            severity=Severity.WARNING,
            message=f"no sample passed ({where}): broken or harder than the policy can reach; "
            "quarantined until a person reviews it",
            evidence=evidence,
            review=True,
        )
    if profiled.pass_rate == 1:
        return Finding(
            check=CHECK,
            severity=Severity.INFO,
            message=f"every sample passed ({where}): too easy to learn from",
            evidence=evidence,
        )
    return None
