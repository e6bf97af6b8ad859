"""The query runner that works inside the sandbox. Stdlib only, plus DuckDB for DuckDB tasks
(from the packages directory the job names); passed to ``python -I -S -c``.

It reads a JSON job from stdin (engine, database files, queries, limits, a nonce) and runs every
query on every database, query by query, each database opened read-only and locked down: SQLite
through an immutable read-only URI, ``query_only``, a heap limit and an authorizer that allows
reading and nothing else, temporary tables and sorts kept in memory; DuckDB read-only with
external access, extensions, spilling to a temporary directory and configuration changes off,
one thread, a memory limit, and a single statement of type SELECT only. Neither engine writes a
file: a query past the memory limit fails rather than filling the job's disk. Each run
has its own deadline (a progress handler, or an interrupt) and row limit. For each (query,
database) it writes one ``<nonce><json>`` line:

- ``{"q": i, "db": j, "columns": [name, ...], "rows": [[value, ...], ...]}``;
- ``{"q": i, "db": j, "failed": {"kind": kind, "message": text}}`` with kind ``error``,
  ``timeout``, ``rows`` (more than the row limit) or ``size`` (the record is too long, in
  UTF-8 bytes); with ``stop_on_failure`` nothing follows a failure;
- or a single ``{"setup_error": text}`` when the engine cannot be loaded at all.

Values are written as plain data: numbers (booleans as 1 and 0, decimals as floats), text, null,
dates and times as ISO text (``YYYY-MM-DD HH:MM:SS``, as SQLite stores them), lists, and tagged
objects ``{"bytes": hex}``, ``{"float": "nan" | "inf" | "-inf"}`` and ``{"map": [[k, v], ...]}``.
The trusted side re-reads every line as hostile text and decides; nothing here is trusted, and
no expected result is ever sent here.
"""

import json
import math
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # keeps typing out of the sandbox's start-up
    from collections.abc import Callable
    from typing import Any

    Opener = Callable[[str, str], tuple[list[str], list[list[object]]]]

_SQLITE_ALLOWED = {20, 21, 31, 33}  # SQLITE_READ, SQLITE_SELECT, SQLITE_FUNCTION, SQLITE_RECURSIVE
_SQLITE_FUNCTION = 31
_REFUSED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
_FETCH = 512


class _FailedError(Exception):
    """A query that gave no result, for a reason the runner names (``kind``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _main() -> None:
    job = json.loads(_read_all(0))
    out = os.dup(1)
    os.dup2(2, 1)  # whatever an engine prints goes to stderr, never among the records
    nonce = job["nonce"]
    encode = json.JSONEncoder(allow_nan=False, ensure_ascii=False).encode

    def send(text: str) -> None:
        line = ("\n" + nonce + text + "\n").encode("utf-8", "replace")
        while line:
            line = line[os.write(out, line) :]

    try:
        opener = _duckdb_opener(job) if job["engine"] == "duckdb" else _sqlite_opener(job)
    except BaseException as exc:  # noqa: BLE001 - whatever loading the engine raises is reported
        send(encode({"setup_error": _describe(exc)}))
        return
    for q, query in enumerate(job["queries"]):
        for d, path in enumerate(job["databases"]):
            failed: dict[str, str] | None = None
            try:
                columns, rows = opener(path, query)
                text = encode({"q": q, "db": d, "columns": columns, "rows": rows})
                _check_size(text, job["max_record_bytes"])
            except _FailedError as exc:
                failed = {"kind": exc.kind, "message": str(exc)}
            except BaseException as exc:  # noqa: BLE001 - the engine may raise anything
                failed = {"kind": "error", "message": _describe(exc)}
            if failed is not None:
                text = encode({"q": q, "db": d, "failed": failed})
            send(text)
            if failed is not None and job["stop_on_failure"]:
                return


def _sqlite_opener(job: "dict[str, Any]") -> "Opener":
    import sqlite3  # noqa: PLC0415 - only the engine a job names is loaded

    heap = job["memory_mb"] * 1024 * 1024 // 2

    def authorize(action: int, first: object, *_: object) -> int:
        if action not in _SQLITE_ALLOWED:
            return sqlite3.SQLITE_DENY
        if action == _SQLITE_FUNCTION and str(first).lower() in _REFUSED_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    def run(path: str, query: str) -> tuple[list[str], list[list[object]]]:
        connection = sqlite3.connect(
            "file:" + path + "?mode=ro&immutable=1", uri=True, isolation_level=None
        )
        try:
            connection.text_factory = _text
            connection.execute("PRAGMA query_only=1")
            connection.execute("PRAGMA temp_store=MEMORY")  # no temporary file for a big sort
            connection.execute(f"PRAGMA hard_heap_limit={heap}")
            connection.set_authorizer(authorize)
            deadline = time.monotonic() + job["time_limit_s"]
            connection.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
            try:
                cursor = connection.execute(_one_statement(query, sqlite3.complete_statement))
                columns = [str(c[0]) for c in cursor.description or ()]
                rows = _fetch(cursor, job["max_rows"])
            except sqlite3.OperationalError as exc:
                if time.monotonic() > deadline and "interrupt" in str(exc):
                    raise _FailedError("timeout", f"longer than {job['time_limit_s']} s") from None
                raise
            return columns, rows
        finally:
            connection.close()

    return run


def _duckdb_opener(job: "dict[str, Any]") -> "Opener":
    sys.path.extend(job.get("path", ()))
    import threading  # noqa: PLC0415 - for DuckDB jobs only (workers do not preload it)

    import duckdb  # noqa: PLC0415 - from the packages directory, for DuckDB jobs only

    config: dict[str, Any] = {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "threads": 1,
        "memory_limit": f"{max(16, job['memory_mb'] // 2)}MB",
        "temp_directory": "",  # nothing spilled beside the database: past the limit, it fails
        "lock_configuration": True,
    }

    def run(path: str, query: str) -> tuple[list[str], list[list[object]]]:
        connection = duckdb.connect(path, read_only=True, config=dict(config))
        expired = threading.Event()

        def interrupt() -> None:
            expired.set()
            connection.interrupt()

        statements = connection.extract_statements(query)
        if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
            connection.close()
            raise _FailedError("error", "DuckDB runs exactly one SELECT statement here")
        timer = threading.Timer(job["time_limit_s"], interrupt)
        timer.start()
        try:
            cursor = connection.execute(query)
            columns = [str(c[0]) for c in cursor.description or ()]
            rows = _fetch(cursor, job["max_rows"])
        except duckdb.Error:
            if expired.is_set():
                raise _FailedError("timeout", f"longer than {job['time_limit_s']} s") from None
            raise
        else:
            return columns, rows
        finally:
            timer.cancel()
            connection.close()

    return run


def _one_statement(query: str, complete: "Callable[[str], bool]") -> str:
    """``query`` without the empty statements after its first (``SELECT 1;;``), which SQLite
    would take for a second statement; any other text after it is left for SQLite to refuse."""
    for end in (i + 1 for i, char in enumerate(query) if char == ";"):
        if complete(query[:end]):
            rest = query[end:].lstrip(" \t\r\n;")
            return query[:end] + "\n" + rest
    return query


def _check_size(text: str, limit: int) -> None:
    """Bytes, not characters: the job's output is budgeted by bytes, and a record of 2,000,000
    Chinese characters took 6 MB of it, cutting off the records after it."""
    size = len(text)
    if size > limit or (size * 4 > limit and len(text.encode("utf-8", "replace")) > limit):
        raise _FailedError("size", f"more than {limit} bytes")


def _fetch(cursor: "Any", limit: int) -> list[list[object]]:
    rows: list[list[object]] = []
    while True:
        batch = cursor.fetchmany(_FETCH)
        if not batch:
            return rows
        rows.extend([_plain(v) for v in row] for row in batch)
        if len(rows) > limit:
            raise _FailedError("rows", f"more than {limit} rows")


def _plain(value: "Any") -> object:  # noqa: PLR0911 - one answer per type
    kind = type(value)
    if value is None or kind is int or kind is str:
        return value
    if kind is bool:
        return int(value)
    if kind is float:
        if math.isfinite(value):
            return value
        return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if kind in (bytes, bytearray, memoryview):
        return {"bytes": bytes(value).hex()}
    if kind.__name__ == "Decimal":
        return _plain(float(value))
    if kind.__name__ == "datetime":
        return value.isoformat(sep=" ")
    if kind.__name__ in ("date", "time"):
        return value.isoformat()
    if kind in (list, tuple):
        return [_plain(item) for item in value]
    if kind is dict:
        return {"map": [[_plain(k), _plain(v)] for k, v in value.items()]}
    return str(value)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text[:500]


if __name__ == "__main__":
    _main()
