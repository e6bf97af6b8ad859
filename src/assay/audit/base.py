"""The audit-check extension point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from assay.audit.report import MutationResult, RedTeamResult
from assay.families.base import Family, verify_confirmed
from assay.findings import Finding
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Status, Verdict


@dataclass(frozen=True)
class SolutionVerdict:
    """A verdict on one of the task's own solutions (or a synthetic one such as ``empty``)."""

    solution: str
    verdict: Verdict


@dataclass(frozen=True)
class CheckOutcome:
    """What one check found about one task, and the verdicts it produced on the way."""

    findings: list[Finding] = field(default_factory=list)
    verdicts: list[SolutionVerdict] = field(default_factory=list)
    mutation: MutationResult | None = None
    """The ``mutation`` check's score and survivors, kept on the task's audit."""
    red_team: RedTeamResult | None = None
    """The ``red-team`` check's exploits tried and won, kept on the task's audit."""


_Key = tuple[int, tuple[tuple[str, bytes], ...]]
"""A verdict's place in :class:`AuditContext`: a task object's id (or the index of the flaky
check's conditions) and the solution's files, sorted."""


def _files(solution: Files) -> tuple[tuple[str, bytes], ...]:
    return tuple(sorted(solution.items()))


def _key(task: Task, solution: Files) -> _Key:
    return id(task), _files(solution)


@dataclass(frozen=True)
class AuditContext:
    """What a check may use: the task's family and a sandbox for untrusted code.

    One context serves the checks of one task, and keeps the verdicts it gave: several checks
    need the reference's verdict on the task as it is (to fit limits, as a precondition), and
    the known-bad solutions' are needed twice, so each is computed once unless a check asks for
    a ``fresh`` run. A verdict of ``error`` is never kept: infrastructure is asked again.

    A check may have a fresh verdict on the reference made along with its own verifications
    (:meth:`verify_many` with ``fresh_reference``): the next check that asks for a ``fresh`` one
    takes it instead of verifying again, once.
    """

    family: Family
    sandbox: Sandbox
    _kept: dict[_Key, tuple[Task, Verdict]] = field(default_factory=dict, repr=False, compare=False)
    _varied: dict[_Key, Status] = field(default_factory=dict, repr=False, compare=False)
    _spare: dict[_Key, tuple[Task, Verdict]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def verify(self, task: Task, solution: Files, *, fresh: bool = False) -> Verdict:
        """Verify ``solution`` with the task's family in the audit's sandbox; the verdict this
        context already gave on the same task object and files, unless ``fresh`` (then a fresh
        one made along with an earlier check's verifications, if there is one not yet taken)."""
        key = _key(task, solution)
        kept = self._spare.pop(key, None) if fresh else self._kept.get(key)
        if kept is not None and kept[0] is task:
            return kept[1]
        verdict = self.family.verify(task, solution, self.sandbox)
        self._keep(key, task, verdict)
        return verdict

    def verify_many(
        self,
        items: Sequence[tuple[Task, Files]],
        *,
        fresh_reference: tuple[Task, Files] | None = None,
    ) -> list[Verdict]:
        """:meth:`verify` on each (task, solution) pair, those without a verdict yet in batches
        where the family can (:class:`BatchFamily`: fewer sandbox jobs). A pass from a batch is
        verified again alone, so that every pass a check reports (a known-bad, a hack, a
        surviving mutant) is the verdict an agent's submission would get.

        With ``fresh_reference`` (a task and its reference), that pair is verified afresh in the
        same call, and its verdict is kept for the next :meth:`verify` of it with ``fresh`` (it
        is not returned). Where the family runs it with ``items`` (the code family shares one
        run between pairs that differ only in expected values, as the sensitivity probes of a
        task do), that fresh verdict costs no run of its own."""
        keys = [_key(task, solution) for task, solution in items]
        verdicts: list[Verdict | None] = []
        for key, (task, _solution) in zip(keys, items, strict=True):
            kept = self._kept.get(key)
            verdicts.append(kept[1] if kept is not None and kept[0] is task else None)
        missing = [index for index, verdict in enumerate(verdicts) if verdict is None]
        asked = [items[index] for index in missing]
        findings = [Status.PASS] * len(asked)
        if fresh_reference is not None:
            asked.insert(0, fresh_reference)
            findings.insert(0, Status.FAIL)  # a reference's finding is a fail
        got = verify_confirmed(self.family, asked, self.sandbox, findings=findings)
        if fresh_reference is not None:
            task, solution = fresh_reference
            spare = got.pop(0)
            if spare.status is not Status.ERROR:
                self._spare[_key(task, solution)] = (task, spare)
        for index, verdict in zip(missing, got, strict=True):
            self._keep(keys[index], items[index][0], verdict)
            verdicts[index] = verdict
        return [verdict for verdict in verdicts if verdict is not None]

    def keep(self, task: Task, solution: Files, verdict: Verdict) -> None:
        """Take ``verdict`` as this context's on ``solution`` for ``task`` (given elsewhere:
        the audit verifies a task set's own solutions together, several tasks a batch)."""
        self._keep(_key(task, solution), task, verdict)

    def keep_varied(self, conditions: int, solution: Files, status: Status) -> None:
        """Take ``status`` as the task's verdict on ``solution`` under the flaky check's
        conditions ``conditions`` (an index of :data:`assay.audit.flaky.CONDITIONS`), given
        elsewhere: the audit runs a window's varied runs together. ``error`` is not kept."""
        if status is not Status.ERROR:
            self._varied[conditions, _files(solution)] = status

    def varied(self, conditions: int, solution: Files) -> Status | None:
        """The status :meth:`keep_varied` took for ``solution`` under ``conditions``, if any."""
        return self._varied.get((conditions, _files(solution)))

    def _keep(self, key: _Key, task: Task, verdict: Verdict) -> None:
        if verdict.status is not Status.ERROR:
            self._kept[key] = (task, verdict)  # the task is held, so its id is not reused


@runtime_checkable
class AuditCheck(Protocol):
    """One QA check over one task. Built-ins register through the ``assay.audit_checks``
    entry-point group, like third-party checks.
    """

    name: str
    """Stable name shown on findings (``known-bad``)."""

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Examine ``task``. Problems with the task are findings. Raise
        :class:`assay.errors.InputError` when the task cannot be read at all (the audit reports
        it once and runs no later check on the task); anything else raised means the check
        could not run, and leaves the task undecided (``error``).
        """
        ...
