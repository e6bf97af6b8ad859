"""Drawing a task for a session: filters, mixture weights across families, a curriculum band.

Pass rates come from a profile written by ``assay profile --json``: a curriculum prefers the
candidates whose measured rate lies in its band, so that rollouts go where they teach. Frozen
tasks are drawn only when the spec asks for the frozen split by name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import ValidationError

from assay.errors import InputError
from assay.profiles import Profile
from assay.server.models import SamplingSpec
from assay.tasks.model import Task
from assay.tasks.spec import Split


def draw(
    tasks: Sequence[Task],
    spec: SamplingSpec,
    pass_rates: Mapping[str, float],
    rng: random.Random | None = None,
) -> Task:
    """One task matching ``spec``; raises :class:`InputError` when none does."""
    rng = random.Random(spec.seed) if spec.seed is not None else (rng or random.Random())
    candidates = [task for task in tasks if _matches(task, spec)]
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


def _matches(task: Task, spec: SamplingSpec) -> bool:
    if spec.family is not None and task.family != spec.family:
        return False
    split = task.spec.split
    if spec.split is None:
        if split is Split.FROZEN:
            return False
    elif split.value != spec.split:
        return False
    return all(tag in task.spec.tags for tag in spec.tags)


def load_pass_rates(path: Path) -> dict[str, float]:
    """Each task's measured pass rate from a profile (``assay profile --json``); tasks with no
    scored sample are left out. Raises :class:`InputError` naming the file when it is not one."""
    try:
        profile = Profile.model_validate_json(Path(path).read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror or exc}", path=path) from None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "(the file)"
        raise InputError(
            f"not a profile: {where}: {error['msg']}",
            path=path,
            fix="write one with `assay profile TASKS --policy ... --json FILE`",
        ) from None
    return {task.task_id: task.pass_rate for task in profile.tasks if task.pass_rate is not None}
