"""The results store on SQLite: runs of both kinds, verdicts, the job queue and trajectories.

One file, opened in WAL mode so that several runner processes can share it; every write is one
transaction (``BEGIN IMMEDIATE``, so a writer waits for the lock instead of failing late). A
write that still finds the database locked after ``timeout_s`` raises :class:`StoreBusyError`,
which callers that can wait (the runner) retry.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from assay.audit.clearance import Clearance
from assay.audit.report import AuditReport, TaskAudit
from assay.episodes.records import Trajectory
from assay.errors import StoreError
from assay.store import _jobs
from assay.store._schema import (
    SCHEMA_VERSION,
    migrate,
    refuse_foreign,
    rollback,
    schema_version,
)
from assay.store._storable import record_json, storable_row
from assay.store.records import (
    EpisodeTotals,
    Finished,
    FrozenPrint,
    Job,
    JobCounts,
    NewJob,
    RunKind,
    RunRecord,
    StoredEpisode,
    StoredRun,
    StoredVerdict,
)
from assay.verdicts import Verdict

__all__ = ["SCHEMA_VERSION", "Store", "StoreBusyError"]

R = TypeVar("R", bound=BaseModel)


class StoreBusyError(StoreError):
    """The database stayed locked by another writer for longer than the store waits."""


class Store:
    """Results database. Opening creates the file and its tables, or migrates an older file."""

    def __init__(self, path: Path, *, timeout_s: float = 30.0, read_only: bool = False) -> None:
        """``read_only``: open the file as it is, for reading, on media that cannot be written
        (nothing is created, migrated or written; a store of an older schema is refused)."""
        self.path = Path(path)
        self._lock = threading.RLock()
        _require_a_file(self.path, to_read=read_only)
        if read_only:
            self._db = _read_only(self.path, timeout_s)
            return
        _require_writable(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = _connect(self.path, timeout_s)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(
                f"{self.path}: cannot open the results database: {exc} "
                "(point ASSAY_DB or --db at a writable SQLite file)"
            ) from None
        try:
            refuse_foreign(self._db, str(self.path))  # before WAL changes its header
            _write_ahead(self._db, timeout_s)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            migrate(self._db, str(self.path))
        except ValueError as exc:
            self._db.close()
            raise StoreError(str(exc)) from None
        except (sqlite3.Error, OSError) as exc:
            self._db.close()
            raise StoreError(
                f"{self.path}: cannot open the results database: {exc} "
                "(point ASSAY_DB or --db at a writable SQLite file)"
            ) from None

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # verdicts and audits

    def add_verdict(self, verdict: Verdict, *, solution: str, run_id: str | None = None) -> int:
        """Keep one verdict; returns its row id."""
        with self._write() as db:
            cursor = db.execute(_jobs.INSERT_VERDICT, _verdict_row(verdict, solution, run_id))
            return int(cursor.lastrowid or 0)

    def add_audit(
        self,
        report: AuditReport,
        verdicts: list[tuple[str, Verdict]],
        frozen: Sequence[FrozenPrint] = (),
    ) -> None:
        """Keep an audit run, its per-task results and the verdicts behind them, atomically,
        and the ``frozen`` prints it recorded, each in place of any earlier one of its task."""
        with self._write() as db:
            self._claim_name(db, report.run_id, "audit")
            db.execute(
                "INSERT INTO runs (name, kind, created_at, finished_at, spec) "
                "VALUES (?, 'audit', ?, ?, ?)",
                (
                    report.run_id,
                    report.started_at.isoformat(),
                    report.finished_at.isoformat(),
                    json.dumps({"root": report.root}),
                ),
            )
            db.execute(
                "INSERT INTO audit_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    report.run_id,
                    report.root,
                    report.started_at.isoformat(),
                    report.finished_at.isoformat(),
                    json.dumps(report.checks),
                    len(report.tasks),
                    sum(t.decision.value == "accepted" for t in report.tasks),
                    sum(t.decision.value == "rejected" for t in report.tasks),
                    report.known_bad,
                    report.known_bad_caught,
                ),
            )
            db.execute(
                "INSERT INTO audit_reports (run_id, header) VALUES (?, ?)",
                (report.run_id, record_json(report, exclude={"tasks"})),
            )
            for t in report.tasks:
                db.execute(
                    "INSERT INTO task_audits VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        report.run_id,
                        t.task_id,
                        t.task_version,
                        t.path,
                        t.decision.value,
                        record_json(t),
                    ),
                )
            for label, verdict in verdicts:
                db.execute(_jobs.INSERT_VERDICT, _verdict_row(verdict, label, report.run_id))
            for held in frozen:
                db.execute("DELETE FROM frozen_prints WHERE task_id = ?", (held.task_id,))
                db.execute(
                    "INSERT INTO frozen_prints VALUES (?, ?, ?, ?, ?)",
                    (
                        held.task_id,
                        held.task_version,
                        held.run_id,
                        json.dumps(sorted(held.grams)),
                        json.dumps(sorted(held.verifier)),
                    ),
                )

    def audit_runs(self) -> list[StoredRun]:
        """Every audit run, newest first, with its totals."""
        rows, names = self._select("SELECT * FROM audit_runs ORDER BY started_at DESC")
        counted, _ = self._select(
            "SELECT run_id, decision, COUNT(*) FROM task_audits "
            "WHERE decision IN ('quarantined', 'error') GROUP BY run_id, decision"
        )
        held = {(run_id, decision): count for run_id, decision, count in counted}
        runs = []
        for row in rows:
            fields = dict(zip(names, row, strict=True))
            what = f"audit run {fields['run_id']!r}"
            fields["checks"] = _checks(self.path, what, fields["checks"])
            fields["quarantined"] = held.get((fields["run_id"], "quarantined"), 0)
            fields["errors"] = held.get((fields["run_id"], "error"), 0)
            try:
                runs.append(StoredRun.model_validate(fields))
            except ValueError as exc:
                raise _unreadable(self.path, what, exc) from None
        return runs

    def task_audits(self, run_id: str) -> list[TaskAudit] | None:
        """The per-task results of audit run ``run_id``, by task id; None when the store holds
        no audit run of that name."""
        runs, _ = self._select("SELECT run_id FROM audit_runs WHERE run_id = ?", [run_id])
        if not runs:
            return None
        rows, _ = self._select(
            "SELECT task_id, record FROM task_audits WHERE run_id = ? ORDER BY task_id", [run_id]
        )
        return [self._task_audit(run_id, task_id, record) for task_id, record in rows]

    def audit_decisions(self) -> dict[tuple[str, str], str]:
        """The decision for every task version the store has audited: ``(task_id,
        task_version)`` to ``accepted``, ``quarantined``, ``rejected`` or ``error``, or
        ``cleared`` where a person cleared the quarantine of the deciding audit (``assay
        clear``); the deciding audit is :meth:`deciding_audits`'. A version accepted or
        cleared by audits none of which ran the checks that make a task prove itself
        (:data:`PROVING_CHECKS`: its reference passes, its known-bad solutions fail) is
        ``unproven``: ``--checks lint`` alone decides nothing an export may rely on."""
        decided = {}
        for key, found in self._audits_by_version().items():
            _run, decision = _standing(found)
            ran = {check for audit in found for check in audit.checks}
            if decision in ("accepted", "cleared") and not ran.issuperset(PROVING_CHECKS):
                decision = "unproven"
            decided[key] = decision
        return decided

    def deciding_audits(self) -> dict[tuple[str, str], tuple[str, str]]:
        """For every task version audited, the audit run whose decision stands, and that
        decision (``cleared`` where a person cleared it). Each check speaks through the latest
        audit that ran it, so an audit that left a check out (``--checks lint`` after a full
        audit, or ``lint,empty`` after ``lint,duplicates``) cannot overrule what that check
        found, and a quarantine no longer holds once every check whose findings held it has
        run again later; of the audits that are the latest for some check, the worst decision
        stands (rejected, then error, then quarantined), the latest of equals."""
        return {key: _standing(found) for key, found in self._audits_by_version().items()}

    def _audits_by_version(self) -> dict[tuple[str, str], list[_Kept]]:
        """Every audit of every task version, oldest first; a quarantined one's record is read
        for the checks that held it."""
        rows, _ = self._select(
            "SELECT t.task_id, t.task_version, t.run_id, "
            "CASE WHEN c.run_id IS NULL THEN t.decision ELSE 'cleared' END, r.checks, "
            "CASE WHEN c.run_id IS NULL AND t.decision = 'quarantined' THEN t.record END "
            "FROM task_audits t JOIN audit_runs r ON r.run_id = t.run_id "
            "LEFT JOIN clearances c ON c.run_id = t.run_id AND c.task_id = t.task_id "
            "ORDER BY r.finished_at, r.run_id"
        )
        audits: dict[tuple[str, str], list[_Kept]] = {}
        for task_id, version, run_id, decision, checks, record in rows:
            found = () if record is None else self._task_audit(run_id, task_id, record).findings
            kept = _Kept(
                checks=tuple(_checks(self.path, f"audit run {run_id!r}", checks)),
                run_id=run_id,
                decision=decision,
                held=frozenset(finding.check for finding in found if finding.review),
            )
            audits.setdefault((task_id, version), []).append(kept)
        return audits

    def latest_task_audit(self, task_id: str) -> tuple[str, TaskAudit] | None:
        """The latest audit run that audited ``task_id``, and its audit of it; None if none did."""
        rows, _ = self._select(
            "SELECT t.run_id, t.record FROM task_audits t "
            "JOIN audit_runs r ON r.run_id = t.run_id WHERE t.task_id = ? "
            "ORDER BY r.finished_at DESC, r.run_id DESC LIMIT 1",
            [task_id],
        )
        if not rows:
            return None
        return rows[0][0], self._task_audit(rows[0][0], task_id, rows[0][1])

    def task_audit(self, run_id: str, task_id: str) -> TaskAudit | None:
        """Audit run ``run_id``'s audit of ``task_id``; None when it has none."""
        rows, _ = self._select(
            "SELECT record FROM task_audits WHERE run_id = ? AND task_id = ?", [run_id, task_id]
        )
        return self._task_audit(run_id, task_id, rows[0][0]) if rows else None

    def _task_audit(self, run_id: str, task_id: str, record: str) -> TaskAudit:
        what = f"the audit of {task_id} in audit run {run_id!r}"
        return _decoded(self.path, what, TaskAudit, record)

    def add_clearances(self, clearances: Sequence[Clearance]) -> None:
        """Keep a person's clearances, all or none. Raises :class:`StoreError` when one of them
        was already cleared in the same run."""
        with self._write() as db:
            for c in clearances:
                row = db.execute(
                    "SELECT cleared_by, cleared_at FROM clearances "
                    "WHERE run_id = ? AND task_id = ?",
                    (c.run_id, c.task_id),
                ).fetchone()
                if row is not None:
                    raise StoreError(
                        f"{self.path}: {c.task_id} was already cleared in audit run {c.run_id} "
                        f"by {row[0]} at {row[1]}; audit it again to clear a later run"
                    )
                db.execute(
                    "INSERT INTO clearances VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        c.run_id,
                        c.task_id,
                        c.task_version,
                        json.dumps(list(c.findings)),
                        c.by,
                        c.reason,
                        c.cleared_at.isoformat(),
                    ),
                )

    def frozen_prints(self) -> list[FrozenPrint]:
        """The latest print of each frozen task an audit kept, by task id."""
        rows, _ = self._select(
            "SELECT task_id, task_version, run_id, grams, verifier FROM frozen_prints "
            "ORDER BY task_id"
        )
        return [_frozen_print(self.path, row) for row in rows]

    def clearances(self) -> list[Clearance]:
        """Every clearance kept, oldest first."""
        rows, _ = self._select(
            "SELECT task_id, task_version, run_id, findings, cleared_by, reason, cleared_at "
            "FROM clearances ORDER BY cleared_at, run_id, task_id"
        )
        return [_clearance(self.path, row) for row in rows]

    def audit_report(self, run_id: str) -> AuditReport | None:
        """The report of audit run ``run_id`` as it was written; None when the store holds no
        audit run of that name. A run kept before schema 3 has no diversity, drift or profile
        run, and the format its tasks were kept in."""
        tasks = self.task_audits(run_id)
        if tasks is None:
            return None
        rows, _ = self._select("SELECT header FROM audit_reports WHERE run_id = ?", [run_id])
        what = f"audit run {run_id!r}"
        if rows:
            header = _object(self.path, what, rows[0][0])
        else:  # kept before schema 3, by an assay whose reports were of format 2 at most
            rows, names = self._select(
                "SELECT run_id, root, started_at, finished_at, checks FROM audit_runs "
                "WHERE run_id = ?",
                [run_id],
            )
            header = dict(zip(names, rows[0], strict=True))
            header |= {"checks": _checks(self.path, what, header["checks"]), "format": 2}
        try:
            return AuditReport.model_validate(header | {"tasks": tasks})
        except ValueError as exc:
            raise _unreadable(self.path, what, exc) from None

    def verdicts(
        self, *, task_id: str | None = None, run_id: str | None = None
    ) -> list[StoredVerdict]:
        """Stored verdicts, oldest first, optionally for one task or one run."""
        query = "SELECT id, run_id, solution, sample, record FROM verdicts WHERE 1=1"
        params: list[str] = []
        if task_id is not None:
            query += " AND task_id = ?"
            params.append(task_id)
        if run_id is not None:
            query += " AND run_id = ?"
            params.append(run_id)
        rows, _ = self._select(query + " ORDER BY id", params)
        return [
            StoredVerdict(
                id=row[0],
                run_id=row[1],
                solution=row[2],
                sample=row[3],
                verdict=_decoded(self.path, f"verdict {row[0]}", Verdict, row[4]),
            )
            for row in rows
        ]

    # runs of both kinds

    def runs(self) -> list[RunRecord]:
        """Every run, audit and rollout, newest first."""
        rows, _ = self._select(
            "SELECT name, kind, created_at, finished_at, spec FROM runs ORDER BY created_at DESC"
        )
        return [_run_record(self.path, row) for row in rows]

    def run(self, name: str) -> RunRecord | None:
        """The run called ``name``, of either kind, or None."""
        rows, _ = self._select(
            "SELECT name, kind, created_at, finished_at, spec FROM runs WHERE name = ?", (name,)
        )
        return _run_record(self.path, rows[0]) if rows else None

    def create_rollout(self, name: str, spec: dict[str, Any], jobs: Iterable[NewJob]) -> None:
        """Start rollout run ``name`` with its jobs queued (read one at a time), atomically. Raises
        :class:`StoreError` when the name is taken (check with :meth:`run` first)."""
        with self._write() as db:
            self._claim_name(db, name, "rollout")
            db.execute(
                "INSERT INTO runs (name, kind, created_at, finished_at, spec) "
                "VALUES (?, 'rollout', ?, NULL, ?)",
                (name, datetime.now(UTC).isoformat(), json.dumps(spec, sort_keys=True)),
            )
            _jobs.add_jobs(db, name, jobs)

    def mark_finished(self, name: str) -> None:
        """Note that run ``name`` finished now."""
        with self._write() as db:
            db.execute(
                "UPDATE runs SET finished_at = ? WHERE name = ?",
                (datetime.now(UTC).isoformat(), name),
            )

    # the job queue (see assay.store._jobs)

    def claim_jobs(
        self, run: str, *, owner: str, claim_id: str, limit: int, lease_s: float, now: float
    ) -> list[Job]:
        """Take up to ``limit`` free jobs of ``run`` under a lease of ``lease_s`` seconds."""
        with self._write() as db:
            return _jobs.claim(
                db, run, owner=owner, claim_id=claim_id, limit=limit, lease_s=lease_s, now=now
            )

    def renew_leases(self, run: str, owner: str, *, lease_s: float, now: float) -> int:
        """Extend every lease ``owner`` holds in ``run``; returns how many."""
        with self._write() as db:
            return _jobs.renew(db, run, owner, lease_s=lease_s, now=now)

    def release_jobs(self, run: str, owner: str) -> int:
        """Give back, unfinished and without an attempt counted, the jobs of ``run`` that
        ``owner`` holds (a runner that stops, or one known to be dead)."""
        with self._write() as db:
            return _jobs.release(db, run, owner)

    def lease_owners(self, run: str) -> list[str]:
        """Owners holding leases in ``run`` now."""
        with self._lock:
            return _jobs.lease_owners(self._db, run)

    def finish_jobs(self, finished: Sequence[Finished]) -> list[bool]:
        """Keep each episode and mark its job done, in one transaction; for each, whether it
        was kept (False: the claim had been lost, and nothing of it is kept)."""
        created_at = datetime.now(UTC).isoformat()
        with self._write() as db:
            return [_jobs.finish(db, item, created_at=created_at) for item in finished]

    def retry_later(self, job: Job, *, error: str, not_before: float) -> bool:
        """Queue a job that ended in error again, not before ``not_before``."""
        with self._write() as db:
            return _jobs.retry_later(db, job, error=error, not_before=not_before)

    def reopen_errors(self, run: str) -> int:
        """Queue again the jobs of ``run`` that ended in error or whose verdict has no score,
        with fresh attempts."""
        with self._write() as db:
            return _jobs.reopen_errors(db, run)

    def unscored(self, run: str) -> int:
        """Episodes of ``run`` kept with a pass or fail but no score (a rubric's judge could
        not be reached after every attempt): run again when the run is resumed."""
        with self._lock:
            try:
                return len(_jobs.unscored(self._db, run))
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: read failed: {exc}") from None

    def job_counts(self, run: str, *, now: float) -> JobCounts:
        """Where the jobs of ``run`` are."""
        with self._lock:
            return _jobs.counts(self._db, run, now=now)

    # episodes

    def episodes(
        self, run: str, *, task_id: str | None = None, sample: int | None = None
    ) -> list[StoredEpisode]:
        """The finished episodes of ``run`` in task and sample order, optionally one task's."""
        query = "SELECT sample, record, task_id FROM trajectories WHERE run_name = ?"
        params: list[object] = [run]
        if task_id is not None:
            query += " AND task_id = ?"
            params.append(task_id)
        if sample is not None:
            query += " AND sample = ?"
            params.append(sample)
        rows, _ = self._select(query + " ORDER BY task_id, sample", params)
        return [
            StoredEpisode(
                run_name=run,
                sample=row[0],
                trajectory=_decoded(
                    self.path, f"the trajectory of {row[2]} sample {row[0]}", Trajectory, row[1]
                ),
            )
            for row in rows
        ]

    def episode_totals(self, run: str) -> EpisodeTotals:
        """Sums over the finished episodes of ``run``."""
        rows, _ = self._select(
            "SELECT status, COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(usd), "
            "COUNT(usd), SUM(sandbox_cpu_s), SUM(wall_s) FROM trajectories WHERE run_name = ? "
            "GROUP BY status",
            (run,),
        )
        by_status = {row[0]: row for row in rows}
        episodes = sum(row[1] for row in rows)
        priced = sum(row[5] for row in rows)
        return EpisodeTotals(
            episodes=episodes,
            passed=by_status["pass"][1] if "pass" in by_status else 0,
            failed=by_status["fail"][1] if "fail" in by_status else 0,
            errors=by_status["error"][1] if "error" in by_status else 0,
            input_tokens=sum(row[2] or 0 for row in rows),
            output_tokens=sum(row[3] or 0 for row in rows),
            usd=sum(row[4] or 0.0 for row in rows) if priced == episodes else None,
            sandbox_cpu_s=sum(row[6] or 0.0 for row in rows),
            wall_s=sum(row[7] or 0.0 for row in rows),
        )

    # machinery

    def _select(self, query: str, params: Sequence[object] = ()) -> tuple[list[Any], list[str]]:
        try:
            with self._lock:
                cursor = self._db.execute(query, storable_row(params))
                names = [column[0] for column in cursor.description or ()]
                return cursor.fetchall(), names
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: read failed: {exc}") from None

    @contextmanager
    def _write(self) -> Iterator[_Storing]:
        """One write transaction; rolled back whole when anything in it raises. Its statements
        bind text as the database can hold it (see :mod:`assay.store._storable`)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _busy_or_failed(self.path, exc) from None
            try:
                yield _Storing(self._db)
                self._db.execute("COMMIT")
            except BaseException as exc:
                rollback(self._db)
                if isinstance(exc, sqlite3.Error):
                    raise _busy_or_failed(self.path, exc) from None
                raise

    def _claim_name(self, db: _Storing, name: str, kind: RunKind) -> None:
        row = db.execute("SELECT kind FROM runs WHERE name = ?", (name,)).fetchone()
        if row is not None:
            raise StoreError(
                f"{self.path}: a {row[0]} run is already called {name!r}; "
                f"a {kind} run needs another name"
            )


class _Storing:
    """The connection of a write transaction, binding each statement's text as
    :func:`~assay.store._storable.storable`."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> sqlite3.Cursor:
        """Run one statement."""
        return self._db.execute(sql, storable_row(parameters))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> sqlite3.Cursor:
        """Run one statement for each of ``rows``, read one at a time."""
        return self._db.executemany(sql, (storable_row(row) for row in rows))


PROVING_CHECKS = ("reference", "known-bad")
"""The checks without which no audit decides that a task may be exported."""

_WORST_FIRST = {"rejected": 3, "error": 2, "quarantined": 1}
"""How much a decision holds a task back; accepted and cleared, nothing."""


@dataclass(frozen=True)
class _Kept:
    """One audit of one task version, as its standing needs it."""

    checks: tuple[str, ...]
    run_id: str
    decision: str
    """As the audit decided, or ``cleared``."""
    held: frozenset[str] = frozenset()
    """The checks whose findings need a person, for a quarantine not cleared."""


def _standing(audits: Sequence[_Kept]) -> tuple[str, str]:
    """Of ``audits`` (oldest first) of one task version, the run and decision that stand: see
    :meth:`Store.deciding_audits`."""
    latest = {check: index for index, audit in enumerate(audits) for check in audit.checks}
    speaking = sorted(set(latest.values())) or [len(audits) - 1]

    def speaks(index: int) -> str:
        """The decision of audit ``index`` by the checks it is the latest for: a quarantine
        all of whose holding checks ran again later holds nothing."""
        audit = audits[index]
        later = [check in audit.checks and latest[check] != index for check in audit.held]
        if later and all(later):
            return "accepted"
        return audit.decision

    decided = {index: speaks(index) for index in speaking}
    index = max(speaking, key=lambda i: (_WORST_FIRST.get(decided[i], 0), i))
    return audits[index].run_id, decided[index]


def _connect(database: Path | str, timeout_s: float, *, uri: bool = False) -> sqlite3.Connection:
    """A connection as the store uses it: autocommit, shared by the store's threads."""
    return sqlite3.connect(
        database, timeout=timeout_s, isolation_level=None, check_same_thread=False, uri=uri
    )


def _write_ahead(db: sqlite3.Connection, timeout_s: float) -> None:
    """Put ``db`` in WAL mode, unless another connection already has. Changing the mode is
    refused at once, without the connection's wait, while another connection is opening the
    same new file (two runners started together): it is tried again until ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
        else:
            return


def _require_a_file(path: Path, *, to_read: bool) -> None:
    """Refuse a path where no results database can be: a FIFO, socket or device (SQLite would
    wait on a FIFO for a writer that never comes, or read a device as an empty store), a name
    the system refuses (too long, holding a NUL), or nothing at all when it is ``to_read``."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if to_read:
            raise StoreError(
                f"{path}: no results database here (point ASSAY_DB or --db at an assay store)"
            ) from None
        return  # a new store, or a parent that is missing: opening says which
    except (OSError, ValueError) as exc:
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StoreError(
            f"{path}: cannot open the results database: {problem} "
            "(point ASSAY_DB or --db at a SQLite file)"
        ) from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO, socket or device"
        raise StoreError(
            f"{path}: is {kind}, not a results database (point ASSAY_DB or --db at a SQLite "
            "file, or at a new path to start one)"
        )


def _require_writable(path: Path) -> None:
    """Refuse a store file this process cannot write (read-only media, or its mode): SQLite
    would open it for reading without a word, and the first write, at the end of an audit
    that took an hour, would fail and lose it."""
    if path.is_file() and not os.access(path, os.W_OK):
        raise StoreError(
            f"{path}: the results database cannot be written here (a read-only file or "
            "medium); point ASSAY_DB or --db at a writable SQLite file (the commands that only "
            "read, such as report, runs and verdicts, read it as it is)"
        )


def _read_only(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A connection that reads ``path`` and never writes it. SQLite reads a database in WAL
    mode only where it can make its shared-memory file; on read-only media it reads the file
    as immutable, which is exact when no write-ahead log holds changes not yet in it."""
    wal = path.with_name(path.name + "-wal")
    try:
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"{path}: its write-ahead log ({wal.name}) holds changes that cannot be read "
                "where nothing can be written (copy the store and its -wal file somewhere "
                "writable, or open it once where it was written)"
            )
        db, version = _read_connection(path, timeout_s)
    except ValueError as exc:
        raise StoreError(str(exc)) from None
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"{path}: cannot read the results database: {exc}") from None
    try:
        refuse_foreign(db, str(path))
    except ValueError as exc:
        db.close()
        raise StoreError(str(exc)) from None
    except sqlite3.Error as exc:
        db.close()
        raise StoreError(f"{path}: cannot read the results database: {exc}") from None
    if version != SCHEMA_VERSION:
        db.close()
        raise StoreError(
            f"{path}: not an assay store (an empty database)"
            if version == 0
            else f"{path}: a store of schema {version} cannot be read where it cannot be "
            f"migrated to schema {SCHEMA_VERSION} (open it once with write access)"
        )
    return db


def _read_connection(path: Path, timeout_s: float) -> tuple[sqlite3.Connection, int]:
    """A read-only connection to ``path`` and its schema version: read-only where SQLite can
    keep its shared memory beside the file, else immutable."""
    target = path.absolute().as_uri()
    try:
        return _versioned(f"{target}?mode=ro", path, timeout_s)
    except sqlite3.OperationalError:
        return _versioned(f"{target}?immutable=1", path, timeout_s)


def _versioned(uri: str, path: Path, timeout_s: float) -> tuple[sqlite3.Connection, int]:
    db = _connect(uri, timeout_s, uri=True)
    try:
        return db, schema_version(db, str(path))
    except BaseException:
        db.close()
        raise


def _busy_or_failed(path: Path, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return StoreBusyError(f"{path}: the database is locked by another writer ({text})")
    return StoreError(f"{path}: write failed: {text}")


def _run_record(path: Path, row: Sequence[Any]) -> RunRecord:
    try:
        return RunRecord(
            name=row[0], kind=row[1], created_at=row[2], finished_at=row[3], spec=json.loads(row[4])
        )
    except ValueError as exc:
        raise _unreadable(path, f"run {row[0]!r}", exc) from None


def _object(path: Path, what: str, text: str) -> dict[str, Any]:
    """``text`` read as a JSON object; anything else is :func:`_unreadable`."""
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise _unreadable(path, what, exc) from None
    if not isinstance(found, dict):
        raise _unreadable(path, what, ValueError(f"a JSON {type(found).__name__}, not an object"))
    return found


def _checks(path: Path, what: str, text: str) -> list[str]:
    """The names of the checks an audit run kept (a JSON list of strings)."""
    try:
        checks = json.loads(text)
    except ValueError as exc:
        raise _unreadable(path, f"the checks of {what}", exc) from None
    if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
        problem = ValueError("not a list of check names")
        raise _unreadable(path, f"the checks of {what}", problem)
    return checks


def _clearance(path: Path, row: Sequence[Any]) -> Clearance:
    what = f"the clearance of {row[0]} in audit run {row[2]!r}"
    try:
        return Clearance(
            task_id=row[0],
            task_version=row[1],
            run_id=row[2],
            findings=tuple(json.loads(row[3])),
            by=row[4],
            reason=row[5],
            cleared_at=datetime.fromisoformat(row[6]),
        )
    except (ValueError, TypeError) as exc:
        raise _unreadable(path, what, ValueError(str(exc))) from None


def _frozen_print(path: Path, row: Sequence[Any]) -> FrozenPrint:
    what = f"the print of frozen task {row[0]} from audit run {row[2]!r}"
    try:
        return FrozenPrint(
            task_id=row[0],
            task_version=row[1],
            run_id=row[2],
            grams=frozenset(json.loads(row[3])),
            verifier=frozenset(json.loads(row[4])),
        )
    except (ValueError, TypeError) as exc:
        raise _unreadable(path, what, ValueError(str(exc))) from None


def _decoded(path: Path, what: str, model: type[R], record: str) -> R:
    """``record`` read as ``model``; a record that is not one (changed by hand, or by an assay
    that wrote another format) is a :class:`StoreError` naming it, not a crash."""
    try:
        return model.model_validate_json(record)
    except ValueError as exc:
        raise _unreadable(path, what, exc) from None


def _unreadable(path: Path, what: str, exc: ValueError) -> StoreError:
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        cause = f"{where}: {first['msg']}"
    else:
        cause = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return StoreError(
        f"{path}: the record of {what} cannot be read ({cause[:200]}); it was changed by "
        "something other than this assay (restore the store from a copy, or read it with the "
        "assay that wrote it)"
    )


def _verdict_row(verdict: Verdict, solution: str, run_id: str | None) -> tuple[object, ...]:
    return (
        run_id,
        verdict.task_id,
        verdict.versions.task,
        verdict.versions.family,
        verdict.versions.assay,
        solution,
        verdict.status.value,
        verdict.score,
        verdict.created_at.isoformat(),
        record_json(verdict),
        None,
    )
