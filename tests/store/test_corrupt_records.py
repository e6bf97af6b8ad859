"""A store whose records were changed by something else: reading them is refused in one line
that names the file and the record, never a crash; the records around them still read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay.errors import StoreError
from assay.store import Finished, Store
from tests.store.test_jobs import JOBS, trajectory


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    db = tmp_path / "q.db"
    with Store(db) as store:
        store.create_rollout("r", {"k": 2}, JOBS)
        jobs = store.claim_jobs("r", owner="a", claim_id="t", limit=2, lease_s=60, now=100)
        store.finish_jobs([Finished(job=job, trajectory=trajectory(job)) for job in jobs])
    return db


def _corrupt(db: Path, statement: str) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute(statement)


@pytest.mark.parametrize(
    ("statement", "read", "said"),
    [
        (
            "UPDATE trajectories SET record = '{\"format\": 1}' WHERE task_id = 't0'",
            lambda store: store.episodes("r"),
            "the record of the trajectory of t0 sample 0 cannot be read (episode_id: Field",
        ),
        (
            "UPDATE verdicts SET record = 'not json' WHERE task_id = 't1'",
            lambda store: store.verdicts(run_id="r"),
            "the record of verdict 2 cannot be read (record: Invalid JSON",
        ),
        (
            "UPDATE runs SET spec = '{' WHERE name = 'r'",
            lambda store: store.runs(),
            "the record of run 'r' cannot be read",
        ),
    ],
)
def test_a_record_changed_outside_assay_is_one_line_naming_the_file_and_record(
    kept: Path, statement: str, read: object, said: str
) -> None:
    _corrupt(kept, statement)
    with Store(kept) as store, pytest.raises(StoreError) as caught:
        read(store)  # type: ignore[operator]
    assert str(caught.value).startswith(f"{kept}: {said}")
    assert "\n" not in str(caught.value)


def test_the_records_around_a_corrupt_one_still_read(kept: Path) -> None:
    _corrupt(kept, "UPDATE trajectories SET record = 'x' WHERE task_id = 't0'")
    with Store(kept) as store:
        [other] = store.episodes("r", task_id="t1")
        assert other.trajectory.task_id == "t1"
        assert len(store.verdicts(run_id="r")) == 2
