"""What each query gave on each database, read from the runner's records in hostile output.

The runner's stdout is hostile bytes like any sandbox output: a query runs native engine code
on attacker-chosen input. Every line that starts with the job's nonce is read with the bounded,
strict decoder of :mod:`assay.families.code.records`; its fields are checked against the only
shapes the runner writes, in the job's exact order (query by query, database by database), and
its values against the normal form described in :mod:`._runner`. Anything else means the output
cannot be believed: the whole run is marked tampered and judged a failure. Nothing here raises.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

from assay.families.code.records import NotPlainError, parse_plain
from assay.sandbox.protocol import ExecResult

MAX_TEXT = 500
MAX_COLUMNS = 1000
MAX_VALUE_DEPTH = 20
_TAGS = {"bytes", "float", "map"}
_FLOAT_TAGS = {"nan", "inf", "-inf"}

Row = list[object]


@dataclass(frozen=True)
class Table:
    """A query's result on one database: column names and rows of normal-form values."""

    columns: tuple[str, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Failed:
    """A query that gave no result on one database, and why."""

    kind: str
    """error, timeout, rows (past the row limit), size (the record too long), missing."""
    message: str


Outcome = Table | Failed


@dataclass(frozen=True)
class RunOutputs:
    """Every (query, database) outcome of one run, as decoded by the trusted process."""

    outcomes: dict[tuple[int, int], Outcome]
    """(query index, database index) to what happened; absent when never reported."""
    setup_error: str | None
    """Why the engine could not be loaded, if it could not."""
    tampered: str | None
    """Why the records cannot be believed, if they cannot."""
    result: ExecResult

    def outcome(self, query: int, database: int) -> Outcome:
        """What the query did on the database, a :class:`Failed` saying why when nothing came."""
        if self.tampered is not None:
            return Failed("tampered", f"the run's records cannot be believed: {self.tampered}")
        if self.setup_error is not None:
            return Failed("error", f"the engine did not load: {self.setup_error}")
        found = self.outcomes.get((query, database))
        return found if found is not None else Failed("missing", self.missing_reason())

    def missing_reason(self) -> str:
        """Why a (query, database) has no record at all."""
        result = self.result
        if result.timed_out:
            return "no result: the run passed its time limit"
        if result.out_of_memory:
            return "no result: the run passed its memory limit"
        if result.cpu_exceeded or result.signal == signal.SIGXCPU:
            return "no result: the run passed its CPU-time limit"
        if result.stdout_truncated:
            return "no result: the run passed its output limit"
        if result.signal is not None:
            return f"no result: the run was killed by signal {result.signal}"
        return f"no result: the run ended with status {result.exit_code} before reporting"


class _TamperedError(ValueError):
    """A record the honest runner would never have written."""


def decode_run(  # noqa: PLR0911 - each way a run's records can be unbelievable ends it
    result: ExecResult,
    nonce: str,
    queries: int,
    databases: int,
    *,
    max_chars: int,
    stop_on_failure: bool,
) -> RunOutputs:
    """Read the records of a run over ``queries`` x ``databases``, in the job's order."""
    lines = [line[len(nonce) :] for line in result.stdout.split("\n") if line.startswith(nonce)]
    order = [(q, d) for q in range(queries) for d in range(databases)]
    outcomes: dict[tuple[int, int], Outcome] = {}
    for index, line in enumerate(lines):
        try:
            record = _record(parse_plain(line, max_chars=max_chars, max_depth=MAX_VALUE_DEPTH + 4))
        except NotPlainError as exc:
            if index == len(lines) - 1 and result.stdout_truncated:
                break
            return _tampered(result, f"a record is not plain data: {exc}")
        except _TamperedError as exc:
            return _tampered(result, str(exc))
        if isinstance(record, str):
            if index > 0 or len(lines) > 1:
                return _tampered(result, "a setup error among other records")
            return RunOutputs({}, record, None, result)
        key, outcome = record
        if index >= len(order) or order[index] != key:
            where = f"query {key[0]} on database {key[1]}"
            return _tampered(result, f"the record of {where} is out of order")
        if stop_on_failure and any(isinstance(seen, Failed) for seen in outcomes.values()):
            return _tampered(result, "a record follows a failure, which ends the run")
        outcomes[key] = outcome
    return RunOutputs(outcomes, None, None, result)


def _tampered(result: ExecResult, reason: str) -> RunOutputs:
    return RunOutputs({}, None, reason, result)


def _record(data: object) -> str | tuple[tuple[int, int], Outcome]:
    if not isinstance(data, dict):
        raise _TamperedError("a record is not an object")
    keys = set(data)
    if keys == {"setup_error"}:
        return _text(data["setup_error"])
    q, d = data.get("q"), data.get("db")
    if type(q) is not int or type(d) is not int:
        raise _TamperedError("a record names no query or database")
    if keys == {"q", "db", "failed"}:
        return (q, d), _failed(data["failed"])
    if keys == {"q", "db", "columns", "rows"}:
        return (q, d), _table(data["columns"], data["rows"])
    raise _TamperedError(f"a record has the fields {sorted(keys)[:6]}")


def _failed(data: object) -> Failed:
    if not isinstance(data, dict) or set(data) != {"kind", "message"}:
        raise _TamperedError("a failure record is malformed")
    kind = _text(data["kind"])
    if kind not in ("error", "timeout", "rows", "size"):
        raise _TamperedError(f"a failure record has the kind {kind[:40]!r}")
    return Failed(kind, _text(data["message"]))


_SCALARS = frozenset({int, float, str})


def _table(columns: object, rows: object) -> Table:
    if not isinstance(columns, list) or len(columns) > MAX_COLUMNS:
        raise _TamperedError("a result's columns are malformed")
    names = tuple(_text(name) for name in columns)
    if not isinstance(rows, list):
        raise _TamperedError("a result's rows are not a list")
    for row in rows:
        if not isinstance(row, list) or len(row) != len(names):
            raise _TamperedError("a row does not have one value per column")
        for value in row:
            if value is not None and type(value) not in _SCALARS:  # most values are scalars
                _check_value(value)
    return Table(names, tuple(rows))


def _check_value(value: object) -> None:
    pending = [value]
    while pending:
        item = pending.pop()
        if item is None or type(item) in _SCALARS:
            continue
        if isinstance(item, list):
            pending.extend(item)
            continue
        if not isinstance(item, dict) or len(item) != 1 or not set(item) <= _TAGS:
            raise _TamperedError("a value is not in the runner's normal form")
        ((tag, inner),) = item.items()
        if tag == "bytes" and not _is_hex(inner):
            raise _TamperedError("a bytes value is not hexadecimal text")
        if tag == "float" and inner not in _FLOAT_TAGS:
            raise _TamperedError("a float value is not nan, inf or -inf")
        if tag == "map":
            if not isinstance(inner, list) or any(
                not isinstance(pair, list) or len(pair) != 2 for pair in inner
            ):
                raise _TamperedError("a map value is not a list of pairs")
            pending.extend(inner)


def _is_hex(text: object) -> bool:
    if not isinstance(text, str) or len(text) % 2:
        return False
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _TamperedError("a record holds a non-string where text belongs")
    return value[:MAX_TEXT]
