"""The job queue in the store: claims exclude each other across connections, leases expire,
a job is finished once, by the claim that holds it, with its verdict and trajectory."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.episodes import Budget, Cost, EndReason, Trajectory
from assay.errors import InputError
from assay.policies import PolicyIdentity
from assay.store import Finished, Job, NewJob, Store, open_store
from assay.verdicts import Status, Timings, Verdict, Versions

JOBS = [
    NewJob(task_id=f"t{i}", task_version="v", sample=s, policy="reference", mode="tools")
    for s in range(2)
    for i in range(3)
]


def trajectory(job: Job, status: Status = Status.PASS) -> Trajectory:
    verdict = Verdict(
        task_id=job.task_id,
        status=status,
        score=1.0 if status is Status.PASS else 0.0,
        timings=Timings(wall_s=0.1),
        versions=Versions(task="v", family="code@1", assay="0"),
    )
    return Trajectory(
        episode_id=f"{job.task_id}-{job.sample}-{job.lease_token}",
        task_id=job.task_id,
        task_version="v",
        family="code@1",
        mode="tools",
        policy=PolicyIdentity(spec="reference", kind="reference"),
        prompt=(),
        budget=Budget(),
        end=EndReason.SUBMITTED,
        verdict=verdict,
        cost=Cost(input_tokens=3, output_tokens=2, sandbox_cpu_s=0.5, wall_s=1.0),
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    db = tmp_path / "q.db"
    with Store(db) as store:
        store.create_rollout("r", {"k": 2}, JOBS)
    return db


def test_two_connections_never_claim_the_same_job(path: Path) -> None:
    with Store(path) as one, Store(path) as two:
        first = one.claim_jobs("r", owner="a", claim_id="ta", limit=4, lease_s=60, now=100)
        second = two.claim_jobs("r", owner="b", claim_id="tb", limit=4, lease_s=60, now=100)
        third = one.claim_jobs("r", owner="a", claim_id="tc", limit=4, lease_s=60, now=100)
    assert len(first) == 4
    assert len(second) == 2
    assert third == []
    keys = [(j.task_id, j.sample) for j in first + second]
    assert len(set(keys)) == 6
    # sample 0 of every task comes before any sample 1
    assert [j.sample for j in first[:3]] == [0, 0, 0]


def test_an_expired_lease_is_claimed_again_and_the_old_claim_keeps_nothing(path: Path) -> None:
    with Store(path) as store:
        [old] = store.claim_jobs("r", owner="a", claim_id="t1", limit=1, lease_s=10, now=100)
        held = store.claim_jobs("r", owner="b", claim_id="t2", limit=6, lease_s=100, now=105)
        assert len(held) == 5  # every job but the one still leased
        [new] = store.claim_jobs("r", owner="b", claim_id="t3", limit=1, lease_s=10, now=111)
        assert (new.task_id, new.sample) == (old.task_id, old.sample)
        assert store.finish_jobs([Finished(job=old, trajectory=trajectory(old))]) == [False]
        assert store.verdicts(run_id="r") == []
        assert store.finish_jobs([Finished(job=new, trajectory=trajectory(new))]) == [True]
        assert store.finish_jobs([Finished(job=new, trajectory=trajectory(new))]) == [False]
        [kept] = store.verdicts(run_id="r")
        assert (kept.sample, kept.verdict.task_id) == (new.sample, new.task_id)
        counts = store.job_counts("r", now=111)
    assert (counts.total, counts.done, counts.passed) == (6, 1, 1)


def test_a_heartbeat_keeps_the_lease(path: Path) -> None:
    with Store(path) as store:
        [job] = store.claim_jobs("r", owner="a", claim_id="t1", limit=1, lease_s=10, now=100)
        assert store.renew_leases("r", "a", lease_s=10, now=108) == 1
        others = store.claim_jobs("r", owner="b", claim_id="t2", limit=6, lease_s=10, now=115)
    assert (job.task_id, job.sample) not in [(j.task_id, j.sample) for j in others]


def test_an_error_waits_for_its_retry_and_counts_an_attempt(path: Path) -> None:
    with Store(path) as store:
        [job] = store.claim_jobs("r", owner="a", claim_id="t1", limit=1, lease_s=10, now=100)
        assert store.retry_later(job, error="sandbox died", not_before=200)
        store.claim_jobs("r", owner="a", claim_id="t2", limit=6, lease_s=1000, now=150)
        assert store.job_counts("r", now=150).retrying == 1
        [again] = store.claim_jobs("r", owner="a", claim_id="t3", limit=6, lease_s=10, now=201)
    assert (again.task_id, again.sample, again.attempts) == (job.task_id, job.sample, 1)


def test_errors_are_kept_apart_and_reopened_on_resume(path: Path) -> None:
    with Store(path) as store:
        jobs = store.claim_jobs("r", owner="a", claim_id="t1", limit=6, lease_s=10, now=100)
        outcomes = [Status.PASS, Status.FAIL, Status.ERROR] * 2
        store.finish_jobs(
            [
                Finished(job=j, trajectory=trajectory(j, s), error="down" if s == "error" else None)
                for j, s in zip(jobs, outcomes, strict=True)
            ]
        )
        totals = store.episode_totals("r")
        assert (totals.passed, totals.failed, totals.errors, totals.pass_rate) == (2, 2, 2, 0.5)
        assert totals.input_tokens == 18
        assert totals.usd is None
        assert store.reopen_errors("r") == 2
        counts = store.job_counts("r", now=100)
        assert (counts.done, counts.errors) == (4, 0)
        assert [v.verdict.status for v in store.verdicts(run_id="r")].count(Status.ERROR) == 0
        assert len(store.episodes("r")) == 4


def test_a_store_is_opened_by_path_or_url_and_other_backends_are_named(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'u.db'}") as store:
        assert store.runs() == []
    assert (tmp_path / "u.db").is_file()
    with pytest.raises(InputError, match=r"db: no store backend for 'postgresql' URLs yet"):
        open_store("postgresql://localhost/assay")


def test_episodes_holding_text_a_database_cannot_hold_are_kept_together(path: Path) -> None:
    # One episode's end holds a lone surrogate: the whole batch being kept was lost with it.
    with Store(path) as store:
        jobs = store.claim_jobs("r", owner="a", claim_id="t1", limit=2, lease_s=60, now=100)
        odd = trajectory(jobs[1], Status.ERROR).model_copy(update={"end_detail": "bad \udcff byte"})
        kept = store.finish_jobs(
            [
                Finished(job=jobs[0], trajectory=trajectory(jobs[0])),
                Finished(job=jobs[1], trajectory=odd, error="bad \udcff byte"),
            ]
        )
        assert kept == [True, True]
        episodes = store.episodes("r")
    assert [e.trajectory.end_detail for e in episodes] == ["", "bad \ufffd byte"]


def test_a_sqlite_url_without_its_third_slash_is_named_as_such(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"'sqlite://runs\.db' names no file: a SQLite URL is"):
        open_store("sqlite://runs.db")
    with open_store(f"SQLite:///{tmp_path / 'u.db'}") as store:
        assert store.runs() == []
    assert (tmp_path / "u.db").is_file()
