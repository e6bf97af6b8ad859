"""A person's clearance of a quarantined task (``assay clear``), and what it changes.

The audit quarantines a task when a finding needs a person: a legacy verifier, a flaky verdict
that is not a clear defect, a 0% pass rate. A person who has looked clears it: the clearance
names the task's version, the audit run that quarantined it, and the findings that held it
(their check and message), with who cleared it and why. From then on:

- exports take that version of the task as they take an accepted one, without another audit;
- a later audit of the same version whose findings that need a person are all among those
  cleared accepts the task, and says so in a finding of its own (``review``). A new finding, a
  changed message (a new profile run, another flaky verdict) or another version of the task
  quarantines it again: a person cleared what they saw, not what came after.

A rejected task cannot be cleared: an error finding is a defect to fix, not a judgement call.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from assay._text import LINE_CONTROLS
from assay.audit.report import AuditReport, TaskAudit, held_by, held_keys
from assay.errors import InputError
from assay.findings import Decision, Finding, Severity

CHECK = "review"
"""The check name of the finding an applied clearance adds."""
MAX_BY_CHARS = 200
MAX_REASON_CHARS = 2000
"""The longest ``--by`` and ``--reason`` (after the reason's runs of spaces and line breaks are
made one space): a name, and why in a few words."""


class Clearance(BaseModel):
    """A person's word that a quarantined task may be used."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    task_version: str = Field(description="The content version that was quarantined.")
    run_id: str = Field(description="The audit run that quarantined it.")
    findings: tuple[str, ...] = Field(
        description="The findings that held it, each as ``check: message``."
    )
    by: str = Field(description="Who cleared it.")
    reason: str = Field(description="Why, in their words.")
    cleared_at: datetime


def clearance_for(
    audited: TaskAudit, run_id: str, *, by: str, reason: str, at: datetime
) -> Clearance:
    """The clearance of ``audited`` (a task of audit run ``run_id``) by ``by`` for ``reason``.

    Raises :class:`InputError` when there is nothing a person can clear (the task was not
    quarantined in that run), or ``by`` or ``reason`` is blank, too long, or holds a control,
    bidirectional or invisible character (a line break in ``reason`` is a space).
    """
    by, reason = by.strip(), " ".join(reason.split())
    for field, value, most in (("--by", by, MAX_BY_CHARS), ("--reason", reason, MAX_REASON_CHARS)):
        if not value:
            raise InputError(
                "is empty", field=field, fix="say who cleared the task and why, in a few words"
            )
        if (found := LINE_CONTROLS.search(value)) is not None:
            raise InputError(
                f"holds {found.group()!a}, a control, bidirectional or invisible character "
                "(it would change how every report that shows the clearance reads)",
                field=field,
                fix="write it as plain text on one line",
            )
        if len(value) > most:
            raise InputError(
                f"is {len(value)} characters long", field=field, fix=f"keep it to {most}"
            )
    where = f"{audited.task_id} in audit run {run_id}"
    if audited.decision is Decision.REJECTED:
        raise InputError(
            f"{where} was rejected: an error finding is a defect, not something to clear",
            fix="fix the task and audit it again",
        )
    if audited.decision is Decision.ERROR:
        raise InputError(
            f"{where} could not be audited (error): there is no verdict to clear",
            fix="audit it again",
        )
    held = held_keys(audited)
    if audited.decision is not Decision.QUARANTINED or not held:
        raise InputError(
            f"{where} was {audited.decision.value}: nothing holds it for review",
            fix="only a quarantined task is cleared",
        )
    return Clearance(
        task_id=audited.task_id,
        task_version=audited.task_version,
        run_id=run_id,
        findings=held,
        by=by,
        reason=reason,
        cleared_at=at,
    )


def apply_clearances(report: AuditReport, clearances: Iterable[Clearance]) -> AuditReport:
    """``report`` with every quarantined task accepted whose findings that need a person were
    all cleared for the audited version, each with a ``review`` finding that says by whom."""
    by_version: dict[tuple[str, str], list[Clearance]] = {}
    for clearance in clearances:
        by_version.setdefault((clearance.task_id, clearance.task_version), []).append(clearance)
    if not by_version:
        return report
    tasks = tuple(
        _apply(audited, by_version.get((audited.task_id, audited.task_version), []))
        for audited in report.tasks
    )
    return report.model_copy(update={"tasks": tasks})


def _apply(audited: TaskAudit, clearances: list[Clearance]) -> TaskAudit:
    # each finding that holds the task, as a clearance names it (the task's directory written
    # <task>) and as it is shown, which is how clearances kept before that named it
    held = [{key, shown} for key, shown in zip(held_keys(audited), held_by(audited), strict=True)]
    if audited.decision is not Decision.QUARANTINED or not held or not clearances:
        return audited
    used = [c for c in clearances if any(keys & set(c.findings) for keys in held)]
    covered = {key for c in used for key in c.findings}
    if not all(keys & covered for keys in held):
        return audited
    named = set().union(*held)
    notes = tuple(
        Finding(
            check=CHECK,
            severity=Severity.INFO,
            message=f"cleared by {c.by} on {c.cleared_at:%Y-%m-%d}: {c.reason}",
            evidence=f"quarantined by audit run {c.run_id} for: "
            + "; ".join(key for key in c.findings if key in named),
        )
        for c in used
    )
    return audited.model_copy(
        update={"findings": (*audited.findings, *notes), "decision": Decision.ACCEPTED}
    )
