"""Runs of a few small median tasks, in-process and as ``assay run`` subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from assay.policies import Policy
from assay.runs import Outcome, RunnerOptions, RunSpec, run_rollouts, start_run
from assay.sandbox import Sandbox
from assay.store import JobCounts, Store
from assay.tasks import Task, save_task
from tests.conftest import make_median_task
from tests.policies.server import ModelServer, serve

FAST = RunnerOptions(max_sandboxes=2, max_requests=4, backoff_s=0.01, poll_s=0.05)


def median_tasks(count: int = 3) -> list[Task]:
    return [make_median_task(f"median-{i}") for i in range(count)]


def run_tasks(
    store: Store,
    name: str,
    tasks: Sequence[Task],
    policy: Policy,
    sandbox: Sandbox,
    *,
    k: int = 2,
    mode: str = "tools",
    options: RunnerOptions = FAST,
) -> tuple[JobCounts, list[Outcome]]:
    """Start (or resume) run ``name`` and run it to the end in this process."""
    spec = RunSpec.of(tasks, root="tasks", policy=policy.spec, k=k, mode=mode)  # type: ignore[arg-type]
    start_run(store, name, spec)
    outcomes: list[Outcome] = []
    counts = run_rollouts(
        store,
        name,
        tasks={task.id: task for task in tasks},
        policy=policy,
        sandbox=sandbox,
        options=options,
        on_outcome=outcomes.append,
    )
    return counts, outcomes


def assert_each_episode_kept_once(db: Path, run: str, total: int) -> None:
    """Every job done, one verdict and one trajectory for each (task, sample), no more."""
    with Store(db) as store:
        verdicts = store.verdicts(run_id=run)
        episodes = store.episodes(run)
        counts = store.job_counts(run, now=0)
    keys = [(v.verdict.task_id, v.sample) for v in verdicts]
    assert len(keys) == len(set(keys)) == total
    assert sorted((e.trajectory.task_id, e.sample) for e in episodes) == sorted(keys)
    assert (counts.total, counts.done, counts.leased) == (total, total, 0)


@pytest.fixture
def tasks_dir(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    for task in median_tasks(3):
        save_task(task, root)
    return root


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    yield from serve()


def assay(*args: str, db: Path, **popen: object) -> subprocess.Popen[str]:
    """``assay ARGS --db DB`` as a subprocess, small caps."""
    env = {**os.environ, "ASSAY_DB": str(db), "ASSAY_MAX_SANDBOXES": "2"}
    return subprocess.Popen(  # type: ignore[call-overload,no-any-return]
        [sys.executable, "-m", "assay", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **popen,
    )


def finish(process: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err
