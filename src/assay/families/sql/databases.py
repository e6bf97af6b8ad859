"""A task's suite of databases: SQL text on disk, engine files built from it and cached.

The visible database is ``workspace/<sql.database>``; the neighbours are every
``hidden/databases/*.sql``, in name order. Each is SQL text a person can read and diff (schema
and rows, see :func:`assay.families.sql.gate.database_statements` for what it may hold), in
UTF-8; a byte order mark at its start is read as no SQL, as in a query (:func:`source`). An
engine file is built from the text once and kept in a cache directory under a name that hashes
the text, the engine and its version, so that a changed database is a different file and a
cached file is never rebuilt. Files are written to a temporary name and renamed into place, and
then made read-only: verification only ever copies their bytes into sandboxes.

Building runs task text in the trusted process, so the text passes the gate first and the engine
is locked down as it runs it: SQLite behind an authorizer that refuses ``ATTACH`` and
``PRAGMA``; DuckDB with external access, extension loading and configuration changes off. A
``CHECK``, a ``DEFAULT`` or a generated column is evaluated for every row inserted, so building
has a deadline (:data:`BUILD_TIME_LIMIT_S`) on both engines, SQLite a longest value
(:data:`MAX_VALUE_BYTES`) and DuckDB a memory limit (:data:`BUILD_MEMORY_LIMIT`: a ``DEFAULT``
of ``repeat('x', 300000000)`` took 6.9 GB to build eight rows).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from assay.errors import TaskFormatError
from assay.families.sql.config import NEIGHBOURS_DIR, SqlConfig
from assay.families.sql.gate import database_statements, statement_texts
from assay.tasks.model import Task

CACHE_FORMAT = "4"
"""Bumped when the way engine files are built changes."""
SUFFIXES = {"sqlite": ".sqlite", "duckdb": ".duckdb"}
LOCKED_DUCKDB: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "threads": 1,
    "lock_configuration": True,
}
"""DuckDB settings under which task text and submissions run: no files but the database, no
extensions, and no statement can change these."""
BUILD_TIME_LIMIT_S = 300.0
"""Longest one database's text may take to build; past it, the text is refused."""
MAX_VALUE_BYTES = 64 * 1024 * 1024
"""Longest value (text, blob or row) building a SQLite database may make; a longer one fails."""
BUILD_MEMORY_LIMIT = "2GB"
"""DuckDB's ``memory_limit`` while it builds a database (its buffers; it spills nothing, as
it has no access to files): past it the build fails and the text is refused."""


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


def source(text: bytes) -> str:
    """A database's SQL text as the engines are given it: without the byte order mark some
    editors write at its start, and with bytes that are not UTF-8 replaced (building refuses
    such a database by file)."""
    return text.decode("utf-8-sig", errors="replace")


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
        sql = text.decode("utf-8-sig")  # as queries are read: a byte order mark is no SQL
    except UnicodeDecodeError:
        raise TaskFormatError(
            "the database is not UTF-8 text", path=where, fix="save it as UTF-8 SQL text"
        ) from None
    statements = database_statements(sql, engine)
    if isinstance(statements, str):
        raise TaskFormatError(
            statements, path=where, fix="write it as CREATE and INSERT statements"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(dir=target.parent, suffix=SUFFIXES[engine])
    os.close(handle)
    Path(staging).unlink()  # the engines create their own file
    try:
        _build(Path(staging), sql, engine)
        Path(staging).chmod(0o444)
        Path(staging).replace(target)
    except _TooSlowError:
        raise TaskFormatError(
            f"it takes longer than {BUILD_TIME_LIMIT_S:g} s to build",
            path=where,
            fix="make its CHECK, DEFAULT and generated columns cheap, or its rows fewer",
        ) from None
    except _TooLargeError:
        raise TaskFormatError(
            f"it takes more than {BUILD_MEMORY_LIMIT} of memory to build",
            path=where,
            fix="make its DEFAULT, CHECK and generated columns small, or its rows fewer",
        ) from None
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


class _TooSlowError(RuntimeError):
    """Building passed :data:`BUILD_TIME_LIMIT_S`."""


class _TooLargeError(RuntimeError):
    """Building passed :data:`BUILD_MEMORY_LIMIT`."""


def _build(path: Path, sql: str, engine: str) -> None:
    if engine == "duckdb":
        _build_duckdb(path, sql)
        return
    deadline = time.monotonic() + BUILD_TIME_LIMIT_S
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=OFF")  # a staging file: nothing to recover
        connection.execute("PRAGMA synchronous=OFF")
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        connection.set_progress_handler(lambda: time.monotonic() > deadline, 100)
        connection.set_authorizer(_building)
        try:
            for statement in statement_texts(sql):  # the handler's count starts again in each
                if time.monotonic() > deadline:
                    raise _TooSlowError
                connection.execute(statement)
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise _TooSlowError from None
            raise
    finally:
        connection.close()


def _build_duckdb(path: Path, sql: str) -> None:
    import duckdb  # noqa: PLC0415 - loaded only for the tasks that use it

    try:
        config = {**LOCKED_DUCKDB, "memory_limit": BUILD_MEMORY_LIMIT}
        connection = duckdb.connect(str(path), config=config)
    except duckdb.Error as exc:
        raise RuntimeError(str(exc)) from None
    expired = threading.Event()

    def interrupt() -> None:
        expired.set()
        connection.interrupt()

    timer = threading.Timer(BUILD_TIME_LIMIT_S, interrupt)
    timer.start()
    try:
        for statement in connection.extract_statements(sql):
            if expired.is_set():  # an interrupt between two statements stops neither
                raise _TooSlowError
            connection.execute(statement)
    except duckdb.Error as exc:
        if expired.is_set():
            raise _TooSlowError from None
        if isinstance(exc, duckdb.OutOfMemoryException) or "failed to pin block" in str(exc):
            raise _TooLargeError from None
        raise RuntimeError(str(exc)) from None
    finally:
        timer.cancel()
        connection.close()


_REFUSED_WHILE_BUILDING = frozenset(
    {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA}
)


def _building(action: int, *_: object) -> int:
    return sqlite3.SQLITE_DENY if action in _REFUSED_WHILE_BUILDING else sqlite3.SQLITE_OK


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__
