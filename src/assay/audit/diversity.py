"""The spread of a task set over families, splits, difficulties, locales and tags, reported
with every audit (``diversity`` in the JSON report): a set generated from a few templates, in one
locale and one style, trains one habit, and the numbers show it before a run does. Given the seed
tasks the set was expanded from, also how far it drifted from them (:mod:`assay.audit.drift`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from assay.audit.drift import drift
from assay.audit.report import Diversity
from assay.tasks.model import Task
from assay.tasks.taskset import TaskSet

UNSET = "unset"


def diversity(tasks: Sequence[Task], seeds: TaskSet | None = None) -> Diversity:
    """The counts of ``tasks`` by each label, how evenly the tags spread, and with ``seeds``
    (at least one task) the drift from them."""
    # a tag a task names twice labels one task: counted once, as the drift counts it
    tags = Counter(tag for task in tasks for tag in dict.fromkeys(task.spec.tags))
    return Diversity(
        tasks=len(tasks),
        families=_sorted(Counter(task.spec.family for task in tasks)),
        splits=_sorted(Counter(task.spec.split.value for task in tasks)),
        difficulties=_sorted(Counter(task.spec.difficulty or UNSET for task in tasks)),
        locales=_sorted(Counter(task.spec.locale or UNSET for task in tasks)),
        tags=_sorted(tags),
        evenness=_evenness(tags),
        drift=None if seeds is None else drift(tasks, seeds.tasks, str(seeds.root)),
    )


def _sorted(counts: Counter[str]) -> dict[str, int]:
    """Most common first, ties by name, so that reports diff cleanly."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _evenness(counts: Counter[str]) -> float | None:
    if len(counts) < 2:
        return None
    total = sum(counts.values())
    entropy = -sum(n / total * math.log(n / total) for n in counts.values())
    return round(entropy / math.log(len(counts)), 4)
