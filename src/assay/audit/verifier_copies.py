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

Each task is paired with the first earlier original it copies (:func:`shared_verifiers`), found
through an index from each fingerprint to the originals having it, looked up with only the
rarest of a task's cases, as many as a copy cannot miss all of (a prefix filter): a case that
many tasks share is not looked up for a task that has rarer ones, so the work stays near linear
in the tasks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
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
    whole-verifier fingerprint, or most of their case fingerprints.

    The tasks are taken in :func:`held_first` order, each compared with the earlier originals:
    the tasks of the frozen split, and the others that copy no earlier one. A task is paired
    with the first original it copies, and only with it: a thousand copies of one task, or a
    template's thousand tasks that share most of their cases, are a thousand pairs, not half a
    million; a task that copies a frozen one is always paired with one it copies."""
    prints = {task.id: verifier_fingerprints(task) for task in tasks}
    cases = {task_id: case_fingerprints(marks) for task_id, marks in prints.items()}
    rarity: defaultdict[str, int] = defaultdict(int)
    for marks in cases.values():
        for mark in marks:
            rarity[mark] += 1
    index = _Originals(prints, cases, rarity)
    pairs = []
    for task in sorted(tasks, key=held_first):
        original = index.first_copied(task.id)
        if original is not None:
            pairs.append(_ordered(original, task.id))
        frozen = task.spec.split is Split.FROZEN
        if original is None or (frozen and prints[task.id] != prints[original]):
            index.add(task.id)  # a frozen task is an original unless another stands for it
    return [
        SharedVerifier(
            first,
            second,
            tuple(sorted(prints[first] & prints[second])),
            (len(cases[first]), len(cases[second])),
        )
        for first, second in sorted(pairs)
    ]


def judged_alike(
    first: str, theirs: set[str], second: str, mine: set[str]
) -> SharedVerifier | None:
    """What ``first`` (of fingerprints ``theirs``) and ``second`` (of ``mine``) share, when
    the second copies the first as :func:`shared_verifiers` has it; None when it does not."""
    their_cases, my_cases = case_fingerprints(theirs), case_fingerprints(mine)
    whole = (theirs - their_cases) & (mine - my_cases)
    common = their_cases & my_cases
    if not whole and len(common) < needed_cases(min(len(their_cases), len(my_cases))):
        return None
    return SharedVerifier(
        first, second, tuple(sorted(theirs & mine)), (len(their_cases), len(my_cases))
    )


class _Originals:
    """The originals so far, indexed for :meth:`first_copied`: by each of their fingerprints
    (for a task of no more cases than they have, looked up with the task's rarest cases), and
    by their own rarest cases (for a task of more cases, looked up with all of its cases)."""

    def __init__(
        self, prints: dict[str, set[str]], cases: dict[str, set[str]], rarity: dict[str, int]
    ) -> None:
        self.prints = prints
        self.cases = cases
        self.rarity = rarity
        self.order: dict[str, int] = {}
        self.by_mark: defaultdict[str, list[str]] = defaultdict(list)
        self.by_rarest: defaultdict[str, list[str]] = defaultdict(list)

    def add(self, task_id: str) -> None:
        """Make ``task_id`` an original."""
        self.order[task_id] = len(self.order)
        for mark in self.prints[task_id]:
            self.by_mark[mark].append(task_id)
        for mark in self._rarest(self.cases[task_id]):
            self.by_rarest[mark].append(task_id)

    def first_copied(self, task_id: str) -> str | None:
        """The earliest original that ``task_id`` copies, if any."""
        mine = self.cases[task_id]
        whole = self.prints[task_id] - mine
        found = {other for mark in whole for other in self.by_mark.get(mark, ())}
        found.update(other for mark in self._rarest(mine) for other in self.by_mark[mark])
        found.update(other for mark in mine for other in self.by_rarest.get(mark, ()))
        for other in sorted(found, key=self.order.__getitem__):
            theirs = self.cases[other]
            if not whole.isdisjoint(self.prints[other]) or len(mine & theirs) >= needed_cases(
                min(len(mine), len(theirs))
            ):
                return other
        return None

    def _rarest(self, mine: set[str]) -> list[str]:
        """The rarest of ``mine``, as many as a task sharing :func:`_needed` of them cannot
        miss all of; none when ``mine`` is too few to make a copy."""
        needed = needed_cases(len(mine))
        if len(mine) < needed:
            return []
        return sorted(mine, key=lambda mark: (self.rarity[mark], mark))[: len(mine) - needed + 1]


def held_first(task: Task) -> tuple[bool, str]:
    """The order in which of several copies the first is the original: a task of the frozen
    split before the others (a copy of it elsewhere is what leaks), then by id."""
    return task.spec.split is not Split.FROZEN, task.id


def _ordered(one: str, other: str) -> tuple[str, str]:
    return (one, other) if one < other else (other, one)


def case_fingerprints(marks: set[str]) -> set[str]:
    """Those of ``marks`` that stand for one hidden case each."""
    return {mark for mark in marks if mark.startswith(f"{CASE}:")}


def needed_cases(count: int) -> int:
    """Case fingerprints in common that make a copy of a task with ``count`` of them."""
    return max(MIN_SHARED_CASES, count * COPY_PERCENT // 100 + 1)
