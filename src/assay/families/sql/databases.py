"""A task's suite of databases: SQL text on disk, engine files built from it and cached.

The visible database is ``workspace/<sql.database>``; the neighbours are every
``hidden/databases/*.sql``, in name order. Each is SQL text a person can read and diff (schema
and rows, see :func:`assay.families.sql.gate.database_statements` for what it may hold). An
engine file is built from the text once and kept in a cache directory under a name that hashes
the text, the engine and its version, so that a changed database is a different file and a
cached file is never rebuilt. Files are written to a temporary name and renamed into place, and
then made read-only: verification only ever copies their bytes into sandboxes.

Building runs task text in the trusted process, so the text passes the gate first and the engine
is locked down as it runs it: SQLite behind an authorizer that refuses ``ATTACH`` and
``PRAGMA``; DuckDB with external access, extension loading and configuration changes off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from assay.errors import TaskFormatError
from assay.families.sql.config import NEIGHBOURS_DIR, SqlConfig
from assay.families.sql.gate import database_statements
from assay.tasks.model import Task

CACHE_FORMAT = "1"
"""Bumped when the way engine files are built changes."""
SUFFIXES = {"sqlite": ".sqlite", "duckdb": ".duckdb"}
LOCKED_DUCKDB = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "threads": 1,
    "lock_configuration": True,
}
"""DuckDB settings under which task text and submissions run: no files but the database, no
extensions, and no statement can change these."""


@dataclass(frozen=True)
class Database:
    """One database of a task's suite."""

    name: str
    """Where it is in the task, e.g. ``workspace/shop.sql`` or ``hidden/databases/n01.sql``."""
    text: bytes
    """Its SQL text."""


def suite(task: Task, config: SqlConfig) -> list[Database]:
    """The visible database, then the neighbours in name order; raises :class:`TaskFormatError`
    when the visible one is missing."""
    visible = task.workspace.get(config.database)
    if visible is None:
        raise TaskFormatError(
            f"workspace/{config.database} does not exist",
            path=f"{task.id}/task.toml",
            field="sql.database",
            fix="name the visible database's .sql file in workspace/",
        )
    neighbours = [
        Database(f"hidden/{path}", data)
        for path, data in sorted(task.hidden.items())
        if path.startswith(f"{NEIGHBOURS_DIR}/") and path.endswith(".sql")
    ]
    return [Database(f"workspace/{config.database}", visible), *neighbours]


def cache_dir() -> Path:
    """Where engine files are kept: ``$XDG_CACHE_HOME/assay/sql`` (``~/.cache`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "assay" / "sql"


def engine_version(engine: str) -> str:
    """The engine's library version, part of every cached file's name."""
    if engine == "duckdb":
        import duckdb  # noqa: PLC0415 - DuckDB is loaded only for the tasks that use it

        return f"duckdb-{duckdb.__version__}"
    return f"sqlite-{sqlite3.sqlite_version}"


def engine_file(task_id: str, database: Database, engine: str) -> Path:
    """The engine file of ``database``, built and cached on first use. Raises
    :class:`TaskFormatError` naming the file when its text is not a database."""
    return _engine_file(task_id, database.name, database.text, engine)


@functools.lru_cache(maxsize=256)
def engine_bytes(path: Path) -> bytes:
    """The bytes of a cached engine file (files are immutable once named, so kept in memory)."""
    return path.read_bytes()


@functools.lru_cache(maxsize=256)
def engine_data(task_id: str, database: Database, engine: str) -> bytes:
    """The bytes of ``database``'s engine file, kept in memory by its text: a verification
    that comes back to a database neither hashes its text nor looks for its file again."""
    return engine_bytes(engine_file(task_id, database, engine))


def _engine_file(task_id: str, name: str, text: bytes, engine: str) -> Path:
    digest = hashlib.sha256()
    for part in (CACHE_FORMAT, engine_version(engine), text):
        data = part if isinstance(part, bytes) else part.encode()
        digest.update(len(data).to_bytes(8, "big") + data)
    target = cache_dir() / f"{digest.hexdigest()[:32]}{SUFFIXES[engine]}"
    if target.is_file():
        return target
    where = f"{task_id}/{name}"
    try:
        source = text.decode()
    except UnicodeDecodeError:
        raise TaskFormatError(
            "the database is not UTF-8 text", path=where, fix="save it as UTF-8 SQL text"
        ) from None
    statements = database_statements(source, engine)
    if isinstance(statements, str):
        raise TaskFormatError(
            statements, path=where, fix="write it as CREATE and INSERT statements"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(dir=target.parent, suffix=SUFFIXES[engine])
    os.close(handle)
    Path(staging).unlink()  # the engines create their own file
    try:
        _build(Path(staging), source, engine)
        Path(staging).chmod(0o444)
        Path(staging).replace(target)
    except (sqlite3.Error, RuntimeError) as exc:
        raise TaskFormatError(
            f"the engine refused it: {_first_line(exc)}",
            path=where,
            fix="make it run on " + engine,
        ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            Path(staging).unlink()
        for leftover in (f"{staging}.wal", f"{staging}-journal"):
            with contextlib.suppress(FileNotFoundError):
                Path(leftover).unlink()
    return target


def _build(path: Path, source: str, engine: str) -> None:
    if engine == "duckdb":
        _build_duckdb(path, source)
        return
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=OFF")  # a staging file: nothing to recover
        connection.execute("PRAGMA synchronous=OFF")
        connection.set_authorizer(_building)
        connection.executescript(source)
    finally:
        connection.close()


def _build_duckdb(path: Path, source: str) -> None:
    import duckdb  # noqa: PLC0415 - loaded only for the tasks that use it

    try:
        connection = duckdb.connect(str(path), config=dict(LOCKED_DUCKDB))
        try:
            connection.execute(source)
        finally:
            connection.close()
    except duckdb.Error as exc:
        raise RuntimeError(str(exc)) from None


_REFUSED_WHILE_BUILDING = frozenset(
    {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA}
)


def _building(action: int, *_: object) -> int:
    return sqlite3.SQLITE_DENY if action in _REFUSED_WHILE_BUILDING else sqlite3.SQLITE_OK


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__
