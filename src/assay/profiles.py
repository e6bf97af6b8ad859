"""Pass-rate profiles: how often a policy solves each task, from the episodes of one run.

A profile is what triage needs: per task the samples, passes and errors, the pass rate, and the
unbiased estimators of pass@1 and pass@k (Chen et al., 2021); a histogram of pass rates; and
the tails: tasks no sample solved (``review``: broken, or harder than the policy can reach) and
tasks every sample solved (``too_easy``). Errors are infrastructure failures, not the policy's:
they are left out of every rate and reported beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import comb

from pydantic import BaseModel, ConfigDict, Field

BETWEEN = 10
"""Histogram buckets strictly between 0 and 1, each a tenth wide."""


@dataclass(frozen=True)
class Sample:
    """One finished episode of the run, as the profile sees it."""

    task_id: str
    sample: int
    status: str
    """``pass``, ``fail`` or ``error``."""


class TaskProfile(BaseModel):
    """The profile of one task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="The task's id.")
    samples: int = Field(ge=0, description="Finished episodes of the task.")
    passed: int = Field(ge=0, description="Episodes whose verdict passed.")
    errors: int = Field(ge=0, description="Episodes that ended in an infrastructure error.")
    pass_rate: float | None = Field(
        description="passed / (samples - errors); null when every sample ended in error."
    )
    pass_at_1: float | None = Field(
        description="Unbiased pass@1 over the scored samples (equal to the pass rate)."
    )
    pass_at_k: float | None = Field(
        description="Unbiased pass@k over the scored samples, k the run's samples per task; "
        "null when errors left fewer than k scored samples."
    )


class Bucket(BaseModel):
    """One bar of the histogram of pass rates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    low: float = Field(description="Lowest pass rate in the bucket (inclusive).")
    high: float = Field(
        description="Upper bound: equal to ``low`` for the buckets of exactly 0 and exactly 1, "
        "exclusive for the ten between (whose first also excludes 0)."
    )
    tasks: int = Field(ge=0, description="Tasks whose pass rate falls in the bucket.")


class Triage(BaseModel):
    """The tails of the distribution, for a person to look at."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    review: tuple[str, ...] = Field(
        description="Tasks at 0%: broken, or harder than the policy can reach; a person decides."
    )
    too_easy: tuple[str, ...] = Field(description="Tasks at 100%: nothing left to learn.")


class Profile(BaseModel):
    """A run's pass-rate profile, in the JSON shape ``assay profile --json`` writes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run: str = Field(description="The run the episodes belong to.")
    k: int = Field(ge=1, description="Samples per task the run asked for.")
    tasks: tuple[TaskProfile, ...] = Field(description="One entry per task, by task id.")
    histogram: tuple[Bucket, ...] = Field(
        description="Tasks by pass rate: exactly 0, ten buckets between, exactly 1; tasks with "
        "no scored sample are in none."
    )
    triage: Triage = Field(description="Tasks for review (0%) and too easy (100%).")


@dataclass(frozen=True)
class RunProfile:
    """A stored run's profile and the content version each of its tasks was run at (a profile
    says nothing about another version of a task)."""

    profile: Profile
    versions: dict[str, str]


def pass_at_k(scored: int, passed: int, k: int) -> float | None:
    """The unbiased estimator 1 - C(n-c, k) / C(n, k) for ``scored`` samples (n) of which
    ``passed`` (c) passed; None when n < k, where it is not defined."""
    if not 0 <= passed <= scored or k < 1:
        raise ValueError(
            f"pass@k needs 0 <= passed <= scored and k >= 1, got {passed}/{scored}, k={k}"
        )
    if scored < k:
        return None
    if scored - passed < k:
        return 1.0
    return 1.0 - comb(scored - passed, k) / comb(scored, k)


def task_profile(task_id: str, statuses: Iterable[str], k: int) -> TaskProfile:
    """The profile of one task from the statuses of its samples."""
    counted = list(statuses)
    passed = counted.count("pass")
    errors = counted.count("error")
    scored = len(counted) - errors
    rate = passed / scored if scored else None
    return TaskProfile(
        task_id=task_id,
        samples=len(counted),
        passed=passed,
        errors=errors,
        pass_rate=rate,
        pass_at_1=pass_at_k(scored, passed, 1) if scored else None,
        pass_at_k=pass_at_k(scored, passed, k),
    )


def histogram(tasks: Iterable[TaskProfile]) -> tuple[Bucket, ...]:
    """Buckets for exactly 0, ten between (``low <= rate < high``, the first above 0), and
    exactly 1; counted in whole numbers, so that 3 of 10 is in the 30% bucket, not below it.
    Tasks with no scored sample are in none."""
    counts = [0] * (BETWEEN + 2)
    for task in tasks:
        scored = task.samples - task.errors
        if scored == 0:
            continue
        if task.passed == 0:
            counts[0] += 1
        elif task.passed == scored:
            counts[-1] += 1
        else:
            counts[1 + task.passed * BETWEEN // scored] += 1
    edges = [(0.0, 0.0), *((i / BETWEEN, (i + 1) / BETWEEN) for i in range(BETWEEN)), (1.0, 1.0)]
    return tuple(
        Bucket(low=low, high=high, tasks=count)
        for (low, high), count in zip(edges, counts, strict=True)
    )


def build_profile(
    run: str, k: int, samples: Iterable[Sample], *, task_ids: Iterable[str] = ()
) -> Profile:
    """The profile of ``run`` (``k`` samples per task asked) from its finished episodes;
    ``task_ids`` are tasks to list even when none of their episodes has finished yet."""
    by_task: dict[str, list[str]] = {task_id: [] for task_id in task_ids}
    for sample in samples:
        if sample.status not in ("pass", "fail", "error"):
            raise ValueError(f"unknown status {sample.status!r} for {sample.task_id}")
        by_task.setdefault(sample.task_id, []).append(sample.status)
    tasks = tuple(task_profile(task, by_task[task], k) for task in sorted(by_task))
    return Profile(
        run=run,
        k=k,
        tasks=tasks,
        histogram=histogram(tasks),
        triage=Triage(
            review=tuple(t.task_id for t in tasks if t.pass_rate == 0),
            too_easy=tuple(t.task_id for t in tasks if t.pass_rate == 1),
        ),
    )


def histogram_lines(profile: Profile, width: int = 40) -> list[str]:
    """The histogram as plain text bars, one line a bucket: ``0%`` and ``100%`` are exactly 0
    and exactly 1; ``0-10%`` is above 0 and below 10%, ``90-100%`` at least 90% and below 1."""
    most = max((bucket.tasks for bucket in profile.histogram), default=0) or 1
    lines = []
    for bucket in profile.histogram:
        if bucket.low == bucket.high:
            label = f"{bucket.low:.0%}"
        else:
            label = f"{bucket.low * 100:.0f}-{bucket.high:.0%}"
        bar = "#" * round(width * bucket.tasks / most)
        lines.append(f"{label:>7} {bucket.tasks:>5}  {bar}".rstrip())
    return lines
