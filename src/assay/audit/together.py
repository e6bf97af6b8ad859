"""A task set's own solutions verified together, several tasks to a batch, before the checks.

Every task of an audit needs its references verified (and, when those checks run, its known-bad
solutions and the empty submission), one or two sandbox jobs a task however small the solution;
the flaky check verifies the references and known-bad solutions again under each of its
conditions, a job a condition. The audit takes the tasks :data:`WINDOW` at a time, and first
verifies these solutions of the whole window in batches that mix tasks
(:func:`assay.families.base.verify_confirmed`, for the families that batch), the varied runs in
batches of one set of conditions each; each task's checks then find their verdicts already
given, as they find the ones an earlier check gave (:meth:`AuditContext.keep`,
:meth:`AuditContext.keep_varied`).

A batch is only for programs of one origin: here the task set's own solutions, written by its
author, as the checks of one task batch its own. A verdict from a batch that would be a finding
is verified again alone, as the checks do it: a reference's fail, a known-bad's or the empty
submission's pass; the varied runs are taken as the flaky check takes its own (a verdict that
changes between runs is its finding). A verdict of ``error`` is not kept (the check asks
again), and neither is anything of a task whose family cannot be read (its checks report that)
or of a batch that raised (the sandbox failed, or the family did on one of its tasks).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import cast

from assay.audit.base import AuditContext
from assay.audit.flaky import CONDITIONS, conditioned, own_solutions, varied_run
from assay.errors import AssayError
from assay.families import family_of
from assay.families.base import BatchFamily, Family, verify_confirmed
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Status, Verdict

WINDOW = 256
"""Tasks whose own solutions are verified together before their checks run."""
RUNS_A_BATCH = 16
"""Solutions a batch takes at most (fewer where a window would not keep every thread busy)."""


@dataclass
class Given:
    """What the window gave one task: verdicts on its solutions, and its solutions' statuses
    under the flaky check's varied conditions (by the index of the conditions)."""

    verdicts: list[tuple[Files, Verdict]] = field(default_factory=list)
    varied: list[tuple[int, Files, Status]] = field(default_factory=list)

    def give(self, task: Task, context: AuditContext) -> None:
        """Hand all of it to ``task``'s context, for its checks to find."""
        for files, verdict in self.verdicts:
            context.keep(task, files, verdict)
        for conditions, files, status in self.varied:
            context.keep_varied(conditions, files, status)


Kept = dict[int, Given]
"""A task's id (``id(task)``) to what the window gave it."""


@dataclass(frozen=True)
class _Chunk:
    """Solutions verified in one batch: plain (``conditions`` None) or all under one of the
    flaky check's conditions, each pair with the status that would be a finding (plain)."""

    family: Family
    conditions: int | None
    items: list[tuple[Task, Task, Files, Status]]
    """(the task, the task as verified, the solution, the status that would be a finding)."""


def verify_together(
    tasks: Sequence[tuple[Task, str]],
    sandbox: Sandbox,
    threads: Executor,
    checks: set[str],
    workers: int,
) -> Kept:
    """The verdicts on the own solutions of ``tasks`` (each with its path) that the checks
    named in ``checks`` verify (``reference``, ``known-bad``, ``empty``), and with ``flaky``
    the statuses of the references and known-bad solutions under each of its conditions (the
    cases reordered as it reorders them), by task, in batches spread over ``threads``
    (``workers`` of them)."""
    groups: dict[tuple[int, int | None], list[tuple[Task, Task, Files, Status]]] = {}
    families: dict[int, Family] = {}
    for task, path in tasks:
        try:
            family = family_of(task, Path(path))
            own = _own(task, family, checks)
            varied = _varied(task, family) if "flaky" in checks else []
        except (AssayError, ValueError):
            continue  # the task's own checks say what is wrong
        if not isinstance(family, BatchFamily):
            continue
        families[id(family)] = family
        if own:
            groups.setdefault((id(family), None), []).extend((task, task, f, s) for f, s in own)
        for index, run, files in varied:
            groups.setdefault((id(family), index), []).append((task, run, files, Status.PASS))
    # Two batches a thread at least, where the window has enough for that.
    total = sum(map(len, groups.values()))
    size = max(1, min(RUNS_A_BATCH, -(-total // (2 * max(1, workers)))))
    # The groups' chunks taken in turn: a pool runs one set of conditions on one worker, so
    # the chunks of one set in a row would wait for each other while the CPUs idle.
    lanes = [
        [
            _Chunk(families[key], conditions, group[start : start + size])
            for start in range(0, len(group), size)
        ]
        for (key, conditions), group in groups.items()
    ]
    chunks = [chunk for turn in zip_longest(*lanes) for chunk in turn if chunk is not None]
    kept: Kept = {}
    for chunk, verdicts in zip(
        chunks, threads.map(lambda c: _verify(c, sandbox), chunks), strict=True
    ):
        for (task, _, files, _), verdict in zip(chunk.items, verdicts, strict=False):
            if verdict.status is Status.ERROR:
                continue
            given = kept.setdefault(id(task), Given())
            if chunk.conditions is None:
                given.verdicts.append((files, verdict))
            else:
                given.varied.append((chunk.conditions, files, verdict.status))
    return kept


def _varied(task: Task, family: Family) -> list[tuple[int, Task, Files]]:
    """The flaky check's varied runs of ``task``: (the conditions' index, the task as it runs
    under them, the solution)."""
    solutions = own_solutions(task)
    runs = [(index, varied_run(task, family, index)) for index in range(len(CONDITIONS))]
    return [(index, run, files) for index, run in runs for files in solutions.values()]


def _own(task: Task, family: Family, checks: set[str]) -> list[tuple[Files, Status]]:
    """The solutions of ``task`` that ``checks`` verify, each with the status that would be a
    finding."""
    own = []
    if "reference" in checks:
        own += [(files, Status.FAIL) for files in task.references().values()]
    if "known-bad" in checks:
        own += [(files, Status.PASS) for files in task.known_bad().values()]
    if "empty" in checks:
        own.append((family.empty_solution(task), Status.PASS))
    return own


def _verify(chunk: _Chunk, sandbox: Sandbox) -> list[Verdict]:
    """The chunk's verdicts; none when it could not be verified (each task's checks then
    verify their own, and what fails is reported on the task it fails on). Plain verdicts
    that would be findings are verified again alone; varied ones are taken as the flaky
    check takes its own, from batches (a change between runs is its finding)."""
    items = [(run, files) for _, run, files, _ in chunk.items]
    try:
        if chunk.conditions is not None:
            family = cast(BatchFamily, chunk.family)
            return family.verify_many(items, conditioned(sandbox, chunk.conditions))
        return verify_confirmed(
            chunk.family, items, sandbox, findings=[finding for *_, finding in chunk.items]
        )
    except Exception:  # noqa: BLE001 - one task's surprise must not end the audit
        return []
