"""A store written by an older assay is migrated in place and keeps everything it held."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from assay.errors import StoreError
from assay.store import SCHEMA_VERSION, Store

FIXTURE = Path(__file__).parent / "schema-1.db"
"""Written by assay at commit 2e28fef (schema 1): ``assay audit`` of two median tasks, then one
``assay verify`` of a known-bad solution."""


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    return path


def _rows(path: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(query).fetchall()


def test_the_fixture_is_of_schema_1() -> None:
    assert _rows(FIXTURE, "PRAGMA user_version") == [(1,)]


def test_migration_keeps_audits_and_verdicts_and_adds_runs(old_store: Path) -> None:
    before = _rows(old_store, "SELECT * FROM verdicts ORDER BY id")
    audits_before = _rows(old_store, "SELECT * FROM audit_runs")
    with Store(old_store) as store:
        [audit] = store.audit_runs()
        kept = store.verdicts()
        [run] = store.runs()
    assert _rows(old_store, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert [row[:11] for row in _rows(old_store, "SELECT * FROM verdicts ORDER BY id")] == before
    assert _rows(old_store, "SELECT * FROM audit_runs") == audits_before
    assert (audit.tasks, audit.accepted, audit.known_bad_caught) == (2, 2, 2)
    assert len(kept) == len(before) == 7
    assert {k.solution for k in kept} >= {"reference", "bad-unsorted", "empty"}
    assert all(k.sample is None for k in kept)
    assert (run.name, run.kind) == (audit.run_id, "audit")
    assert run.finished_at == audit.finished_at


def test_a_migrated_store_takes_rollouts_and_opens_again(old_store: Path) -> None:
    with Store(old_store) as store:
        store.create_rollout("after", {"k": 1}, [])
    with Store(old_store) as store:
        assert {(r.name, r.kind) for r in store.runs()} >= {("after", "rollout")}
        assert len(store.verdicts()) == 7


def test_a_failed_migration_changes_nothing(old_store: Path) -> None:
    with sqlite3.connect(old_store) as db:
        db.execute("CREATE TABLE runs (x INTEGER)")  # in the way of the migration
    before = old_store.read_bytes()
    with pytest.raises(StoreError, match="cannot open the results database"):
        Store(old_store)
    assert _rows(old_store, "PRAGMA user_version") == [(1,)]
    assert _rows(old_store, "SELECT COUNT(*) FROM verdicts") == [(7,)]
    assert "sample" not in [c[1] for c in _rows(old_store, "PRAGMA table_info(verdicts)")]
    assert len(old_store.read_bytes()) == len(before)


def test_a_store_of_a_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=r"new.db: written by a newer assay .* upgrade assay"):
        Store(path)


def _foreign(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('kept')")
    db.close()
    return path.read_bytes()


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """A --db pointed by mistake at another program's SQLite file: assay's tables are not
    written into it, nor is its journal mode changed."""
    path = tmp_path / "notes.db"
    before = _foreign(path)
    _refused_untouched(path, before)
    with sqlite3.connect(path) as db:  # a schema number assay uses, not its tables
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.close()
    _refused_untouched(path, path.read_bytes())


def _refused_untouched(path: Path, before: bytes) -> None:
    with pytest.raises(StoreError, match=r"notes.db: an SQLite database of another program"):
        Store(path)
    with pytest.raises(StoreError, match=r"notes.db: an SQLite database of another program"):
        Store(path, read_only=True)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["notes.db"]


def test_an_empty_file_becomes_a_store_and_reads_as_not_one_where_it_cannot(
    tmp_path: Path,
) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(StoreError, match=r"empty.db: not an assay store \(an empty database\)"):
        Store(path, read_only=True)
    with Store(path) as store:
        assert store.verdicts() == []
