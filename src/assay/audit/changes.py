"""What changed between two audits of a task set (``assay audit --since RUN``).

Tasks are matched by id. A task's change is its decision before and after (None where the task
was not in that audit), whether its content version moved, and the findings that appeared or
went away, a finding being its check, severity and message. Info findings are left out of the
comparison: they note, they do not decide; but one that needs a person (``review``) quarantines,
and is compared like the others. A finding of a check the later audit did not run
(``--checks`` chose fewer) did not go away: it is set apart as not run this time. Nor did a
finding that a later audit which could not finish the task (``error``: a sandbox that failed
stops the checks after it) did not make again: it is set apart as unconfirmed. Nor did one of
a check that did not run to its end on the task in the later audit (its ``checks_run``, format
4: a task found unreadable, or needing a container, stops the checks there): not run.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from assay._text import one_line
from assay.audit.report import AuditReport, TaskAudit, path_free
from assay.findings import Decision, Finding, Severity


@dataclass(frozen=True)
class TaskChange:
    """How one task's audit differs from an earlier one."""

    task_id: str
    before: Decision | None
    after: Decision | None
    new_version: bool
    appeared: tuple[Finding, ...]
    went_away: tuple[Finding, ...]
    not_run: tuple[Finding, ...] = ()
    """Findings of the earlier audit by checks the later one did not run, or, where the later
    audit could not finish the task (``error``), that it did not make again: neither gone nor
    confirmed."""


@dataclass(frozen=True)
class AuditChanges:
    """The tasks whose audit changed since run ``since``, by task id."""

    since: str
    changes: tuple[TaskChange, ...]
    unchanged: int


def compare(
    since: str,
    before: Sequence[TaskAudit],
    after: AuditReport,
    checks: Collection[str] = (),
) -> AuditChanges:
    """The changes from the task audits ``before`` (audit run ``since``) to ``after``, where
    ``checks`` are the ids of the checks there are: an earlier finding of one of them that
    ``after`` did not run is set apart (``not_run``), not counted as gone."""
    old = {task.task_id: task for task in before}
    new = {task.task_id: task for task in after.tasks}
    unrun = frozenset(checks) - frozenset(after.checks)
    changes = []
    unchanged = 0
    for task_id in sorted(old.keys() | new.keys()):
        change = _change(task_id, old.get(task_id), new.get(task_id), unrun)
        if change is None:
            unchanged += 1
        else:
            changes.append(change)
    return AuditChanges(since=since, changes=tuple(changes), unchanged=unchanged)


def _change(
    task_id: str, old: TaskAudit | None, new: TaskAudit | None, unrun: frozenset[str]
) -> TaskChange | None:
    was = _deciding(old)
    now = _deciding(new)
    not_run = tuple(f for f in was if f.check in unrun) if new is not None else ()
    was = [f for f in was if f not in not_run]
    was_keys = {_key(f, old) for f in was}
    now_keys = {_key(f, new) for f in now}
    if new is not None:
        # what the later audit did not find again, it may never have looked for: an audit
        # that could not finish the task, or a check that did not run to its end on it (it
        # found the task unreadable, or needing a container, before it)
        ran = None if new.checks_run is None else frozenset(new.checks_run)
        unfinished = new.decision is Decision.ERROR
        not_run += tuple(
            f
            for f in was
            if _key(f, old) not in now_keys
            and (unfinished or (ran is not None and f.check not in ran))
        )
        was = [f for f in was if f not in not_run]
    change = TaskChange(
        task_id=task_id,
        before=None if old is None else old.decision,
        after=None if new is None else new.decision,
        new_version=old is not None and new is not None and old.task_version != new.task_version,
        appeared=tuple(f for f in now if _key(f, new) not in was_keys),
        went_away=tuple(f for f in was if _key(f, old) not in now_keys),
        not_run=not_run,
    )
    same = change.before == change.after and not change.appeared and not change.went_away
    return None if same and not change.new_version else change


def _deciding(audit: TaskAudit | None) -> list[Finding]:
    if audit is None:
        return []
    return [f for f in audit.findings if f.severity is not Severity.INFO or f.review]


def _key(finding: Finding, audit: TaskAudit | None) -> tuple[str, str, str]:
    """What identifies a finding across runs: its check, severity and message, the task's
    directory in the message as the audit spelt it left out (``tasks/x`` and ``/abs/tasks/x``
    are one directory)."""
    message = finding.message if audit is None else path_free(finding.message, audit.path)
    return finding.check, finding.severity.value, message


def change_lines(changes: AuditChanges) -> list[str]:
    """The changes as lines of text, one per task and one per finding under it."""
    lines = [
        f"since audit {changes.since}: {len(changes.changes)} tasks changed, "
        f"{changes.unchanged} unchanged"
    ]
    if _disjoint(changes):
        lines.append(
            f"  no task was in both audits: audit {changes.since} was of other tasks "
            "(another directory?), so every task shows as gone or new"
        )
    for change in changes.changes:
        before = "new" if change.before is None else change.before.value
        after = "gone" if change.after is None else change.after.value
        moved = " (new version)" if change.new_version else ""
        lines.append(f"  {one_line(change.task_id)}: {before} -> {after}{moved}")
        lines += [f"    + [{one_line(f.check)}] {one_line(f.message)}" for f in change.appeared]
        lines += [f"    - [{one_line(f.check)}] {one_line(f.message)}" for f in change.went_away]
        unknown = (
            "not confirmed: this audit could not finish the task"
            if change.after is Decision.ERROR
            else "not run this time"
        )
        lines += [
            f"    ? [{one_line(f.check)}] {one_line(f.message)} ({unknown})" for f in change.not_run
        ]
    return lines


def _disjoint(changes: AuditChanges) -> bool:
    """Whether the two audits had tasks and none in common: a comparison that says nothing
    about the tasks, only that another set was named."""
    found = changes.changes
    return (
        not changes.unchanged
        and any(c.before is None for c in found)
        and any(c.after is None for c in found)
        and all(c.before is None or c.after is None for c in found)
    )
