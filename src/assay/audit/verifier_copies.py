"""Tasks judged by the same verifier data, whatever their words: the set checks' second look.

A prompt can be reworded and a function renamed; the hidden cases and the shape of the
reference stay. A family that can say what judges a task (:class:`FingerprintFamily`) gives
fingerprints of it that survive renaming and rewording. The code and repo families give one for
each hidden case, of its inputs and outcome, and code one for its reference's alpha-renamed
syntax tree when the cases are too few (:mod:`assay.families.code.fingerprints`).

Two tasks are copies when they share a fingerprint of their whole verifier (a reference), or
most of their cases: more than :data:`COPY_PERCENT` of the smaller task's, and
:data:`MIN_SHARED_CASES` at least. A copy with cases added or dropped is still one, and so is a
copy of a task of six cases or more with one of them changed; two tasks that share only a few
trivial cases (an empty list) are not.

The pairs are found through an index from each fingerprint to the tasks having it, looked up
with only the rarest of a task's cases, as many as a copy cannot miss all of (a prefix filter):
a case that many tasks share is not looked up for a task that has rarer ones, so the work stays
near linear in the tasks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol, runtime_checkable

from assay.errors import UnknownFamilyError
from assay.families import get_family
from assay.tasks.model import Task
from assay.tasks.spec import Split

CASE = "case"
"""The part of a fingerprint that stands for one hidden case."""
COPY_PERCENT = 80
"""Share of the smaller task's case fingerprints, in percent, that two copies have more than in
common: two tasks of five cases sharing four are not copies, of ten sharing nine are."""
MIN_SHARED_CASES = 3
"""Case fingerprints that two copies have in common at least."""
_SHOWN = 4
"""Shared fingerprints the evidence names."""


@runtime_checkable
class FingerprintFamily(Protocol):
    """A family that fingerprints what judges its tasks, for the duplicates and contamination
    checks. A family without it is compared by its prompts only."""

    name: str

    def verifier_fingerprints(self, task: Task) -> set[str]:
        """Fingerprints of ``task``'s verifier data, each ``<part>:<digest>``: ``case:...`` for
        each hidden case, any other part (``reference:...``) for the whole verifier; equal for
        a copy with renamed identifiers and reworded prompt; none for data too small to call a
        copy. Never raises: a malformed task has none (lint reports it)."""
        ...


@dataclass(frozen=True)
class SharedVerifier:
    """Two tasks judged by the same verifier data: ``first`` sorts before ``second``."""

    first: str
    second: str
    shared: tuple[str, ...]
    """The fingerprints both have, sorted."""
    cases: tuple[int, int] = (0, 0)
    """How many case fingerprints ``first`` and ``second`` have in all."""

    @property
    def reason(self) -> str:
        """What they share, in words: ``judged by the same cases``, ``judged by 9 shared cases
        of 10 and 11``, ``judged by the same reference``."""
        whole = sorted({mark.partition(":")[0] for mark in self.shared} - {CASE})
        parts = [f"the same {part}" for part in whole]
        if common := sum(mark.startswith(f"{CASE}:") for mark in self.shared):
            first, second = self.cases
            every = first == second == common
            parts.insert(
                0, "the same cases" if every else f"{common} shared cases of {first} and {second}"
            )
        return f"judged by {' and '.join(parts)}"

    @property
    def evidence(self) -> str:
        """The fingerprints they share, the first few of them."""
        more = len(self.shared) - _SHOWN
        rest = f" and {more} more" if more > 0 else ""
        return f"both have {', '.join(self.shared[:_SHOWN])}{rest}"


def verifier_fingerprints(task: Task) -> set[str]:
    """The fingerprints of ``task``'s verifier data; none when its family has no way to say."""
    try:
        family = get_family(task.family)
    except UnknownFamilyError:  # the load or lint reports it
        return set()
    return family.verifier_fingerprints(task) if isinstance(family, FingerprintFamily) else set()


def shared_verifiers(tasks: Sequence[Task]) -> list[SharedVerifier]:
    """The pairs of ``tasks`` judged by the same verifier data, sorted by ids: sharing a
    whole-verifier fingerprint, or most of their case fingerprints. Of tasks with the very same
    fingerprints, one stands for the others (a frozen one first, then by id): each other is
    paired with it alone, so that a thousand copies of one task are a thousand pairs, not half
    a million."""
    prints = {task.id: verifier_fingerprints(task) for task in tasks}
    same: defaultdict[frozenset[str], list[str]] = defaultdict(list)
    for task in sorted(tasks, key=held_first):
        if _enough(prints[task.id]):
            same[frozenset(prints[task.id])].append(task.id)
    pairs = {_ordered(ids[0], other) for ids in same.values() for other in ids[1:]}
    standing = {ids[0] for ids in same.values()} | {t for t, m in prints.items() if not _enough(m)}
    holders: defaultdict[str, set[str]] = defaultdict(set)
    for task_id in standing:
        for mark in prints[task_id]:
            holders[mark].add(task_id)
    for mark, ids in holders.items():
        if not mark.startswith(f"{CASE}:"):
            pairs.update(combinations(sorted(ids), 2))
    cases = {task_id: _cases(prints[task_id]) for task_id in standing}
    for task_id, mine in cases.items():
        pairs.update(_case_copies(task_id, mine, cases, holders))
    return [
        SharedVerifier(
            first,
            second,
            tuple(sorted(prints[first] & prints[second])),
            (len(_cases(prints[first])), len(_cases(prints[second]))),
        )
        for first, second in sorted(pairs)
    ]


def held_first(task: Task) -> tuple[bool, str]:
    """The order in which of several copies the first is the original: a task of the frozen
    split before the others (a copy of it elsewhere is what leaks), then by id."""
    return task.spec.split is not Split.FROZEN, task.id


def _ordered(one: str, other: str) -> tuple[str, str]:
    return (one, other) if one < other else (other, one)


def _cases(marks: set[str]) -> set[str]:
    return {mark for mark in marks if mark.startswith(f"{CASE}:")}


def _enough(marks: set[str]) -> bool:
    """Whether another task with the same fingerprints as ``marks`` is a copy: they hold a
    whole-verifier one, or enough cases."""
    cases = len(_cases(marks))
    return len(marks) > cases or (cases > 0 and cases >= _needed(cases))


def _needed(count: int) -> int:
    """Case fingerprints in common that make a copy of a task with ``count`` of them."""
    return max(MIN_SHARED_CASES, count * COPY_PERCENT // 100 + 1)


def _case_copies(
    task_id: str, mine: set[str], cases: dict[str, set[str]], holders: dict[str, set[str]]
) -> set[tuple[str, str]]:
    """The pairs of ``task_id`` with the tasks of at least as many cases sharing enough of
    ``mine``. Such a task has :func:`_needed` of them, so one of any ``len(mine) - needed + 1``:
    only the rarest so many are looked up."""
    needed = _needed(len(mine))
    if len(mine) < needed:
        return set()
    rarest = sorted(mine, key=lambda mark: (len(holders[mark]), mark))
    found: set[tuple[str, str]] = set()
    for mark in rarest[: len(mine) - needed + 1]:
        for other in holders[mark]:
            theirs = cases[other]
            if other != task_id and len(theirs) >= len(mine) and len(mine & theirs) >= needed:
                found.add((min(task_id, other), max(task_id, other)))
    return found
