"""Drawing a task for a session: filters, mixture weights across families, a curriculum band.

Pass rates come from a stored profile (a run of ``assay profile``): a curriculum prefers the
candidates whose measured rate lies in its band, so that rollouts go where they teach. Frozen
tasks are drawn only when the spec asks for the frozen split by name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from assay.errors import InputError
from assay.families import family_of, version_label
from assay.profiles import RunProfile
from assay.server.models import SamplingSpec
from assay.tasks.model import Task


def draw(
    tasks: Sequence[Task],
    spec: SamplingSpec,
    pass_rates: Mapping[str, float],
    rng: random.Random | None = None,
) -> Task:
    """One task matching ``spec``; raises :class:`InputError` when none does."""
    # A seed as text: random.Random(-n) is random.Random(n), and two seeds must be two draws.
    rng = random.Random(f"draw:{spec.seed}") if spec.seed is not None else (rng or random.Random())
    wanted = frozenset(spec.tags)
    candidates = [task for task in tasks if _matches(task, spec, wanted)]
    if spec.weights:
        candidates = [task for task in candidates if spec.weights.get(task.family, 0) > 0]
    if not candidates:
        raise InputError(
            "no task matches the sampling spec", field="sample", fix="widen family, split or tags"
        )
    if spec.curriculum is not None:
        band = spec.curriculum
        preferred = [
            task
            for task in candidates
            if task.id in pass_rates and band.low <= pass_rates[task.id] <= band.high
        ]
        candidates = preferred or candidates
    if spec.weights:
        families = sorted({task.family for task in candidates})
        family = rng.choices(families, weights=[spec.weights[name] for name in families])[0]
        candidates = [task for task in candidates if task.family == family]
    return rng.choice(sorted(candidates, key=lambda task: task.id))


def _matches(task: Task, spec: SamplingSpec, wanted: frozenset[str]) -> bool:
    """Whether ``task`` passes the spec's filters; ``wanted`` is its tags as a set, made once
    per draw, so that a spec naming a tag thousands of times costs a set, not thousands of
    comparisons per task (the draw runs on the server's event loop)."""
    if spec.family is not None and task.family != spec.family:
        return False
    if not task.spec.split.drawn_for(spec.split):
        return False
    return wanted <= frozenset(task.spec.tags)


def current_pass_rates(profiled: RunProfile, tasks: Sequence[Task]) -> dict[str, float]:
    """Each task's pass rate in a stored profile, for the tasks whose content is still the
    version the profile measured (a rate says nothing about another version of a task); tasks
    with no scored sample are left out."""
    current = {task.id: task.content_version(version_label(family_of(task))) for task in tasks}
    return {
        task.task_id: task.pass_rate
        for task in profiled.profile.tasks
        if task.pass_rate is not None
        and current.get(task.task_id) is not None
        and current[task.task_id] == profiled.versions.get(task.task_id)
    }
