"""What a set of queries looks at: comparisons with literals, joins, ordering and grouping.

Read from the sqlglot trees of the queries that pass the gate. Columns are resolved to tables
through the query's aliases, or, unqualified, to every table in the query that has the column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from assay.families.sql._schema import Table, link
from assay.families.sql.gate import Accepted, check_query

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


@dataclass
class Targets:
    """What the queries look at, by table and column."""

    boundaries: list[tuple[str, str, list[object]]] = field(default_factory=list)
    joins: list[tuple[str, str, str, str]] = field(default_factory=list)
    ties: list[tuple[str, str]] = field(default_factory=list)


def targets(queries: Sequence[str], tables: dict[str, Table], engine: str) -> Targets:
    targets = Targets()
    for text in queries:
        gate = check_query(text, engine)
        if not isinstance(gate, Accepted):
            continue
        tree = gate.tree
        aliases = {t.alias_or_name.lower(): t.name.lower() for t in tree.find_all(exp.Table)}
        scope = sorted(set(aliases.values()))
        for node in tree.find_all(*_COMPARISONS, exp.Between, exp.In, exp.Like):
            _comparison(node, aliases, scope, tables, targets)
        for clause in tree.find_all(exp.Ordered, exp.Group):
            for column in clause.find_all(exp.Column):
                for table in _owners(column, aliases, scope, tables):
                    targets.ties.append((table, column.name))
    return targets


def _comparison(
    node: exp.Expr,
    aliases: dict[str, str],
    scope: list[str],
    tables: dict[str, Table],
    targets: Targets,
) -> None:
    left, right = node.this, node.args.get("expression")
    if isinstance(node, exp.Between):
        values = [_literal(node.args.get("low")), _literal(node.args.get("high"))]
    elif isinstance(node, exp.In):
        values = [_literal(item) for item in node.expressions]
    else:
        if isinstance(left, exp.Column) and isinstance(right, exp.Column):
            for a in _owners(left, aliases, scope, tables):
                for b in _owners(right, aliases, scope, tables):
                    targets.joins.append((a, left.name, b, right.name))
                    link(tables, a, left.name, b, right.name)
                    link(tables, b, right.name, a, left.name)
            return
        if not isinstance(left, exp.Column):
            left, right = right, left
        values = [_literal(right)]
    if not isinstance(left, exp.Column):
        return
    literals = [value for value in values if value is not None]
    if isinstance(node, exp.Like):
        literals = [v.replace("%", "x").replace("_", "y") for v in literals if isinstance(v, str)]
    for table in _owners(left, aliases, scope, tables):
        targets.boundaries.append((table, left.name, literals))


def _owners(
    column: exp.Column, aliases: dict[str, str], scope: list[str], tables: dict[str, Table]
) -> list[str]:
    if column.table:
        table = aliases.get(column.table.lower())
        return [table] if table in tables else []
    return [t for t in scope if t in tables and tables[t].index(column.name) is not None]


def _literal(node: object) -> object:
    if isinstance(node, exp.Cast | exp.Paren):
        return _literal(node.this)
    if isinstance(node, exp.Neg):
        inner = _literal(node.this)
        return -inner if isinstance(inner, int | float) else None
    if not isinstance(node, exp.Literal):
        return None
    return str(node.this) if node.is_string else _number(str(node.this))


def _number(text: str) -> int | float | None:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return None
