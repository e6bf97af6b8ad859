"""The durable job queue's statements, written for any SQL database with transactions.

No statement relies on how SQLite locks: a job is claimed by a conditional ``UPDATE`` whose
``WHERE`` says the job is still free (pending, or its lease expired) and that re-checks it
row by row, so two runners that race for a job cannot both get it, on SQLite or on PostgreSQL
(where the ``UPDATE`` waits for the row and re-evaluates its condition). Each claim carries a
fresh token; a job is marked done only by the claim that holds it, in the same transaction that
keeps its verdict and trajectory, so an episode is counted at most once whatever happens to the
runners. Times are seconds since the epoch, passed in by the caller.

Each function takes a DB-API cursor or connection inside a transaction the caller opened.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from assay.store._storable import record_json
from assay.store.records import Finished, Job, JobCounts, NewJob

JOB_COLUMNS = (
    "job_id",
    "run_name",
    "task_id",
    "task_version",
    "sample",
    "policy",
    "mode",
    "attempts",
    "lease_token",
)
CLAIM_PENDING = (
    "UPDATE jobs SET state = 'running', lease_owner = ?, lease_token = ?, lease_expires = ?, "
    "claims = claims + 1 WHERE state = 'pending' AND not_before <= ? AND job_id IN ("
    "SELECT job_id FROM jobs WHERE run_name = ? AND state = 'pending' AND not_before <= ? "
    "ORDER BY job_id LIMIT ?)"
)
"""Pending jobs that wait for no retry, in order. The outer ``WHERE`` repeats the condition,
so that a row another runner took meanwhile is left alone (PostgreSQL re-evaluates it on the
row it waited for)."""
CLAIM_EXPIRED = (
    "UPDATE jobs SET lease_owner = ?, lease_token = ?, lease_expires = ?, "
    "claims = claims + 1 WHERE state = 'running' AND lease_expires < ? AND job_id IN ("
    "SELECT job_id FROM jobs WHERE run_name = ? AND state = 'running' AND lease_expires < ? "
    "ORDER BY job_id LIMIT ?)"
)
"""Jobs whose lease has expired: their runner stopped renewing it."""
CLAIMED = (
    "SELECT job_id, run_name, task_id, task_version, sample, policy, mode, attempts, "
    "lease_token FROM jobs WHERE lease_token = ? ORDER BY job_id"
)
INSERT_VERDICT = (
    "INSERT INTO verdicts (run_id, task_id, task_version, family_version, assay_version, "
    "solution, status, score, created_at, record, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class Cursor(Protocol):
    """The part of a DB-API cursor used here."""

    rowcount: int

    def fetchall(self) -> list[Any]:
        """Every row."""
        ...


class Database(Protocol):
    """The part of a DB-API connection used here."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any:
        """Run one statement."""
        ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any:
        """Run one statement for each of ``rows``."""
        ...


def add_jobs(db: Database, run: str, jobs: Iterable[NewJob]) -> None:
    """Queue ``jobs`` for ``run``, in order, read one at a time."""
    db.executemany(
        "INSERT INTO jobs (run_name, task_id, task_version, sample, policy, mode, state) "
        "VALUES (?, ?, ?, ?, ?, ?, 'pending')",
        ((run, job.task_id, job.task_version, job.sample, job.policy, job.mode) for job in jobs),
    )


def claim(
    db: Database, run: str, *, owner: str, claim_id: str, limit: int, lease_s: float, now: float
) -> list[Job]:
    """Take up to ``limit`` free jobs of ``run`` under a lease that ends ``lease_s`` from now."""
    lease = (owner, claim_id, now + lease_s, now, run, now)
    claimed = db.execute(CLAIM_PENDING, (*lease, limit)).rowcount
    if claimed < limit:
        db.execute(CLAIM_EXPIRED, (*lease, limit - claimed))
    rows = db.execute(CLAIMED, (claim_id,)).fetchall()
    return [Job.model_validate(dict(zip(JOB_COLUMNS, row, strict=True))) for row in rows]


def renew(db: Database, run: str, owner: str, *, lease_s: float, now: float) -> int:
    """Extend every lease ``owner`` holds in ``run``; returns how many."""
    cursor = db.execute(
        "UPDATE jobs SET lease_expires = ? WHERE run_name = ? AND state = 'running' "
        "AND lease_owner = ?",
        (now + lease_s, run, owner),
    )
    return int(cursor.rowcount)


def release(db: Database, run: str, owner: str) -> int:
    """Give back the jobs of ``run`` that ``owner`` holds, without counting an attempt."""
    cursor = db.execute(
        "UPDATE jobs SET state = 'pending', lease_owner = NULL, lease_token = NULL, "
        "lease_expires = NULL WHERE state = 'running' AND run_name = ? AND lease_owner = ?",
        (run, owner),
    )
    return int(cursor.rowcount)


def lease_owners(db: Database, run: str) -> list[str]:
    """Owners holding leases in ``run`` now."""
    rows = db.execute(
        "SELECT DISTINCT lease_owner FROM jobs WHERE run_name = ? AND state = 'running'", (run,)
    ).fetchall()
    return [str(row[0]) for row in rows if row[0] is not None]


def retry_later(db: Database, job: Job, *, error: str, not_before: float) -> bool:
    """Put a job that ended in error back in the queue, not before ``not_before``; False when
    the claim no longer holds it."""
    cursor = db.execute(
        "UPDATE jobs SET state = 'pending', lease_owner = NULL, lease_token = NULL, "
        "lease_expires = NULL, attempts = attempts + 1, not_before = ?, last_error = ? "
        "WHERE job_id = ? AND lease_token = ? AND state = 'running'",
        (not_before, error[:2000], job.job_id, job.lease_token),
    )
    return int(cursor.rowcount) == 1


def finish(db: Database, finished: Finished, *, created_at: str) -> bool:
    """Mark the job done and keep its verdict and trajectory; False (and nothing kept) when the
    claim no longer holds it, because its lease expired and another runner took it."""
    job, trajectory = finished.job, finished.trajectory
    verdict = trajectory.verdict
    cursor = db.execute(
        "UPDATE jobs SET state = 'done', status = ?, lease_owner = NULL, lease_token = NULL, "
        "lease_expires = NULL, attempts = attempts + ?, last_error = COALESCE(?, last_error) "
        "WHERE job_id = ? AND lease_token = ? AND state = 'running'",
        (
            verdict.status.value,
            0 if finished.error is None else 1,
            finished.error,
            job.job_id,
            job.lease_token,
        ),
    )
    if int(cursor.rowcount) != 1:
        return False
    db.execute(
        INSERT_VERDICT,
        (
            job.run_name,
            verdict.task_id,
            verdict.versions.task,
            verdict.versions.family,
            verdict.versions.assay,
            job.policy,
            verdict.status.value,
            verdict.score,
            verdict.created_at.isoformat(),
            record_json(verdict),
            job.sample,
        ),
    )
    [(verdict_id,)] = db.execute(
        "SELECT id FROM verdicts WHERE run_id = ? AND task_id = ? AND sample = ?",
        (job.run_name, job.task_id, job.sample),
    ).fetchall()
    cost = trajectory.cost
    db.execute(
        "INSERT INTO trajectories (run_name, task_id, sample, episode_id, verdict_id, status, "
        "input_tokens, output_tokens, usd, sandbox_cpu_s, wall_s, record) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            job.run_name,
            job.task_id,
            job.sample,
            trajectory.episode_id,
            verdict_id,
            verdict.status.value,
            cost.input_tokens,
            cost.output_tokens,
            cost.usd,
            cost.sandbox_cpu_s,
            cost.wall_s,
            record_json(trajectory),
        ),
    )
    return True


def reopen_errors(db: Database, run: str) -> int:
    """Queue again, with fresh attempts, the jobs of ``run`` that ended in error or whose
    verdict has no score (see :func:`unscored`); their verdicts and trajectories are removed
    (the last error stays on the job)."""
    reopened = unscored(db, run)
    for task_id, sample in reopened:
        db.execute(
            "DELETE FROM trajectories WHERE run_name = ? AND task_id = ? AND sample = ?",
            (run, task_id, sample),
        )
        db.execute(
            "DELETE FROM verdicts WHERE run_id = ? AND task_id = ? AND sample = ?",
            (run, task_id, sample),
        )
        db.execute(
            "UPDATE jobs SET state = 'pending', status = NULL, attempts = 0, not_before = 0 "
            "WHERE run_name = ? AND task_id = ? AND sample = ? AND state = 'done'",
            (run, task_id, sample),
        )
    db.execute(
        "DELETE FROM trajectories WHERE run_name = ? AND status = 'error'",
        (run,),
    )
    db.execute(
        "DELETE FROM verdicts WHERE run_id = ? AND sample IS NOT NULL AND status = 'error'",
        (run,),
    )
    cursor = db.execute(
        "UPDATE jobs SET state = 'pending', status = NULL, attempts = 0, not_before = 0 "
        "WHERE run_name = ? AND state = 'done' AND status = 'error'",
        (run,),
    )
    return int(cursor.rowcount) + len(reopened)


UNSCORED = (
    "SELECT task_id, sample, record FROM verdicts WHERE run_id = ? AND sample IS NOT NULL "
    "AND status != 'error' "
    "AND record LIKE '%\"score\\_error\":%' ESCAPE '\\' "
    "AND record NOT LIKE '%\"score\\_error\":null%' ESCAPE '\\' "
    "AND record NOT LIKE '%\"score\\_error\": null%' ESCAPE '\\' "
    "ORDER BY task_id, sample"
)
"""The kept verdicts of a run that may hold a ``score_error``: a cheap filter in SQL, each match
then read whole to be sure (the key could be text inside another field)."""


def unscored(db: Database, run: str) -> list[tuple[str, int]]:
    """The (task id, sample) of the episodes of ``run`` kept with a pass or fail but no score:
    a rubric's judge could not be reached after every attempt (``score_error``). Like an
    error, such an episode is infrastructure's failure, to be run again."""
    rows = db.execute(UNSCORED, (run,)).fetchall()
    found = []
    for task_id, sample, record in rows:
        try:
            score_error = json.loads(record).get("score_error")
        except (ValueError, AttributeError):
            continue  # not a verdict record: it cannot be read as one anywhere else either
        if score_error is not None:
            found.append((str(task_id), int(sample)))
    return found


def counts(db: Database, run: str, *, now: float) -> JobCounts:
    """Where the jobs of ``run`` are. A job whose lease expired is held by no one (its runner
    was killed, or lost the store): it is counted as waiting to be claimed, not as leased."""
    rows = db.execute(
        "SELECT state, status, not_before > ?, lease_expires >= ?, COUNT(*) FROM jobs "
        "WHERE run_name = ? GROUP BY state, status, not_before > ?, lease_expires >= ?",
        (now, now, run, now, now),
    ).fetchall()
    tally = dict.fromkeys(("total", "done", "pass", "fail", "error", "running", "waiting"), 0)
    for state, status, waiting, held, number in rows:
        tally["total"] += number
        if state == "done":
            tally["done"] += number
            tally[str(status)] += number
        elif state == "running":
            tally["running"] += number if held else 0
        elif waiting:
            tally["waiting"] += number
    return JobCounts(
        total=tally["total"],
        done=tally["done"],
        passed=tally["pass"],
        failed=tally["fail"],
        errors=tally["error"],
        leased=tally["running"],
        retrying=tally["waiting"],
    )
