"""The store's tables, and the migrations that bring an older store file up to them in place.

The SQL is kept to what SQLite and PostgreSQL both read (no SQLite-only types or conflict
clauses); only the version bookkeeping (``PRAGMA user_version``) is SQLite's own.

Schema history:

1. audit runs, per-task audits, verdicts.
2. one namespace of run names with a kind (``runs``: audit or rollout), the durable job queue
   (``jobs``), trajectories, and the sample index on verdicts.
3. each audit run's whole report but its tasks (``audit_reports``: format, diversity and drift,
   the profile joined), so that a stored run renders as the report it was; runs kept before
   have none and render without them.
4. a person's clearances of quarantined tasks (``clearances``: the task version, the audit run
   that quarantined it, the findings cleared, by whom and why).
5. what the contamination check needs to recognise a copy of each frozen task any audit saw
   (``frozen_prints``: hashes of its prompt's n-grams and its verifier fingerprints, never its
   words or hidden data), so that a later audit of other tasks compares them with it.
"""

from __future__ import annotations

import contextlib
import sqlite3

SCHEMA_VERSION = 5

SCHEMA_1 = """
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

TO_2 = (
    "ALTER TABLE verdicts ADD COLUMN sample INTEGER",
    """CREATE TABLE runs (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        spec TEXT NOT NULL
    )""",
    """INSERT INTO runs (name, kind, created_at, finished_at, spec)
        SELECT run_id, 'audit', started_at, finished_at, '{}' FROM audit_runs""",
    """CREATE TABLE jobs (
        job_id INTEGER PRIMARY KEY,
        run_name TEXT NOT NULL REFERENCES runs(name),
        task_id TEXT NOT NULL,
        task_version TEXT NOT NULL,
        sample INTEGER NOT NULL,
        policy TEXT NOT NULL,
        mode TEXT NOT NULL,
        state TEXT NOT NULL,
        status TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        claims INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_token TEXT,
        lease_expires REAL,
        not_before REAL NOT NULL DEFAULT 0,
        last_error TEXT,
        UNIQUE (run_name, task_id, sample)
    )""",
    "CREATE INDEX jobs_by_state ON jobs(run_name, state, job_id)",
    "CREATE INDEX jobs_by_token ON jobs(lease_token)",
    """CREATE TABLE trajectories (
        id INTEGER PRIMARY KEY,
        run_name TEXT NOT NULL REFERENCES runs(name),
        task_id TEXT NOT NULL,
        sample INTEGER NOT NULL,
        episode_id TEXT NOT NULL UNIQUE,
        verdict_id INTEGER NOT NULL REFERENCES verdicts(id),
        status TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        usd REAL,
        sandbox_cpu_s REAL NOT NULL,
        wall_s REAL NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (run_name, task_id, sample)
    )""",
    """CREATE UNIQUE INDEX verdicts_once_a_sample ON verdicts(run_id, task_id, sample)
        WHERE sample IS NOT NULL""",
)
"""Schema 1 to 2: every statement runs in one transaction, so a failed migration changes
nothing."""

TO_3 = (
    """CREATE TABLE audit_reports (
        run_id TEXT PRIMARY KEY REFERENCES audit_runs(run_id),
        header TEXT NOT NULL
    )""",
)
"""Schema 2 to 3: the report of each audit run, its tasks left out (they are in
``task_audits``), as JSON."""

TO_4 = (
    """CREATE TABLE clearances (
        run_id TEXT NOT NULL REFERENCES audit_runs(run_id),
        task_id TEXT NOT NULL,
        task_version TEXT NOT NULL,
        findings TEXT NOT NULL,
        cleared_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        cleared_at TEXT NOT NULL,
        PRIMARY KEY (run_id, task_id)
    )""",
)
"""Schema 3 to 4: clearances (``assay clear``); ``findings`` is a JSON list of the
``check: message`` keys cleared."""

TO_5 = (
    """CREATE TABLE frozen_prints (
        task_id TEXT PRIMARY KEY,
        task_version TEXT NOT NULL,
        run_id TEXT NOT NULL REFERENCES audit_runs(run_id),
        grams TEXT NOT NULL,
        verifier TEXT NOT NULL
    )""",
)
"""Schema 4 to 5: the latest print of each frozen task (:class:`assay.store.records.FrozenPrint`);
``grams`` and ``verifier`` are JSON lists."""

MIGRATIONS: dict[int, tuple[str, ...]] = {1: TO_2, 2: TO_3, 3: TO_4, 4: TO_5}
"""From each version, the statements that lead to the next one."""


def migrate(db: sqlite3.Connection, path: str) -> None:
    """Bring ``db`` (in autocommit mode) to :data:`SCHEMA_VERSION`, in one transaction.

    A new file gets schema 1 and then every migration, so that new and migrated stores are
    built by the same statements. Raises :class:`sqlite3.Error` when a statement fails and
    :class:`ValueError` for a store written by a newer assay.
    """
    if schema_version(db, path) == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")  # and read again: another process may have migrated it
    try:
        version = schema_version(db, path)
        if version == 0:
            refuse_foreign(db, path)
            for statement in SCHEMA_1.split(";"):
                if statement.strip():
                    db.execute(statement)
            version = 1
        while version < SCHEMA_VERSION:
            for statement in MIGRATIONS[version]:
                db.execute(statement)
            version += 1
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        rollback(db)
        raise


def rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already: on a full disk, an I/O error
    or an interrupt it rolls the transaction back itself, and a second ``ROLLBACK`` would fail
    and hide the error that caused it."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def refuse_foreign(db: sqlite3.Connection, path: str) -> None:
    """ValueError when ``db`` is another program's database, which assay neither reads as a
    store nor writes its own tables into: of no assay schema yet holding tables, or of a
    schema number assay uses without the table every assay store has."""
    # One statement, so one snapshot: read apart, another process creating the store could
    # commit between the two reads, and its new tables would look like another program's.
    rows = db.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), NULL"
        " UNION ALL SELECT (SELECT user_version FROM pragma_user_version), name"
        " FROM sqlite_master WHERE type = 'table'"
    ).fetchall()
    version = checked_version(int(rows[0][0]), path)
    names = {name for _, name in rows if name is not None}
    if (version == 0 and names) or (version > 0 and "audit_runs" not in names):
        raise ValueError(
            f"{path}: an SQLite database of another program, not an assay store "
            "(give --db or ASSAY_DB a new file or an assay store)"
        )


def schema_version(db: sqlite3.Connection, path: str) -> int:
    """The schema version of ``db``; ValueError for one written by a newer assay."""
    return checked_version(int(db.execute("PRAGMA user_version").fetchone()[0]), path)


def checked_version(version: int, path: str) -> int:
    """``version``, or ValueError for one written by a newer assay."""
    if version > SCHEMA_VERSION:
        raise ValueError(f"{path}: written by a newer assay (schema {version}); upgrade assay")
    return version
