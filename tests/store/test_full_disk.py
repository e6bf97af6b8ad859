"""A store that fills its disk: the write that did not fit is refused in one line that says why,
and whatever was kept before is still there."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import StoreError
from assay.store import NewJob, Store


def _jobs(run: str, count: int) -> list[NewJob]:
    return [
        NewJob(task_id=f"{run}-{i}", task_version="v1", sample=0, policy="reference", mode="tools")
        for i in range(count)
    ]


def test_a_write_that_fills_the_disk_says_so_and_loses_nothing_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.create_rollout("kept", {"k": 1}, _jobs("kept", 3))
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
        with pytest.raises(StoreError) as caught:
            store.create_rollout("big", {"padding": "x" * 200_000}, _jobs("big", 2000))
        assert str(caught.value) == f"{path}: write failed: database or disk is full"
        store.mark_finished("kept")  # the connection is usable after it
    with Store(path) as store:
        assert store.run("big") is None
        assert store.job_counts("kept", now=0).total == 3
        assert store.run("kept") is not None
