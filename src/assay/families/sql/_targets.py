"""What a set of queries looks at: comparisons with literals, joins, ordering and grouping.

Read from the sqlglot trees of the queries that pass the gate. Columns are resolved to tables
through the query's aliases, or, unqualified, to every table in the query that has the column.
A column compared for equality (``=``, ``<>``, ``IN``, ``NOT IN``) is a choice among values; it
is kept with the other conditions its SELECT puts on the same row (``o.placed_at >= ...`` next to
``o.status IN (...)``), and with the tables the SELECT joins to that row by equal columns and
the conditions it puts on theirs (``c.country = 'FR'`` for ``o.customer_id = c.id``), so that
rows holding each of the column's values can be made inside what the query otherwise keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from assay.families.sql._schema import Table, link, literal
from assay.families.sql.gate import Accepted, check_query

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


@dataclass
class Targets:
    """What the queries look at, by table and column."""

    boundaries: list[tuple[str, str, list[object]]] = field(default_factory=list)
    joins: list[tuple[str, str, str, str]] = field(default_factory=list)
    ties: list[tuple[str, str]] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    windows: list[tuple[Choice, tuple[object, ...]]] = field(default_factory=list)
    """Each column compared with literals (a date window, a threshold), with the other
    conditions of its SELECT on the same row, and the literals."""


@dataclass(frozen=True)
class Related:
    """Another table of the same SELECT joined to a row by equal columns, with what the SELECT
    asks of its rows: an order counts only when its customer is French."""

    column: str
    """The column of the row's own table that the join compares."""
    table: str
    other: str
    """The column of ``table`` that the join compares with :attr:`column`."""
    alias: str
    conditions: tuple[str, ...]
    """SQLite text of the conditions of the SELECT over ``alias``'s columns alone."""


@dataclass(frozen=True)
class Choice:
    """A column a query compares for equality with literals, and what else it asks of the row."""

    table: str
    column: str
    alias: str
    """The name the conditions call the table by."""
    conditions: tuple[str, ...]
    """SQLite text of the other conditions of the same SELECT on the same row (its WHERE and
    its joins' ON), each over ``alias``'s columns only and holding no subquery."""
    related: tuple[Related, ...] = ()
    """The tables the SELECT joins to the row whose rows it puts conditions on: a row that no
    row of one of them meeting those conditions joins is dropped by the query anyway."""


_SIMPLE = (
    exp.Column,
    exp.Identifier,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Paren,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Is,
    exp.In,
    exp.Between,
    exp.Like,
    exp.ILike,
    exp.Cast,
    exp.DataType,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Neg,
    exp.Coalesce,
    exp.Lower,
    exp.Upper,
    *_COMPARISONS,
)
"""What a condition may be made of to be evaluated by the trusted process (no function that
could make it costly)."""


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
            if isinstance(node, exp.EQ | exp.NEQ | exp.In):
                for choice in _conditioned(node, tables):
                    if choice not in targets.choices:
                        targets.choices.append(choice)
            if isinstance(node, exp.LT | exp.LTE | exp.GT | exp.GTE | exp.Between):
                _window(node, tables, targets)
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
        values = [literal(node.args.get("low")), literal(node.args.get("high"))]
    elif isinstance(node, exp.In):
        values = [literal(item) for item in node.expressions]
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
        values = [literal(right)]
    if not isinstance(left, exp.Column):
        return
    literals = [value for value in values if value is not None]
    if isinstance(node, exp.Like):
        literals = [v.replace("%", "x").replace("_", "y") for v in literals if isinstance(v, str)]
    for table in _owners(left, aliases, scope, tables):
        targets.boundaries.append((table, left.name, literals))


def _conditioned(node: exp.Expr, tables: dict[str, Table]) -> list[Choice]:
    """``node``'s column with the other conditions of its SELECT on the same row, one for each
    table of the SELECT it may belong to, when ``node`` compares a column with literals only
    (none otherwise)."""
    select = node.find_ancestor(exp.Select)
    column, other = node.this, node.args.get("expression")
    if not isinstance(column, exp.Column):
        column, other = other, column
    if isinstance(node, exp.In):
        values = node.expressions
    elif isinstance(node, exp.Between):
        values = [node.args.get("low"), node.args.get("high")]
    else:
        values = [other]
    if select is None or not isinstance(column, exp.Column):
        return []
    if not values or any(literal(value) is None for value in values):
        return []
    sources = _sources(select, tables)
    found = []
    for alias in _aliases_of(column, sources, tables):
        conditions = tuple(
            condition.sql(dialect="sqlite")
            for condition in _conditions(select)
            if _about(condition, alias, sources, tables)
            and not any(
                c.name.lower() == column.name.lower() for c in condition.find_all(exp.Column)
            )
        )
        related = _related(select, alias, sources, tables)
        found.append(Choice(sources[alias], column.name, alias, conditions, related))
    return found


def _related(
    select: exp.Select, alias: str, sources: dict[str, str], tables: dict[str, Table]
) -> tuple[Related, ...]:
    """The tables joined to ``alias`` by an equality of columns in ``select``'s WHERE or ON,
    each with the conditions ``select`` puts on its rows alone (those it puts none on left out)."""
    found = []
    for condition in _conditions(select):
        if not isinstance(condition, exp.EQ):
            continue
        ends = [condition.this, condition.expression]
        if not all(isinstance(end, exp.Column) for end in ends):
            continue
        owners = [_aliases_of(end, sources, tables) for end in ends]
        for mine, theirs in ((0, 1), (1, 0)):
            if owners[mine] != [alias] or len(owners[theirs]) != 1 or owners[theirs] == [alias]:
                continue
            other = owners[theirs][0]
            conditions = tuple(
                c.sql(dialect="sqlite")
                for c in _conditions(select)
                if _about(c, other, sources, tables)
            )
            if conditions:
                column, joined = ends[mine].name, ends[theirs].name
                found.append(Related(column, sources[other], joined, other, conditions))
    return tuple(dict.fromkeys(found))


def _window(node: exp.Expr, tables: dict[str, Table], targets: Targets) -> None:
    """Record an ordering comparison of a column with literals (``<``, ``>=``, ``BETWEEN``)
    together with the other conditions on its row, for rows on its edges that the rest of
    the query keeps."""
    values: tuple[object, ...]
    if isinstance(node, exp.Between):
        values = (literal(node.args.get("low")), literal(node.args.get("high")))
    else:
        side = node.args.get("expression")
        values = (literal(side if isinstance(node.this, exp.Column) else node.this),)
    for choice in _conditioned(node, tables):
        wanted = choice.conditions or choice.related
        if wanted and (choice, values) not in targets.windows:
            targets.windows.append((choice, values))


def _sources(select: exp.Select, tables: dict[str, Table]) -> dict[str, str]:
    """The tables a SELECT reads directly (its FROM and joins), by the name it gives them."""
    found: dict[str, str] = {}
    sources = [select.args.get("from_"), *(select.args.get("joins") or [])]
    for source in sources:
        if source is not None and isinstance(source.this, exp.Table):
            table = source.this
            if table.name.lower() in tables:
                found[table.alias_or_name.lower()] = table.name.lower()
    return found


def _aliases_of(column: exp.Column, sources: dict[str, str], tables: dict[str, Table]) -> list[str]:
    if column.table:
        alias = column.table.lower()
        return [alias] if alias in sources else []
    return [a for a, name in sources.items() if tables[name].index(column.name) is not None]


def _conditions(select: exp.Select) -> list[exp.Expr]:
    """The conjuncts of a SELECT's WHERE and of its joins' ON."""
    wheres = [select.args.get("where"), *(j.args.get("on") for j in select.args.get("joins") or [])]
    found: list[exp.Expr] = []
    for node in wheres:
        if node is not None:
            found.extend(_conjuncts(node.this if isinstance(node, exp.Where) else node))
    return found


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.And):
        return [*_conjuncts(node.this), *_conjuncts(node.expression)]
    if isinstance(node, exp.Paren) and isinstance(node.this, exp.And):
        return _conjuncts(node.this)
    return [node]


def _about(
    condition: exp.Expr, alias: str, sources: dict[str, str], tables: dict[str, Table]
) -> bool:
    """Whether ``condition`` is simple and reads columns of ``alias`` alone."""
    if not all(isinstance(node, _SIMPLE) for node in condition.walk()):
        return False
    columns = list(condition.find_all(exp.Column))
    return bool(columns) and all(_aliases_of(c, sources, tables) == [alias] for c in columns)


def _owners(
    column: exp.Column, aliases: dict[str, str], scope: list[str], tables: dict[str, Table]
) -> list[str]:
    if column.table:
        table = aliases.get(column.table.lower())
        return [table] if table in tables else []
    return [t for t in scope if t in tables and tables[t].index(column.name) is not None]
