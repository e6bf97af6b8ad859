"""The audit report: per-task results and totals, as records (the command line renders them)."""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from assay.audit.drift import Drift
from assay.findings import Decision, Finding, Severity
from assay.profiles import TaskProfile
from assay.verdicts import Status


class SolutionResult(BaseModel):
    """How one solution of a task fared in the audit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    solution: str = Field(
        description="reference, reference-<label>, bad-<label>, empty, or one of these with a "
        "hidden case changed: reference (sensitivity <case>)."
    )
    status: Status = Field(description="The verdict's status.")
    score: float = Field(ge=0, le=1, description="The verdict's score, in [0, 1].")
    summary: str = Field(description="The verdict's one-line summary.")


class SurvivingMutant(BaseModel):
    """A mutant of the reference that the verifier could not tell from the reference."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="What the mutation did (``flip < to <=``, say).")
    diff: str = Field(description="The mutant against the reference, as a unified diff.")


class MutationResult(BaseModel):
    """What the mutants of a task's reference came to (the ``mutation`` check)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    killed: int = Field(ge=0, description="Mutants the verifier failed, as it must.")
    errors: int = Field(ge=0, description="Mutants whose verification ended in error; uncounted.")
    score: float | None = Field(
        ge=0, le=1, description="killed / (killed + survivors); null when no mutant was decided."
    )
    survivors: tuple[SurvivingMutant, ...] = Field(
        default=(), description="Every mutant that passed the verifier."
    )


class ExploitResult(BaseModel):
    """A known reward hack that the verifier did not fail (the ``red-team`` check)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="The exploit's name (``always-equal``, say).")
    what: str = Field(description="What the exploit does, in a few words.")
    status: Status = Field(description="The verdict it got: pass, or error twice.")
    summary: str = Field(description="The verdict's one-line summary.")
    code: str = Field(description="The exploit's files, each after a ``--- path`` line.")


class RedTeamResult(BaseModel):
    """The exploits tried on a task, and the ones that won."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tried: int = Field(ge=0, description="Exploits verified against the task.")
    won: tuple[ExploitResult, ...] = Field(
        default=(), description="Exploits that passed or turned their fail into an error."
    )


class TaskAudit(BaseModel):
    """The audit of one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="Task id, or the directory name if the task did not load.")
    task_version: str = Field(description="Content version audited; empty if it did not load.")
    path: str = Field(description="The task directory.")
    decision: Decision = Field(
        description="accepted; quarantined: held until a person clears it; rejected; or error: "
        "the task could not be audited (infrastructure)."
    )
    findings: tuple[Finding, ...] = Field(default=(), description="What the checks found.")
    solutions: tuple[SolutionResult, ...] = Field(default=(), description="Verdicts on solutions.")
    mutation: MutationResult | None = Field(
        default=None, description="Mutation score and survivors; null when no mutant was run."
    )
    red_team: RedTeamResult | None = Field(
        default=None, description="Exploits tried and won; null when none was tried."
    )
    profile: TaskProfile | None = Field(
        default=None,
        description="The task's pass rate in the profile the audit joined (--profile), when it "
        "was profiled at the audited version; null otherwise.",
    )
    checks_run: tuple[str, ...] | None = Field(
        default=None,
        description="The checks that ran to their end on this task, in order: a check the "
        "audit has that stopped early (the task unreadable, a container needed, a failure) or "
        "never came to it is not here, and a finding of it in an earlier audit did not go "
        "away. Null in reports before format 4.",
    )

    @property
    def known_bad(self) -> int:
        """Known-bad solutions the task carries."""
        return sum(s.solution.startswith("bad-") for s in self.solutions)

    @property
    def known_bad_caught(self) -> int:
        """Known-bad solutions that failed, as they must."""
        return sum(
            s.solution.startswith("bad-") and s.status is Status.FAIL for s in self.solutions
        )


REPORT_FORMAT = 4
"""The version of the audit report's JSON: 2 added ``format``, ``diversity`` and each finding's
``review``; 3 added each task's ``mutation``, ``red_team`` and ``profile``, the report's
``profile_run`` and the diversity's ``drift`` from seed tasks; 4 added each task's
``checks_run`` and bounded a solution's ``score`` to [0, 1], as a verdict's is. Every addition
is optional, so an earlier report still reads. The schema is ``docs/audit-report.schema.json``."""


class Diversity(BaseModel):
    """How the audited set spreads: tasks per family, split, difficulty, locale and tag."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tasks: int = Field(ge=0, description="Tasks that loaded.")
    families: dict[str, int] = Field(default_factory=dict, description="Tasks per family.")
    splits: dict[str, int] = Field(default_factory=dict, description="Tasks per split.")
    difficulties: dict[str, int] = Field(
        default_factory=dict, description="Tasks per difficulty ('unset' where none is given)."
    )
    locales: dict[str, int] = Field(
        default_factory=dict, description="Tasks per locale ('unset' where none is given)."
    )
    tags: dict[str, int] = Field(
        default_factory=dict, description="Tasks per tag (templates, styles, categories)."
    )
    evenness: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Shannon entropy of the tags' spread over its maximum: 1 when every tag "
        "labels as many tasks, near 0 when one tag labels nearly all; None without two tags.",
    )
    drift: Drift | None = Field(
        default=None,
        description="How far the set moved from the seed tasks it was expanded from "
        "(--seed-tasks); null when no seeds were given (and before format 3).",
    )


class AuditReport(BaseModel):
    """One audit run over a task set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = Field(
        default=REPORT_FORMAT,
        description="Version of this report's layout: 2 added format, diversity and each "
        "finding's review; 3 each task's mutation, red_team and profile, the report's "
        "profile_run and the diversity's drift; 4 each task's checks_run, and a solution's "
        "score bounded to [0, 1]. A reader of format N reads every earlier one.",
    )
    run_id: str = Field(description="Unique id of this audit run.")
    root: str = Field(description="The directory audited.")
    started_at: datetime = Field(description="When the run started (UTC).")
    finished_at: datetime = Field(description="When the run finished (UTC).")
    checks: tuple[str, ...] = Field(description="Names of the checks applied.")
    tasks: tuple[TaskAudit, ...] = Field(description="One entry per task directory.")
    diversity: Diversity | None = Field(
        default=None, description="How the tasks that loaded spread (absent before format 2)."
    )
    profile_run: str | None = Field(
        default=None,
        description="The rollout run whose pass rates the audit joined (--profile); null when "
        "none was (and before format 3).",
    )

    def count(self, decision: Decision) -> int:
        """How many tasks ended with ``decision``."""
        return sum(t.decision is decision for t in self.tasks)

    @property
    def known_bad(self) -> int:
        """Known-bad solutions across the set."""
        return sum(t.known_bad for t in self.tasks)

    @property
    def known_bad_caught(self) -> int:
        """Known-bad solutions that failed, across the set."""
        return sum(t.known_bad_caught for t in self.tasks)

    @property
    def all_accepted(self) -> bool:
        """Whether every task was accepted."""
        return all(t.decision is Decision.ACCEPTED for t in self.tasks)


def decide(findings: list[Finding], *, unfinished: bool = False) -> Decision:
    """Any error found in the task rejects it. Otherwise a task that could not be checked
    whole (``unfinished``: the sandbox, a verifier or assay failed) is ``error``, which says
    nothing about the task: audit it again. Otherwise a finding that needs a person
    (``review``) quarantines the task, and without one the task is accepted.
    """
    if any(f.severity is Severity.ERROR for f in findings):
        return Decision.REJECTED
    if unfinished:
        return Decision.ERROR
    if any(f.review for f in findings):
        return Decision.QUARANTINED
    return Decision.ACCEPTED


def held_by(audited: TaskAudit) -> tuple[str, ...]:
    """The findings that need a person, each as ``check: message``, as the report shows them."""
    return tuple(f"{f.check}: {f.message}" for f in audited.findings if f.review)


def held_keys(audited: TaskAudit) -> tuple[str, ...]:
    """The findings that need a person as a clearance names them: :func:`held_by`'s, the task's
    directory written ``<task>`` (:func:`path_free`), so that a later audit that spells the
    directory another way (``tasks/x``, ``/home/me/tasks/x``) still finds them the same."""
    return tuple(
        f"{f.check}: {path_free(f.message, audited.path)}" for f in audited.findings if f.review
    )


def path_free(message: str, path: str) -> str:
    """``message`` with ``path`` (a task's directory as the audit spelt it) written ``<task>``
    where it names the directory or a file in it (followed by ``/`` or ``:``, or at the end),
    and nowhere else: a directory called ``.`` or ``t`` leaves the dots and t's of the words
    alone."""
    if not path:
        return message
    return re.sub(rf"(?<![\w./-]){re.escape(path)}(?=[/:]|$)", "<task>", message)


def quarantine_lines(report: AuditReport) -> list[str]:
    """The quarantined tasks, one line each with the first finding that holds it, under a line
    that says how a person clears them."""
    held = [t for t in report.tasks if t.decision is Decision.QUARANTINED]
    if not held:
        return []
    lines = [
        f"quarantined ({len(held)}), kept out of exports until a person clears them "
        f"(`assay clear TASK --run {report.run_id} --by NAME --reason TEXT`):"
    ]
    for task in held:
        reasons = held_by(task)
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        reason = reasons[0] if reasons else "see its findings"
        lines.append(f"  {_one_line(task.task_id)}: {_one_line(reason)}{more}")
    return lines


REASON_CHARS = 300
"""Characters of a task id or of a finding shown in a line of :func:`quarantine_lines`."""


def _one_line(text: str) -> str:
    """``text`` on one line (line breaks written ``\\n``), cut at :data:`REASON_CHARS`: a
    finding can quote a task's file names, which may hold a line break and a line that reads
    like one of the totals."""
    flat = text.replace("\r", "\\r").replace("\n", "\\n")
    if len(flat) <= REASON_CHARS:
        return flat
    return f"{flat[:REASON_CHARS]}[... {len(flat) - REASON_CHARS} more]"


def summary_line(report: AuditReport) -> str:
    """One line of totals."""
    errored = report.count(Decision.ERROR)
    unaudited = f", {errored} could not be audited (error)" if errored else ""
    held = report.count(Decision.QUARANTINED)
    quarantined = f", {held} quarantined for review" if held else ""
    return (
        f"{len(report.tasks)} tasks: {report.count(Decision.ACCEPTED)} accepted, "
        f"{report.count(Decision.REJECTED)} rejected{quarantined}{unaudited}; "
        "known-bad solutions caught: "
        f"{report.known_bad_caught}/{report.known_bad}"
    )
