"""A run of many episodes is queued in the memory of a few, not of all of them."""

from __future__ import annotations

import sqlite3
import tracemalloc
from pathlib import Path

from assay.runs import RunSpec, start_run
from assay.store import Store
from tests.runs.conftest import median_tasks

K = 50_000
"""The largest k ``assay run`` takes is 100,000: a task set of a hundred tasks at it is ten
million episodes, which a list of them all took ten gigabytes to queue."""


def test_queueing_a_run_of_many_episodes_does_not_hold_them_all(tmp_path: Path) -> None:
    tasks = median_tasks(2)
    spec = RunSpec.of(tasks, root="tasks", policy="reference", k=K, mode="tools")
    with Store(tmp_path / "assay.db") as store:
        tracemalloc.start()
        try:
            start_run(store, "many", spec)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        counts = store.job_counts("many", now=0)
    assert counts.total == 2 * K
    assert peak < 16 * 2**20, f"queueing {2 * K} jobs took {peak / 2**20:.0f} MiB"
    # every task at sample 0, then every task at sample 1, ...: the queue's order
    with sqlite3.connect(tmp_path / "assay.db") as db:
        first = db.execute("SELECT task_id, sample FROM jobs ORDER BY job_id LIMIT 3").fetchall()
        last = db.execute(
            "SELECT task_id, sample FROM jobs ORDER BY job_id DESC LIMIT 1"
        ).fetchall()
    assert first == [("median-0", 0), ("median-1", 0), ("median-0", 1)]
    assert last == [("median-1", K - 1)]
