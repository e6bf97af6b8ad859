"""A run whose runner was killed: its jobs are not reported as held once their leases expired."""

from __future__ import annotations

from pathlib import Path

from assay.store import NewJob, Store


def test_jobs_of_a_runner_whose_lease_expired_are_not_counted_as_held(tmp_path: Path) -> None:
    jobs = [
        NewJob(task_id=f"t{i}", task_version="v", sample=0, policy="reference", mode="tools")
        for i in range(3)
    ]
    with Store(tmp_path / "q.db") as store:
        store.create_rollout("r", {"k": 1}, jobs)
        store.claim_jobs("r", owner="gone:1:x", claim_id="c1", limit=2, lease_s=60, now=100)
        assert store.job_counts("r", now=150).leased == 2
        later = store.job_counts("r", now=161)  # nothing renewed them: the runner was killed
    assert (later.total, later.done, later.leased, later.retrying) == (3, 0, 0, 0)
    assert later.unfinished == 3
