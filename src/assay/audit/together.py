"""A task set's own solutions verified together, several tasks to a batch, before the checks.

Every task of an audit needs its references verified (and, when those checks run, its known-bad
solutions and the empty submission), one or two sandbox jobs a task however small the solution.
The audit takes the tasks :data:`WINDOW` at a time, and first verifies these solutions of the
whole window in batches that mix tasks (:func:`assay.families.base.verify_confirmed`, for the
families that batch); each task's checks then find their verdicts already given, as they find
the ones an earlier check gave (:meth:`AuditContext.keep`).

A batch is only for programs of one origin: here the task set's own solutions, written by its
author, as the checks of one task batch its own. A verdict from a batch that would be a finding
is verified again alone, as the checks do it: a reference's fail, a known-bad's or the empty
submission's pass. A verdict of ``error`` is not kept (the check asks again), and neither is
anything of a task whose family cannot be read (its checks report that) or of a batch that
raised (the sandbox failed, or the family did on one of its tasks).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path

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

Kept = dict[int, list[tuple[Files, Verdict]]]
"""A task's id (``id(task)``) to the verdicts given on its solutions."""


def verify_together(
    tasks: Sequence[tuple[Task, str]],
    sandbox: Sandbox,
    threads: Executor,
    checks: set[str],
    workers: int,
) -> Kept:
    """The verdicts on the own solutions of ``tasks`` (each with its path) that the checks
    named in ``checks`` verify (``reference``, ``known-bad``, ``empty``), by task, in batches
    spread over ``threads`` (``workers`` of them)."""
    items: dict[int, list[tuple[Task, Files, Status]]] = {}  # by family, as id(family)
    families: dict[int, Family] = {}
    for task, path in tasks:
        try:
            family = family_of(task, Path(path))
            own = _own(task, family, checks)
        except (AssayError, ValueError):
            continue  # the task's own checks say what is wrong
        if isinstance(family, BatchFamily) and own:
            families[id(family)] = family
            items.setdefault(id(family), []).extend((task, files, f) for files, f in own)
    # Two batches a thread at least, where the window has enough for that.
    size = max(1, min(RUNS_A_BATCH, -(-sum(map(len, items.values())) // (2 * max(1, workers)))))
    chunks = [
        (families[key], group[start : start + size])
        for key, group in items.items()
        for start in range(0, len(group), size)
    ]
    kept: Kept = {}
    for (_, chunk), verdicts in zip(
        chunks, threads.map(lambda c: _verify(c[0], c[1], sandbox), chunks), strict=True
    ):
        for (task, files, _), verdict in zip(chunk, verdicts, strict=False):
            if verdict.status is not Status.ERROR:
                kept.setdefault(id(task), []).append((files, verdict))
    return kept


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


def _verify(
    family: Family, chunk: list[tuple[Task, Files, Status]], sandbox: Sandbox
) -> list[Verdict]:
    """The chunk's verdicts; none when it could not be verified (each task's checks then
    verify their own, and what fails is reported on the task it fails on)."""
    try:
        return verify_confirmed(
            family,
            [(task, files) for task, files, _ in chunk],
            sandbox,
            findings=[finding for _, _, finding in chunk],
        )
    except Exception:  # noqa: BLE001 - one task's surprise must not end the audit
        return []
