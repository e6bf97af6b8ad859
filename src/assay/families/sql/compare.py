"""Denotation comparison: does a query's result equal the reference's?

Both results are normal-form data decoded by the trusted process (see :mod:`.results`). They
match when:

- they have as many columns, and some permutation of the candidate's columns makes the rows
  equal (column names and order do not matter: ``SELECT b, a`` answers ``SELECT a, b``);
- the rows are equal as a multiset, or, where the reference orders its rows (:class:`Ordering`),
  position by position up to ties: rows with equal ordering keys form a group, and each group
  must hold the same multiset of rows in the same place. When the reference's ``LIMIT`` cut its
  result, the last group may hold any of the rows that tie with it (which tied rows made the
  cut is the engine's choice): the rows of the reference's result read past its ``LIMIT`` with
  the same keys (:func:`tied_rows`). Where those are not known, the right keys are enough;
- two numbers match within the tolerance, relative or absolute (ints and floats compare by
  value: ``SUM`` gives an int on one engine and a decimal on another), except two ints, which
  no engine rounds and which match only when equal (a count of 2,000,001 is not 2,000,000);
  text matches exactly; NULL matches NULL only.

Nothing here raises for normal-form data, and everything is bounded: at most
:data:`MAX_PERMUTATIONS` column permutations are tried, and evidence shows a few rows.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from assay.families.sql.results import Row, Table

MAX_PERMUTATIONS = 200
MAX_GREEDY_ROWS = 2000
SHOWN_ROWS = 3
SHOWN_CHARS = 160


@dataclass(frozen=True)
class Ordering:
    """How the reference orders its rows."""

    keys: tuple[int, ...]
    """Columns of the reference's result that are its ORDER BY keys, in order; empty when the
    first key is not among the output columns (then only the multiset is compared)."""
    limit: int | None
    """The reference's LIMIT, if it has one."""


def difference(
    expected: Table,
    actual: Table,
    *,
    tolerance: float,
    ordering: Ordering | None,
    tied: Sequence[Row] | None = None,
) -> str | None:
    """``None`` when ``actual`` matches ``expected``, else a short account of how they differ.

    ``tied`` are the rows the last group may hold when the reference's ``LIMIT`` cut its result
    (see :func:`tied_rows`); None when they are not known."""
    width = len(expected.columns)
    if len(actual.columns) != width:
        return (
            f"expected {width} columns ({_names(expected.columns)}), got {len(actual.columns)} "
            f"({_names(actual.columns)})"
        )
    if actual.rows == expected.rows:  # equal values in the same places match under any rule
        return None
    match = _Matcher(tolerance)
    first: tuple[int, ...] | None = None
    for permutation in _permutations(expected.rows, actual.rows, width, match):
        first = first or permutation
        rows = [[row[i] for i in permutation] for row in actual.rows]
        if _rows_match(expected.rows, rows, ordering, match, tied):
            return None
    mapping = first or tuple(range(width))
    rows = [[row[i] for i in mapping] for row in actual.rows]
    return _explain(expected.rows, rows, ordering, match)


class _Matcher:
    """Value equality and sort keys under one tolerance."""

    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.digits = 17 if tolerance <= 0 else max(1, min(17, math.floor(-math.log10(tolerance))))

    def same(self, a: object, b: object) -> bool:
        if type(a) is int and type(b) is int:
            return a == b
        if _is_number(a) and _is_number(b):
            return math.isclose(a, b, rel_tol=self.tolerance, abs_tol=self.tolerance)  # type: ignore[arg-type]
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(self.same(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(self.same(a[k], b[k]) for k in a)
        return type(a) is type(b) and a == b

    def same_row(self, a: Row, b: Row) -> bool:
        return all(self.same(x, y) for x, y in zip(a, b, strict=True))

    def key(self, value: object) -> tuple[int, object]:
        """A sort key: equal values get equal keys (up to rounding at the tolerance)."""
        if value is None:
            return (0, 0)
        if _is_number(value):
            number = float(value)  # type: ignore[arg-type]
            if abs(number) <= self.tolerance:
                return (1, 0.0)
            return (1, float(f"{number:.{self.digits}g}"))
        if isinstance(value, str):
            return (2, value)
        return (3, canonical(value))

    def row_key(self, row: Row) -> tuple[tuple[int, object], ...]:
        return tuple(self.key(value) for value in row)

    def row_order(self, row: Row) -> tuple[str, tuple[tuple[int, float | str], ...]]:
        """A sort key of rows: by their keys, then rows of equal keys by their exact values (two
        ints that round alike, such as 2,000,001 and 2,000,002, then sort alike on both sides)."""
        return repr(self.row_key(row)), tuple(_value_order(value) for value in row)


def _is_number(value: object) -> bool:
    return type(value) is int or type(value) is float


def canonical(value: object) -> str:
    """A stable text form of normal-form data, for evidence and sorting."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _permutations(
    expected: Sequence[Row], actual: Sequence[Row], width: int, match: _Matcher
) -> Iterator[tuple[int, ...]]:
    """Column permutations under which each column holds the same values, identity first."""
    if width == 0:
        yield ()
        return
    columns = [_column(expected, i) for i in range(width)]
    theirs = [_column(actual, j) for j in range(width)]
    options = [
        list(
            dict.fromkeys(
                j for j in [i, *range(width)] if _same_column(columns[i], theirs[j], match)
            )
        )
        or [i]
        for i in range(width)
    ]  # a column no other matches keeps its place: the rows then say how they differ
    yielded = 0
    chosen: list[int] = []

    def search(i: int) -> Iterator[tuple[int, ...]]:
        nonlocal yielded
        if yielded >= MAX_PERMUTATIONS:
            return
        if i == width:
            yielded += 1
            yield tuple(chosen)
            return
        for j in options[i]:
            if j not in chosen:
                chosen.append(j)
                yield from search(i + 1)
                chosen.pop()

    yield from search(0)


def _column(rows: Sequence[Row], index: int) -> list[object]:
    """A column's values in value order (numbers by value, so near-equal ones are neighbours
    whichever way the tolerance's rounding takes them)."""
    return sorted((row[index] for row in rows), key=_value_order)


def _value_order(value: object) -> tuple[int, float | str]:
    if value is None:
        return (0, 0.0)
    if _is_number(value):
        return (1, float(value))  # type: ignore[arg-type]
    if isinstance(value, str):
        return (2, value)
    return (3, canonical(value))


def _same_column(ours: list[object], theirs: list[object], match: _Matcher) -> bool:
    """Whether two columns in value order hold the same values, within the tolerance."""
    if ours == theirs:
        return True
    return len(ours) == len(theirs) and all(
        match.same(a, b) for a, b in zip(ours, theirs, strict=True)
    )


def tied_rows(
    expected: Table, lifted: Table, ordering: Ordering, *, tolerance: float, read: int
) -> tuple[Row, ...] | None:
    """The rows the last group of ``expected`` may hold: those of ``lifted`` (the reference's
    result with its LIMIT raised to ``read``) whose ordering keys equal its last row's. None
    when the LIMIT cut nothing, or what was read may stop inside the tie, or ``lifted`` does not
    hold ``expected``'s last group (then the keys alone are compared)."""
    limit = ordering.limit
    if not ordering.keys or limit is None or len(expected.rows) != limit or not limit:
        return None
    if len(lifted.columns) != len(expected.columns):
        return None
    match = _Matcher(tolerance)
    key = [expected.rows[-1][k] for k in ordering.keys]
    tied = [row for row in lifted.rows if match.same_row(key, [row[k] for k in ordering.keys])]
    if len(lifted.rows) >= read and tied and lifted.rows[-1] is tied[-1]:
        return None
    start = _groups(expected.rows, ordering.keys, match)[-1][0]
    if not _within(expected.rows[start:], tied, match):
        return None
    return tuple(tied)


def _within(rows: Sequence[Row], pool: Sequence[Row], match: _Matcher) -> bool:
    """Whether ``pool`` holds every one of ``rows`` (a sub-multiset), value by value: keys are
    rounded, so equal keys alone would let in a value past the tolerance. Past
    :data:`MAX_GREEDY_ROWS` squared pairs, equal keys are taken as enough."""
    if len(rows) * len(pool) <= MAX_GREEDY_ROWS * MAX_GREEDY_ROWS:
        return _paired(rows, pool, match)
    available = Counter(repr(match.row_key(row)) for row in pool)
    wanted = Counter(repr(match.row_key(row)) for row in rows)
    return all(available[key] >= count for key, count in wanted.items())


def _rows_match(
    expected: Sequence[Row],
    actual: Sequence[Row],
    ordering: Ordering | None,
    match: _Matcher,
    tied: Sequence[Row] | None,
) -> bool:
    if len(expected) != len(actual):
        return False
    if ordering is None or not ordering.keys:
        return _same_multiset(expected, actual, match)
    for start, end in _groups(expected, ordering.keys, match):
        last = end == len(expected) and ordering.limit == len(expected)
        if last:
            key = [expected[start][k] for k in ordering.keys]
            if not all(
                match.same_row(key, [row[k] for k in ordering.keys]) for row in actual[start:end]
            ):
                return False
            if tied is not None and not _within(actual[start:end], tied, match):
                return False
        elif not _same_multiset(expected[start:end], actual[start:end], match):
            return False
    return True


def _groups(rows: Sequence[Row], keys: tuple[int, ...], match: _Matcher) -> list[tuple[int, int]]:
    """Runs of consecutive rows with equal ordering keys, as (start, end) positions."""
    groups: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(rows) + 1):
        if index == len(rows) or not match.same_row(
            [rows[start][k] for k in keys], [rows[index][k] for k in keys]
        ):
            groups.append((start, index))
            start = index
    return groups


def _same_multiset(expected: Sequence[Row], actual: Sequence[Row], match: _Matcher) -> bool:
    if len(expected) != len(actual):
        return False
    ours = sorted(expected, key=match.row_order)
    theirs = sorted(actual, key=match.row_order)
    if all(match.same_row(a, b) for a, b in zip(ours, theirs, strict=True)):
        return True
    if len(expected) > MAX_GREEDY_ROWS:
        return False
    return _paired(ours, theirs, match)


def _paired(rows: Sequence[Row], pool: Sequence[Row], match: _Matcher) -> bool:
    """Whether each of ``rows`` pairs with a row of ``pool`` of its own, taken one by one:
    rounding can put near-equal numbers apart where rows are compared by their keys. Rows of
    the pool with the row's own key are tried first, then the others."""
    unused: dict[str, list[Row]] = {}
    for other in pool:
        unused.setdefault(repr(match.row_key(other)), []).append(other)
    for row in rows:
        key = repr(match.row_key(row))
        if key in unused and _take(unused, key, row, match):
            continue
        if not any(_take(unused, other, row, match) for other in list(unused)):
            return False
    return True


def _take(unused: dict[str, list[Row]], key: str, row: Row, match: _Matcher) -> bool:
    """Remove from ``unused[key]`` the first row that matches ``row``; whether there was one."""
    group = unused[key]
    found = next((i for i, other in enumerate(group) if match.same_row(row, other)), None)
    if found is None:
        return False
    group.pop(found)
    if not group:
        del unused[key]
    return True


def _explain(
    expected: Sequence[Row], actual: Sequence[Row], ordering: Ordering | None, match: _Matcher
) -> str:
    wanted = Counter(repr(match.row_key(row)) for row in expected)
    got = Counter(repr(match.row_key(row)) for row in actual)
    missing = _shown_rows(expected, wanted - got, match)
    extra = _shown_rows(actual, got - wanted, match)
    parts = [f"expected {len(expected)} rows, got {len(actual)}"]
    if missing:
        parts.append(f"missing {missing}")
    if extra:
        parts.append(f"unexpected {extra}")
    if not missing and not extra:
        if not _same_multiset(expected, actual, match):
            return f"{parts[0]}; values differ past the tolerance of {match.tolerance:g}"
        if ordering is not None and ordering.keys:
            return f"{parts[0]}; the same rows, in another order than the reference's ORDER BY"
        return f"{parts[0]}; no column order makes the rows equal"
    return "; ".join(parts)


def _shown_rows(rows: Sequence[Row], keys: Counter[str], match: _Matcher) -> str:
    shown: list[str] = []
    total = sum(keys.values())
    for row in rows:
        key = repr(match.row_key(row))
        if keys[key] > 0 and len(shown) < SHOWN_ROWS:
            shown.append(_row_text(row))
            keys[key] = 0
    text = ", ".join(shown)
    more = total - len(shown)
    return f"{text} (+{more} more)" if more > 0 and shown else text


def _row_text(row: Row) -> str:
    text = canonical(row)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _names(columns: Sequence[str]) -> str:
    text = ", ".join(columns[:8]) + (", ..." if len(columns) > 8 else "")
    return text[:200]
