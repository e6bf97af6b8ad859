"""The results store on SQLite: audit runs, per-task audits and verdicts, with versions."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from assay.audit.report import AuditReport
from assay.errors import StoreError
from assay.verdicts import Verdict

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS audit_runs (
    run_id TEXT PRIMARY KEY,
    root TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    checks TEXT NOT NULL,
    tasks INTEGER NOT NULL,
    accepted INTEGER NOT NULL,
    rejected INTEGER NOT NULL,
    known_bad INTEGER NOT NULL,
    known_bad_caught INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS task_audits (
    run_id TEXT NOT NULL REFERENCES audit_runs(run_id),
    task_id TEXT NOT NULL,
    task_version TEXT NOT NULL,
    path TEXT NOT NULL,
    decision TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, task_id)
);
CREATE TABLE IF NOT EXISTS verdicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT,
    task_id TEXT NOT NULL,
    task_version TEXT NOT NULL,
    family_version TEXT NOT NULL,
    assay_version TEXT NOT NULL,
    solution TEXT NOT NULL,
    status TEXT NOT NULL,
    score REAL NOT NULL,
    created_at TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdicts_by_task ON verdicts(task_id, task_version);
"""
INSERT_VERDICT = (
    "INSERT INTO verdicts (run_id, task_id, task_version, family_version, assay_version, "
    "solution, status, score, created_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class StoredVerdict(BaseModel):
    """A verdict as kept in the store, with what it judged."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(description="Row id.")
    run_id: str | None = Field(description="The audit run that produced it, if any.")
    solution: str = Field(description="Which solution was judged (label or path).")
    verdict: Verdict = Field(description="The verdict itself.")


class StoredRun(BaseModel):
    """The totals of one audit run as kept in the store."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="Unique id of the audit run.")
    root: str = Field(description="The directory audited.")
    started_at: datetime = Field(description="When the run started (UTC).")
    finished_at: datetime = Field(description="When the run finished (UTC).")
    checks: tuple[str, ...] = Field(description="Names of the checks applied.")
    tasks: int = Field(description="Tasks audited.")
    accepted: int = Field(description="Tasks accepted.")
    rejected: int = Field(description="Tasks rejected.")
    known_bad: int = Field(description="Known-bad solutions across the set.")
    known_bad_caught: int = Field(description="Known-bad solutions that failed, as they must.")


class Store:
    """Results database. Opening creates the file and its tables if they do not exist."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(
                f"{self.path}: cannot open the results database: {exc} "
                "(point ASSAY_DB or --db at a writable SQLite file)"
            ) from None

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def add_verdict(self, verdict: Verdict, *, solution: str, run_id: str | None = None) -> int:
        """Keep one verdict; returns its row id."""
        with self._write() as db:
            cursor = db.execute(INSERT_VERDICT, _verdict_row(verdict, solution, run_id))
            return int(cursor.lastrowid or 0)

    def add_audit(self, report: AuditReport, verdicts: list[tuple[str, Verdict]]) -> None:
        """Keep an audit run, its per-task results and the verdicts behind them, atomically."""
        with self._write() as db:
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
            db.executemany(
                "INSERT INTO task_audits VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        report.run_id,
                        t.task_id,
                        t.task_version,
                        t.path,
                        t.decision.value,
                        t.model_dump_json(),
                    )
                    for t in report.tasks
                ],
            )
            db.executemany(
                INSERT_VERDICT,
                [_verdict_row(verdict, label, report.run_id) for label, verdict in verdicts],
            )

    def audit_runs(self) -> list[StoredRun]:
        """Every audit run, newest first, with its totals."""
        cursor = self._db.execute("SELECT * FROM audit_runs ORDER BY started_at DESC")
        names = [column[0] for column in cursor.description]
        runs = []
        for row in cursor.fetchall():
            fields = dict(zip(names, row, strict=True))
            fields["checks"] = json.loads(fields["checks"])
            runs.append(StoredRun.model_validate(fields))
        return runs

    def verdicts(
        self, *, task_id: str | None = None, run_id: str | None = None
    ) -> list[StoredVerdict]:
        """Stored verdicts, oldest first, optionally for one task or one audit run."""
        query = "SELECT id, run_id, solution, record FROM verdicts WHERE 1=1"
        params: list[str] = []
        if task_id is not None:
            query += " AND task_id = ?"
            params.append(task_id)
        if run_id is not None:
            query += " AND run_id = ?"
            params.append(run_id)
        rows = self._db.execute(query + " ORDER BY id", params).fetchall()
        return [
            StoredVerdict(
                id=row[0],
                run_id=row[1],
                solution=row[2],
                verdict=Verdict.model_validate_json(row[3]),
            )
            for row in rows
        ]

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            with self._db:
                yield self._db
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: write failed: {exc}") from None

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: written by a newer assay (schema {version}); upgrade assay"
            )
        with self._db:
            self._db.executescript(SCHEMA)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


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
        verdict.model_dump_json(),
    )
