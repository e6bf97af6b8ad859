"""Whether, and by what, a reference query orders its rows.

Only the outermost ``ORDER BY`` counts (one inside a subquery orders nothing the result keeps).
Its keys are mapped to the result's columns: a position (``ORDER BY 2``), an output name or alias
(``ORDER BY total``), or an expression written as one of the projections. Mapping stops at the
first key that is none of these; then rows equal in the keys before it are ties, which is more
lenient than the engine and never stricter (lint warns about such references).
"""

from __future__ import annotations

from sqlglot import exp

from assay.families.sql.compare import Ordering

TIE_ROWS = 1000
"""Rows read past a reference's LIMIT to learn which rows tie with its last ones."""


def ordering(tree: exp.Query, columns: tuple[str, ...]) -> Ordering | None:
    """How the reference ``tree`` orders a result with ``columns``; None when it does not."""
    order = tree.args.get("order")
    if not isinstance(order, exp.Order) or not order.expressions:
        return None
    projections = _projections(tree)
    keys: list[int] = []
    for ordered in order.expressions:
        index = _key_index(ordered.this, columns, projections)
        if index is None:
            break
        keys.append(index)
    return Ordering(keys=tuple(keys), limit=_limit(tree))


def lifted(tree: exp.Query, engine: str, max_rows: int) -> tuple[str, int] | None:
    """The reference ``tree`` with its LIMIT raised by :data:`TIE_ROWS` (at most ``max_rows``),
    as text for ``engine``, and that LIMIT; None when it has no ORDER BY or no literal LIMIT, or
    the LIMIT cannot be raised."""
    limit = _limit(tree)
    order = tree.args.get("order")
    if limit is None or not isinstance(order, exp.Order) or limit >= max_rows:
        return None
    read = min(max_rows, limit + TIE_ROWS)
    raised = tree.copy()
    raised.set("limit", exp.Limit(expression=exp.Literal.number(read)))
    return raised.sql(dialect=engine), read


def unmapped_keys(tree: exp.Query) -> list[str]:
    """ORDER BY keys of ``tree`` that name no projection (for lint; the result's column names
    are not known without running it, so only aliases and expressions are used)."""
    order = tree.args.get("order")
    if not isinstance(order, exp.Order):
        return []
    projections = _projections(tree)
    if any(isinstance(expression, exp.Star) for _, expression in projections):
        return []
    names = tuple(name for name, _ in projections)
    return [
        ordered.this.sql()
        for ordered in order.expressions
        if _key_index(ordered.this, names, projections) is None
    ]


def _projections(tree: exp.Query) -> list[tuple[str, exp.Expr]]:
    """Output names and expressions of a SELECT (the left branch of a set operation)."""
    select: exp.Expr = tree
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select):
        return []
    return [
        (p.alias_or_name, p.this if isinstance(p, exp.Alias) else p) for p in select.expressions
    ]


def _key_index(
    key: exp.Expr, columns: tuple[str, ...], projections: list[tuple[str, exp.Expr]]
) -> int | None:
    if isinstance(key, exp.Literal) and key.is_int:
        position = int(key.this) - 1
        return position if 0 <= position < len(columns) else None
    names = [column.lower() for column in columns]
    if isinstance(key, exp.Column) and not key.table:
        wanted = key.name.lower()
        if names.count(wanted) == 1:
            return names.index(wanted)
    text = key.sql()
    for index, (_, expression) in enumerate(projections):
        if expression.sql() == text and index < len(columns):
            return index
    return None


def _limit(tree: exp.Query) -> int | None:
    limit = tree.args.get("limit")
    if isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal):
        text = limit.expression.this
        if str(text).isdigit():
            return int(text)
    return None
