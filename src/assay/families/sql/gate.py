"""The first wall: what SQL text may reach an engine at all.

A submission is exactly one read-only query: a ``SELECT`` (with ``WITH``, set operations,
DuckDB's ``FROM``-first form) that reads tables of the database by name and nothing else. Refused:
several statements, anything that writes or changes state (DDL, DML, ``ATTACH``, ``PRAGMA``,
``COPY``, ``SET``, ``INSTALL``, ``LOAD``, transactions), table functions and file readers
(``read_csv``, ``read_parquet``, ``glob``, ``'/etc/passwd'`` as a table), and functions that
reach outside the database. The engines are locked down as well when the query runs (see
:mod:`._runner`): this parse is the first wall, not the only one.

A database file is SQL text too, task input rather than a submission: only ``CREATE TABLE``,
``CREATE INDEX``, ``CREATE VIEW`` over a read-only query, and ``INSERT ... VALUES`` of literals,
in transactions that ``COMMIT`` ends, each a statement the parser can print back (lint and the
neighbour generator work on the printed schema) (:func:`database_statements`).
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

MAX_QUERY_CHARS = 100_000
"""Longest submission read; longer text is refused unparsed."""
_DENIED_PREFIXES = ("read_", "pragma_", "duckdb_", "sqlite_", "parquet_", "iceberg_", "delta_")
_DENIED_FUNCTIONS = frozenset(
    {
        "glob",
        "getenv",
        "current_setting",
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "query",
        "query_table",
        "sniff_csv",
        "json_scan",
        "fts3_tokenizer",
        "which_secret",
        "read_blob",
        "read_text",
    }
)
_WRITES = (
    exp.DML,
    exp.DDL,
    exp.Command,
    exp.Pragma,
    exp.Set,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Use,
    exp.Describe,
)
_LITERALS = (
    exp.Tuple,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Neg,
    exp.Paren,
    exp.Cast,
    exp.DataType,
    exp.DataTypeParam,
)
_PATH_CHARACTERS = frozenset("/\\.:*?")


@dataclass(frozen=True)
class Accepted:
    """A query that passed the gate."""

    tree: exp.Query
    """Its parsed form (sqlglot), for the ordering analysis and neighbour generation."""


@dataclass(frozen=True)
class Refused:
    """Text that is not one read-only query, and why."""

    reason: str


def dialect(engine: str) -> str:
    """The sqlglot dialect of an engine."""
    return "duckdb" if engine == "duckdb" else "sqlite"


def check_query(text: str, engine: str) -> Accepted | Refused:
    """Whether ``text`` is exactly one read-only query for ``engine``; never raises."""
    _quiet_fallbacks()
    if len(text) > MAX_QUERY_CHARS:
        return Refused(f"the query has {len(text)} characters, more than {MAX_QUERY_CHARS}")
    try:
        statements = _statements(text, engine)
    except SqlglotError as exc:
        return Refused(f"the query does not parse: {_first_line(exc)}")
    except RecursionError:
        return Refused("the query is nested too deeply to parse")
    if not statements:
        return Refused("no query was submitted")
    if len(statements) > 1:
        return Refused(f"{len(statements)} statements were submitted; exactly one query is allowed")
    return _read_only(statements[0])


def _statements(text: str, engine: str) -> list[exp.Expr]:
    """The statements of ``text``; a comment after the last ``;`` (``SELECT 1; -- done``),
    which sqlglot keeps as a statement of its own, is none."""
    parsed = sqlglot.parse(text, read=dialect(engine))
    return [s for s in parsed if s is not None and not isinstance(s, exp.Semicolon)]


class _FallbackFilter(logging.Filter):
    """Drops sqlglot's warning that it parsed a statement as a bare command: for a submission
    that is a refusal the verdict gives, not something to log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return "Falling back to parsing as a 'Command'" not in message and not message.startswith(
            "Unsupported "
        )


_FALLBACK_FILTER = _FallbackFilter()


def _quiet_fallbacks() -> None:
    """Install the filter on sqlglot's logger, once (on first use, not on import)."""
    logger = logging.getLogger("sqlglot")
    if _FALLBACK_FILTER not in logger.filters:
        logger.addFilter(_FALLBACK_FILTER)


def _read_only(tree: exp.Expr) -> Accepted | Refused:
    if not isinstance(tree, exp.Query):
        return Refused(f"{_kind(tree)} is not a read-only query; submit one SELECT")
    for node in tree.walk():
        refusal = _refusal(node)
        if refusal is not None:
            return Refused(refusal)
    if not _printable(tree):  # ordering, lint and mutants print the tree back
        return Refused(
            "the SQL parser cannot print the query back for analysis (an empty blob X'' is "
            "such a query: write CAST('' AS BLOB))"
        )
    return Accepted(tree)


def _refusal(node: exp.Expr) -> str | None:
    if isinstance(node, _WRITES):
        return f"{_kind(node)} is not allowed in a read-only query"
    if isinstance(node, exp.Table):
        name = node.this
        if not isinstance(name, exp.Identifier) or _PATH_CHARACTERS & set(str(name.this)):
            return f"reading from {_render(node)[:80]!r} is not allowed: only tables by name"
    if isinstance(node, exp.Func):
        name = _function_name(node)
        if name in _DENIED_FUNCTIONS or name.startswith(_DENIED_PREFIXES) or name.endswith("_scan"):
            return f"the function {name}() is not allowed: it reaches outside the database"
    if isinstance(node, exp.Into):
        return "SELECT ... INTO is not allowed in a read-only query"
    return None


def _function_name(node: exp.Func) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    return node.sql_name().lower()


def database_statements(text: str, engine: str) -> list[exp.Expr] | str:
    """The statements of a database file, or why they are not a database (first problem)."""
    _quiet_fallbacks()
    try:
        statements = _statements(text, engine)
    except SqlglotError as exc:
        return f"the SQL does not parse: {_first_line(exc)}"
    except RecursionError:
        return "the SQL is nested too deeply to parse"
    opened: int | None = None
    for number, statement in enumerate(statements, start=1):
        problem = _database_problem(statement)
        if problem is not None:
            return f"statement {number} ({_excerpt(statement)}): {problem}"
        if isinstance(statement, exp.Transaction):
            opened = number
        elif isinstance(statement, exp.Commit):
            opened = None
    if opened is not None:
        return (
            f"statement {opened} (BEGIN) opens a transaction that no COMMIT ends: the engine "
            "would drop every row after it; end it with COMMIT"
        )
    return statements


def _database_problem(statement: exp.Expr) -> str | None:  # noqa: PLR0911 - one answer per kind
    if isinstance(statement, exp.Transaction | exp.Commit):
        return None
    if isinstance(statement, exp.Create):
        kind = str(statement.args.get("kind") or "").upper()
        if kind in ("TABLE", "INDEX"):
            if statement.expression is not None:
                return "CREATE TABLE ... AS is not allowed; list the rows with INSERT ... VALUES"
            if not _printable(statement):  # lint compares schemas, and neighbours copy them
                return (
                    "the SQL parser cannot print it back for analysis (an empty blob X'' is "
                    "such a statement: write CAST('' AS BLOB))"
                )
            return None
        if kind == "VIEW" and isinstance(statement.expression, exp.Query):
            verdict = _read_only(statement.expression)
            return verdict.reason if isinstance(verdict, Refused) else None
        return f"CREATE {kind} is not allowed"
    if isinstance(statement, exp.Insert):
        values = statement.expression
        if not isinstance(values, exp.Values):
            return "INSERT must list its rows with VALUES"
        for node in values.walk():
            if isinstance(node, exp.HexString):
                return "a blob literal (X'...') is not supported; store the value as text"
            if node is not values and not isinstance(node, _LITERALS):
                return f"a value is not a literal ({_render(node)[:60]})"
        return None
    return "only CREATE TABLE, CREATE INDEX, CREATE VIEW and INSERT ... VALUES are allowed"


def statement_texts(text: str) -> list[str]:
    """``text`` cut into its statements as written (comments before each kept with it), for
    copying a schema verbatim. The last piece may lack its semicolon."""
    pieces: list[str] = []
    start = 0
    for end in (i + 1 for i, char in enumerate(text) if char == ";"):
        if sqlite3.complete_statement(text[start:end]):
            pieces.append(text[start:end].strip())
            start = end
    rest = text[start:].strip()
    if rest and not all(line.strip().startswith("--") for line in rest.splitlines()):
        pieces.append(rest)
    return pieces


def _kind(node: exp.Expr) -> str:
    """The statement's kind as its text begins (``DROP``, ``INSTALL``), else its node type."""
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    words = _render(node).split(maxsplit=1)
    if words and words[0].isalpha():
        return words[0].upper()
    return type(node).__name__.upper()


def _excerpt(statement: exp.Expr) -> str:
    text = " ".join(_render(statement).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _render(node: exp.Expr) -> str:
    """``node`` as SQL text for a message, or its kind where it cannot be printed."""
    return node.sql() if _printable(node) else type(node).__name__.upper()


def _printable(node: exp.Expr) -> bool:
    """Whether sqlglot's generator can print ``node``: it fails on some trees its parser makes
    (``X''``, an empty blob, raises ValueError), and nothing here may raise."""
    try:
        node.sql()
    except Exception:  # noqa: BLE001 - whatever the generator raises, the tree is not printable
        return False
    return True


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__
