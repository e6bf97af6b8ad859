"""How far a generated task set moved from the seed tasks it was expanded from
(``assay audit --seed-tasks DIR``), reported with the set's diversity.

assay's own generators draw from template banks written in code, not from tasks, so they have no
seed tasks; a set expanded from tasks does (a model asked for more tasks like a handful of
written ones, variants of an imported benchmark, the next version of a release), and the audit is
told where those are. Two measures:

- **closeness**: each task's similarity to its nearest seed, the Jaccard similarity of their
  prompts' word 3-gram shingles (the near-duplicate measure of :mod:`assay.tasks.similarity`).
  At :data:`COPY` or above the task is a near copy of a seed: it adds nothing, and whatever
  split the seed is in, it is in too. Under :data:`FAR` it shares next to no phrasing with any
  seed: a new kind of task, to be checked against what the seeds were meant to teach. For
  scale: two code tasks from different templates score about 0.03, two draws of one template
  about 0.6.
- **label shares**: for families, locales, difficulties and tags (templates, styles,
  categories), each label's share of the seeds and of the set, and the total variation distance
  between the two mixes: 0 when the set keeps the seeds' mix, 1 when no label is in both.

What they say about single tasks becomes findings of the ``drift`` check (:func:`drift_findings`,
applied to the tasks still in the running after the other checks): a near copy of a seed is a
warning a person must review (it adds nothing, and a model that saw the seed has seen it, so it
is quarantined like a near duplicate inside the set), and a task far from every seed is an info
finding (a new kind of task, which decides nothing). A task nearest to the seed of its own id is
that seed, kept or in its next version, and no copy of it. Label shares describe the set, not a
task, and stay in the report.

Every task is compared with every seed, exactly, one set intersection a pair: 1,900 generated
code tasks against 190 seeds (361,000 pairs) took 3.2 s on a 2-core machine with other work on
it, so 50,000 tasks against 500 seeds (25 million pairs) is a few minutes beside an audit of
hours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from statistics import median

from pydantic import BaseModel, ConfigDict, Field

from assay.findings import Finding, Severity
from assay.tasks.model import Task
from assay.tasks.similarity import DUPLICATE_SIMILARITY, shingles

COPY = DUPLICATE_SIMILARITY
"""Similarity to the nearest seed from which a task is a near copy of it."""
FAR = 0.2
"""Similarity to the nearest seed under which a task shares next to no phrasing with any seed."""
BINS = 10
"""Buckets of the closeness histogram, each a tenth wide (the last includes 1)."""
UNSET = "unset"
LABEL_KINDS = ("families", "locales", "difficulties", "tags")
CHECK = "drift"


class SeedMatch(BaseModel):
    """A task and the seed closest to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="The task.")
    seed_id: str = Field(description="The seed whose prompt is most like the task's.")
    similarity: float = Field(ge=0, le=1, description="Jaccard similarity of their shingles.")


class LabelShare(BaseModel):
    """One label's share of the seeds and of the set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str = Field(description="The label ('unset' for a task without one).")
    seeds: float = Field(ge=0, le=1, description="Share of the seed tasks with the label.")
    tasks: float = Field(ge=0, le=1, description="Share of the audited tasks with the label.")


class LabelDrift(BaseModel):
    """How the mix of one kind of label moved from the seeds to the set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    distance: float = Field(
        ge=0,
        le=1,
        description="Total variation distance between the seeds' and the set's mix of labels "
        "(each normalised to sum to 1): 0 the same mix, 1 no label in both.",
    )
    shares: tuple[LabelShare, ...] = Field(
        description="Every label of either side, the ones whose share moved most first."
    )


class Drift(BaseModel):
    """How far the audited set moved from its seed tasks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seeds_root: str = Field(description="The directory of seed tasks.")
    seeds: int = Field(ge=1, description="Seed tasks that loaded.")
    bins: tuple[int, ...] = Field(
        description=f"Tasks by similarity to their nearest seed, {BINS} buckets a tenth wide "
        "from 0 (the last includes 1)."
    )
    median: float | None = Field(
        ge=0, le=1, description="Median similarity to the nearest seed; null for no task."
    )
    copies: int = Field(
        ge=0,
        description=f"Tasks at least {COPY} similar to a seed: near copies of it (a task whose "
        "nearest seed has its own id is that seed, no copy).",
    )
    far: int = Field(ge=0, description=f"Tasks under {FAR} similar to every seed.")
    nearest: tuple[SeedMatch, ...] = Field(description="Each task's nearest seed, by task id.")
    labels: dict[str, LabelDrift] = Field(
        description="By kind of label (families, locales, difficulties, tags), how its mix moved."
    )


def drift(tasks: Sequence[Task], seeds: Sequence[Task], seeds_root: str) -> Drift:
    """How far ``tasks`` moved from ``seeds`` (at least one), by closeness and label shares."""
    if not seeds:
        raise ValueError("drift needs at least one seed task")
    seed_shingles = [(seed.id, frozenset(shingles(seed.prompt))) for seed in seeds]
    nearest = tuple(
        sorted((_nearest(task, seed_shingles) for task in tasks), key=lambda m: m.task_id)
    )
    closeness = [match.similarity for match in nearest]
    return Drift(
        seeds_root=seeds_root,
        seeds=len(seeds),
        bins=_bins(closeness),
        median=round(median(closeness), 4) if closeness else None,
        copies=sum(_copy(match) for match in nearest),
        far=sum(value < FAR for value in closeness),
        nearest=nearest,
        labels={kind: _label_drift(tasks, seeds, _LABELS[kind]) for kind in LABEL_KINDS},
    )


def drift_findings(measured: Drift, among: Iterable[str]) -> dict[str, list[Finding]]:
    """The ``drift`` check's findings for the tasks ``among`` (by id): a near copy of its
    nearest seed needs a person's review; a task far from every seed is noted. A task whose
    nearest seed has its own id is that seed (kept in the set, or its next version in a next
    release), not a copy of it."""
    keep = set(among)
    found: dict[str, list[Finding]] = {}
    for match in measured.nearest:
        if match.task_id not in keep:
            continue
        evidence = f"nearest seed {match.seed_id} in {measured.seeds_root}: {match.similarity:.2f}"
        if _copy(match):
            finding = Finding(
                check=CHECK,
                severity=Severity.WARNING,
                review=True,
                message=f"a near copy of seed {match.seed_id} (similarity {match.similarity:.2f} "
                f">= {COPY}): it adds nothing the seed does not, and a model that saw the seed "
                "has seen it; quarantined until a person keeps it or drops it",
                evidence=evidence,
            )
        elif match.similarity < FAR:
            finding = Finding(
                check=CHECK,
                severity=Severity.INFO,
                message=f"shares next to no phrasing with any seed (similarity under {FAR}): "
                "a new kind of task, to be checked against what the seeds were meant to teach",
                evidence=evidence,
            )
        else:
            continue
        found[match.task_id] = [finding]
    return found


def _copy(match: SeedMatch) -> bool:
    """Whether the task is a near copy of its nearest seed, which is not the task itself."""
    return match.similarity >= COPY and match.seed_id != match.task_id


def _nearest(task: Task, seeds: Sequence[tuple[str, frozenset[str]]]) -> SeedMatch:
    """The seed most like ``task``: :func:`jaccard` of the shingles, with the union counted
    instead of built (the inner loop of the whole measure)."""
    mine = frozenset(shingles(task.prompt))
    size = len(mine)
    best_id, best = seeds[0][0], -1.0
    for seed_id, theirs in seeds:
        shared = len(mine & theirs)
        union = size + len(theirs) - shared
        similarity = shared / union if union else 0.0
        if similarity > best:
            best_id, best = seed_id, similarity
    return SeedMatch(task_id=task.id, seed_id=best_id, similarity=round(best, 4))


def _bins(values: Iterable[float]) -> tuple[int, ...]:
    counts = [0] * BINS
    for value in values:
        counts[min(BINS - 1, int(value * BINS))] += 1
    return tuple(counts)


_LABELS: dict[str, Callable[[Task], tuple[str, ...]]] = {
    "families": lambda task: (task.spec.family,),
    "locales": lambda task: (task.spec.locale or UNSET,),
    "difficulties": lambda task: (task.spec.difficulty or UNSET,),
    "tags": lambda task: tuple(dict.fromkeys(task.spec.tags)),
}


def _label_drift(
    tasks: Sequence[Task], seeds: Sequence[Task], labels: Callable[[Task], tuple[str, ...]]
) -> LabelDrift:
    ours = Counter(label for task in tasks for label in labels(task))
    theirs = Counter(label for seed in seeds for label in labels(seed))
    shares = [
        LabelShare(
            label=label,
            seeds=round(theirs[label] / len(seeds), 4),
            tasks=round(ours[label] / len(tasks), 4) if tasks else 0.0,
        )
        for label in ours.keys() | theirs.keys()
    ]
    shares.sort(key=lambda s: (-abs(s.tasks - s.seeds), s.label))
    return LabelDrift(distance=_total_variation(ours, theirs), shares=tuple(shares))


def _total_variation(first: Counter[str], second: Counter[str]) -> float:
    """Half the summed differences of the two normalised mixes; 0 when either is empty."""
    a, b = sum(first.values()), sum(second.values())
    if not a or not b:
        return 0.0
    moved = sum(abs(first[label] / a - second[label] / b) for label in first.keys() | second.keys())
    return round(min(1.0, moved / 2), 4)
