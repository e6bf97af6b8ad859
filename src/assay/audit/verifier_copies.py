"""Tasks judged by the same verifier data, whatever their words: the set checks' second look.

A prompt can be reworded and a function renamed; the hidden cases and the shape of the
reference stay. A family that can say what judges a task (:class:`FingerprintFamily`) gives
fingerprints of it that survive renaming and rewording; two tasks sharing one are copies. The
code and repo families fingerprint their hidden cases' inputs and outcomes, and code its
reference's alpha-renamed syntax tree (:mod:`assay.families.code.fingerprints`).
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


@runtime_checkable
class FingerprintFamily(Protocol):
    """A family that fingerprints what judges its tasks, for the duplicates and contamination
    checks. A family without it is compared by its prompts only."""

    name: str

    def verifier_fingerprints(self, task: Task) -> set[str]:
        """Fingerprints of ``task``'s verifier data, each ``<part>:<digest>`` (``cases:...``,
        ``reference:...``), equal for a copy with renamed identifiers and reworded prompt;
        none for data too small to call a copy. Never raises: a malformed task has none
        (lint reports it)."""
        ...


@dataclass(frozen=True)
class SharedVerifier:
    """Two tasks with some of the same verifier fingerprints: ``first`` sorts before ``second``."""

    first: str
    second: str
    shared: tuple[str, ...]
    """The fingerprints both have, sorted."""

    @property
    def reason(self) -> str:
        """What they share, in words: ``judged by the same cases and reference``."""
        parts = sorted({mark.partition(":")[0] for mark in self.shared})
        return f"judged by the same {' and '.join(parts)}"

    @property
    def evidence(self) -> str:
        """The fingerprints they share."""
        return f"both have {', '.join(self.shared)}"


def verifier_fingerprints(task: Task) -> set[str]:
    """The fingerprints of ``task``'s verifier data; none when its family has no way to say."""
    try:
        family = get_family(task.family)
    except UnknownFamilyError:  # the load or lint reports it
        return set()
    return family.verifier_fingerprints(task) if isinstance(family, FingerprintFamily) else set()


def shared_verifiers(tasks: Sequence[Task]) -> list[SharedVerifier]:
    """Every pair of ``tasks`` sharing a verifier fingerprint, sorted by ids."""
    holders: defaultdict[str, set[str]] = defaultdict(set)
    for task in tasks:
        for mark in verifier_fingerprints(task):
            holders[mark].add(task.id)
    shared: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    for mark, ids in holders.items():
        for pair in combinations(sorted(ids), 2):
            shared[pair].add(mark)
    return [SharedVerifier(*pair, tuple(sorted(prints))) for pair, prints in sorted(shared.items())]
