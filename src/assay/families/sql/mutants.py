"""Mutants of a sql task's reference query, for the audit's mutation check.

Each mutant changes one thing in the reference's sqlglot tree, the way real mistakes look:

- ``drop-predicate``: one conjunct of ``WHERE`` or ``HAVING`` left out (the whole clause when it
  has one), or one of several conjuncts of a join's ``ON``;
- ``flip-comparison``: ``<`` and ``<=``, ``>`` and ``>=``, ``=`` and ``<>`` swapped;
- ``null-check``: ``IS NULL`` and ``IS NOT NULL`` swapped;
- ``join-type``: an inner join made ``LEFT`` and a ``LEFT`` join made inner, except where the two
  cannot differ: a ``WHERE`` conjunct compares a column of the joined table (NULL never passes it),
  or the join follows a declared foreign key that may not be NULL to the joined table's key;
- ``change-aggregate``: ``COUNT(col)`` and ``COUNT(*)``, ``SUM`` and ``AVG``, ``MIN`` and ``MAX``;
- ``drop-distinct``: ``SELECT DISTINCT`` and ``COUNT(DISTINCT ...)`` without ``DISTINCT``;
- ``shift-boundary``: a number or date compared with a column moved by one unit either way (one,
  the last decimal place, a day, a second);
- ``flip-order``: one ``ORDER BY`` key sorted the other way, and ``drop-order``: the outermost
  ``ORDER BY`` left out; both only where order can matter (the task compares rows in order, or
  a ``LIMIT`` takes the first rows).

A suite of databases that lets a mutant pass cannot tell the reference from that near miss. A
mutant can also be equivalent to the reference in ways this does not see, so survivors are
shown for a person to judge.
"""

from __future__ import annotations

import datetime as dt
import decimal
import difflib
import re
from collections.abc import Callable, Iterator

from sqlglot import exp

from assay.families.base import Mutant
from assay.families.sql._schema import Table, load
from assay.families.sql.config import QUERY_FILE, SqlConfig
from assay.families.sql.databases import source
from assay.families.sql.gate import Accepted, check_query, database_statements, dialect
from assay.tasks.model import REFERENCE, Task

MAX_MUTANTS = 40
"""Mutants per task at most, spread evenly over the kinds' sites when there are more."""
DIFF_LINES = 12
"""Lines of a mutant's diff kept."""

_FLIPS: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.LT: exp.LTE,
    exp.LTE: exp.LT,
    exp.GT: exp.GTE,
    exp.GTE: exp.GT,
    exp.EQ: exp.NEQ,
    exp.NEQ: exp.EQ,
}
_AGGREGATES: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.Sum: exp.Avg,
    exp.Avg: exp.Sum,
    exp.Min: exp.Max,
    exp.Max: exp.Min,
}
_BOUNDED = (*_FLIPS, exp.Between)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")

Edit = Callable[[exp.Expr], None]
"""Changes the node it is given (a node of a copy of the tree) in place."""
Site = tuple[str, int, Edit]
"""A mutation's name, the position of its node in the tree's walk, and the edit."""


def sql_mutants(task: Task, config: SqlConfig) -> list[Mutant]:
    """Mutants of ``task``'s reference query; none when it does not pass the gate."""
    text = task.solutions.get(REFERENCE, {}).get(QUERY_FILE)
    if text is None:
        return []
    gate = check_query(text.decode("utf-8-sig", errors="replace"), config.engine)
    if not isinstance(gate, Accepted):
        return []
    visible = source(task.workspace.get(config.database, b""))
    return query_mutants(
        gate.tree,
        config.engine,
        tables=_tables(visible, config.engine),
        others=_other_references(task, config.engine),
        ordered=config.order != "unordered",
    )


def query_mutants(
    tree: exp.Query,
    engine: str,
    *,
    tables: dict[str, Table] | None = None,
    others: frozenset[str] = frozenset(),
    ordered: bool = True,
) -> list[Mutant]:
    """Mutants of one parsed query, deduplicated by text, none equal to ``others`` (the
    task's other references, as sqlglot writes them). ``tables``, the database's schema, tells
    which joins cannot change type; ``ordered``, whether results are compared in order."""
    read = dialect(engine)
    original = tree.sql(dialect=read, pretty=True)
    sites = _spread(list(_sites(tree, tables or {}, ordered=ordered)))
    mutants = []
    seen = {original, *others}
    for name, position, edit in sites:
        copy = tree.copy()
        node = list(copy.walk())[position]
        edit(node)
        mutated = copy.sql(dialect=read, pretty=True)
        if mutated in seen or not isinstance(check_query(mutated, engine), Accepted):
            continue
        seen.add(mutated)
        mutants.append(
            Mutant(name=name, diff=_diff(original, mutated), files={QUERY_FILE: mutated.encode()})
        )
    return mutants


def _other_references(task: Task, engine: str) -> frozenset[str]:
    texts = set()
    for name, files in task.references().items():
        gate = check_query(files.get(QUERY_FILE, b"").decode("utf-8-sig", errors="replace"), engine)
        if name != REFERENCE and isinstance(gate, Accepted):
            texts.add(gate.tree.sql(dialect=dialect(engine), pretty=True))
    return frozenset(texts)


def _spread(sites: list[Site]) -> list[Site]:
    """At most :data:`MAX_MUTANTS` sites, taken evenly over the list (kinds are in order)."""
    if len(sites) <= MAX_MUTANTS:
        return sites
    step = len(sites) / MAX_MUTANTS
    return [sites[int(i * step)] for i in range(MAX_MUTANTS)]


def _diff(original: str, mutated: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(),
        mutated.splitlines(),
        f"reference/{QUERY_FILE}",
        "mutant",
        n=1,
        lineterm="",
    )
    return "\n".join(list(lines)[2 : 2 + DIFF_LINES])


def _tables(visible: str, engine: str) -> dict[str, Table]:
    statements = database_statements(visible, engine)
    if isinstance(statements, str):
        return {}
    try:
        return load(statements, engine)
    except ValueError:
        return {}


def _sites(tree: exp.Query, tables: dict[str, Table], *, ordered: bool = True) -> Iterator[Site]:
    """Every place one mutation applies, kind by kind."""
    nodes = list(tree.walk())
    kinds: list[Callable[[exp.Expr], Iterator[tuple[str, Edit]]]] = [
        _predicates,
        _comparisons,
        lambda node: _joins(node, tables),
        _aggregates,
        _distincts,
        _boundaries,
        lambda node: _orderings(node, tree, ordered=ordered),
    ]
    for kind in kinds:
        for position, node in enumerate(nodes):
            for name, edit in kind(node):
                yield name, position, edit


def _predicates(node: exp.Expr) -> Iterator[tuple[str, Edit]]:
    """Each conjunct of a WHERE or HAVING, and each of several conjuncts of a join's ON."""
    parent = node.parent
    if isinstance(parent, exp.Where | exp.Having) and not isinstance(node, exp.And):
        yield "drop-predicate", _drop_clause
    elif isinstance(parent, exp.And) and not isinstance(node, exp.And) and _in_filter(parent):
        yield "drop-predicate", _drop_conjunct


def _in_filter(node: exp.Expr) -> bool:
    """Whether ``node`` is part of the AND-chain at the top of a WHERE, HAVING or ON."""
    while isinstance(node.parent, exp.And):
        node = node.parent
    holder = node.parent
    if isinstance(holder, exp.Where | exp.Having):
        return True
    return isinstance(holder, exp.Join) and holder.args.get("on") is node


def _drop_clause(node: exp.Expr) -> None:
    clause = node.parent
    if clause is not None:
        clause.pop()


def _drop_conjunct(node: exp.Expr) -> None:
    parent = node.parent
    if isinstance(parent, exp.And):
        other = parent.expression if parent.this is node else parent.this
        parent.replace(other)


def _comparisons(node: exp.Expr) -> Iterator[tuple[str, Edit]]:
    flipped = _FLIPS.get(type(node))
    if flipped is not None:
        yield (
            "flip-comparison",
            lambda n: _replace(n, flipped(this=n.this, expression=n.expression)),
        )
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        if isinstance(node.parent, exp.Not):
            yield "null-check", _replace_parent
        else:
            yield "null-check", lambda n: _replace(n, exp.Not(this=n.copy()))


def _replace(node: exp.Expr, new: exp.Expr) -> None:
    node.replace(new)


def _replace_parent(node: exp.Expr) -> None:
    """``NOT (x IS NULL)`` becomes ``x IS NULL``."""
    if node.parent is not None:
        node.parent.replace(node.copy())


def _joins(node: exp.Expr, tables: dict[str, Table]) -> Iterator[tuple[str, Edit]]:
    if not isinstance(node, exp.Join) or node.args.get("on") is None:
        return
    if _null_rejected(node) or _required_key(node, tables):
        return
    side = str(node.args.get("side") or "").upper()
    kind = str(node.args.get("kind") or "").upper()
    if side == "LEFT" and kind not in {"ANTI", "SEMI"}:
        yield "join-type", _make_inner
    elif not side and kind in ("", "INNER"):
        yield "join-type", _make_left


def _null_rejected(join: exp.Join) -> bool:
    """Whether a conjunct of the query's WHERE compares a column of the joined table, so that
    rows a LEFT join makes up (NULL there) never pass it: both join types give the same rows."""
    select = join.parent
    where = select.args.get("where") if isinstance(select, exp.Select) else None
    if where is None:
        return False
    name = join.this.alias_or_name.lower()
    conjuncts = where.this.flatten() if isinstance(where.this, exp.And) else [where.this]
    for conjunct in conjuncts:
        if not isinstance(conjunct, exp.Expr) or not isinstance(
            conjunct, (*_FLIPS, exp.Between, exp.In, exp.Like)
        ):
            continue
        if conjunct.find(exp.Coalesce, exp.Case, exp.If, exp.Is, exp.Or) is not None:
            continue
        if any(column.table.lower() == name for column in conjunct.find_all(exp.Column)):
            return True
    return False


def _required_key(join: exp.Join, tables: dict[str, Table]) -> bool:
    """Whether the join is ``ON parent.key = child.column`` for a declared foreign key that may
    not be NULL, the joined table being the parent: every child row finds its parent."""
    condition = join.args.get("on")
    select = join.parent
    if not isinstance(condition, exp.EQ) or not isinstance(select, exp.Select):
        return False
    left, right = condition.this, condition.expression
    if not isinstance(left, exp.Column) or not isinstance(right, exp.Column):
        return False
    aliases = {t.alias_or_name.lower(): t.name.lower() for t in select.find_all(exp.Table)}
    joined = join.this.alias_or_name.lower()
    if right.table.lower() == joined:
        left, right = right, left
    if left.table.lower() != joined:
        return False
    parent, child = (
        tables.get(aliases.get(joined, "")),
        tables.get(aliases.get(right.table.lower(), "")),
    )
    if parent is None or child is None:
        return False
    key, column = parent.index(left.name), child.index(right.name)
    if key is None or column is None or child.columns[column].nullable:
        return False
    return (child.name.lower(), column, key) in parent.children


def _make_inner(node: exp.Expr) -> None:
    node.set("side", None)
    node.set("kind", None)


def _make_left(node: exp.Expr) -> None:
    node.set("kind", None)
    node.set("side", "LEFT")


def _aggregates(node: exp.Expr) -> Iterator[tuple[str, Edit]]:
    swapped = _AGGREGATES.get(type(node))
    if swapped is not None:
        yield "change-aggregate", lambda n: _replace(n, swapped(this=n.this))
    if not isinstance(node, exp.Count):
        return
    if isinstance(node.this, exp.Column):
        yield "change-aggregate", lambda n: n.set("this", exp.Star())
    elif isinstance(node.this, exp.Star):
        column = _outer_joined_column(node)
        if column is not None:
            yield "change-aggregate", lambda n: n.set("this", column.copy())


def _outer_joined_column(count: exp.Count) -> exp.Column | None:
    """A column of a LEFT-joined table in the join's ON, which ``COUNT(*)`` should have counted
    instead: NULL on the rows the join made up."""
    select = count.find_ancestor(exp.Select)
    if select is None:
        return None
    for join in select.args.get("joins") or []:
        if str(join.args.get("side") or "").upper() != "LEFT" or join.args.get("on") is None:
            continue
        name = join.this.alias_or_name.lower()
        for column in join.args["on"].find_all(exp.Column):
            if isinstance(column, exp.Column) and column.table.lower() == name:
                return column
    return None


def _distincts(node: exp.Expr) -> Iterator[tuple[str, Edit]]:
    distinct = node.args.get("distinct") if isinstance(node, exp.Select) else None
    if isinstance(distinct, exp.Distinct) and not distinct.args.get("on"):
        yield "drop-distinct", lambda n: n.set("distinct", None)
    counted = isinstance(node, exp.Distinct) and isinstance(node.parent, exp.Count)
    if counted and len(node.expressions) == 1:
        yield "drop-distinct", lambda n: _replace(n, n.expressions[0].copy())


def _orderings(node: exp.Expr, tree: exp.Query, *, ordered: bool) -> Iterator[tuple[str, Edit]]:
    """An ORDER BY key flipped, and the outermost ORDER BY dropped, where order can matter."""
    if not isinstance(node, exp.Order):
        return
    select = node.parent
    if not (ordered or (select is not None and select.args.get("limit") is not None)):
        return
    for position, key in enumerate(node.expressions):
        if isinstance(key, exp.Ordered):
            yield "flip-order", _flipping(position)
    if select is tree:
        yield "drop-order", _drop_order


def _flipping(position: int) -> Edit:
    def flip(order: exp.Expr) -> None:
        key = order.expressions[position]
        key.set("desc", not key.args.get("desc"))

    return flip


def _drop_order(order: exp.Expr) -> None:
    if order.parent is not None:
        order.parent.set("order", None)


def _boundaries(node: exp.Expr) -> Iterator[tuple[str, Edit]]:
    """A literal compared with something, one unit down and one unit up."""
    if not isinstance(node, exp.Literal) or not _compared(node):
        return
    for step in (-1, 1):
        shifted = _shift(node, step)
        if shifted is not None:
            yield "shift-boundary", _replacing(shifted)


def _replacing(new: exp.Expr) -> Edit:
    return lambda node: _replace(node, new.copy())


def _compared(node: exp.Expr) -> bool:
    parent = node.parent
    while isinstance(parent, exp.Cast | exp.Paren | exp.Neg):
        parent = parent.parent
    return isinstance(parent, _BOUNDED)


def _shift(literal: exp.Literal, step: int) -> exp.Literal | None:
    text = str(literal.this)
    if literal.is_string and _DATE.match(text):
        day = _date(text)
        return (
            None if day is None else exp.Literal.string((day + dt.timedelta(days=step)).isoformat())
        )
    if literal.is_string and _DATETIME.match(text):
        moment = _moment(text)
        if moment is None:
            return None
        shifted = moment + dt.timedelta(seconds=step)
        return exp.Literal.string(shifted.isoformat(sep=text[10]))
    if not literal.is_string and _NUMBER.match(text):
        value = decimal.Decimal(text)
        unit = decimal.Decimal(1).scaleb(value.as_tuple().exponent)  # type: ignore[arg-type]
        moved = value + step * unit
        return None if moved < 0 else exp.Literal(this=str(moved), is_string=False)
    return None


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _moment(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None
