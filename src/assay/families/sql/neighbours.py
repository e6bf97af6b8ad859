"""Neighbour databases: the visible database's schema with rows made to tell queries apart.

Zhong et al. (2020) showed that comparing denotations on one database misjudges queries that
are right only on its data; a suite of neighbours built to separate near-miss queries fixes most
of that. This is a first, seeded and deterministic generator. Each neighbour starts from the
visible rows (some dropped from tables nothing references) and adds rows cloned from them:

- for every comparison of a column with a literal in the given queries (``=``, ``<>``, ``<``,
  ``<=``, ``>``, ``>=``, ``BETWEEN``, ``IN``, ``LIKE``): rows on the literal and on either side of
  it (the next integer, a cent, a day, a second; the last second of a day for a date; a cent
  and a unit for a whole amount), some in a group of their own whose children refer to new
  parents, and some of those referring to a new parent themselves (so that a distinct count
  over the window, or a DISTINCT over a parent's column, changes too). Rows on the edges of a
  window are copied from rows the rest of the query keeps: rows meeting its other conditions
  on the same row, and joined to rows of other tables that meet the conditions on those (an
  order of a French customer, for French customers' orders since March);
- for every join of two columns: a parent row that nothing joins (an empty group) and, where no
  foreign key forbids it, a child row whose key matches no parent (an orphan);
- NULL in every nullable column; a duplicate of a row (new keys, same values) for DISTINCT;
  rows tied on the ordering and grouping columns for ORDER BY, LIMIT and GROUP BY;
- values of a column shuffled between rows.

One more database holds the visible rows and, for every column compared for equality with
literals (``=``, ``<>``, ``IN``, ``NOT IN``) whose values are a short list (a CHECK constraint
names them, or the visible rows hold only a few), rows holding each of those values, cloned
from rows that meet the query's other conditions on the same row (inside its date window, say):
``status <> 'cancelled'`` is then told apart from ``status IN ('paid', 'shipped')`` when the
column may also hold ``'refunded'``. Those rows get a database of their own because, added to
the others, they could hide what those tell apart (a DISTINCT over a few countries that they
fill up).

Rows that break a constraint of the schema (primary key, UNIQUE, NOT NULL, CHECK, a declared
foreign key) are left out, so every neighbour keeps the schema and its constraints. The result
is SQL text: the visible database's CREATE statements, then one INSERT per table.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Sequence
from pathlib import Path

import sqlglot
from sqlglot import exp

from assay.errors import TaskFormatError
from assay.families.sql._schema import Column, Table, admitted, dump, load, satisfying, schema_texts
from assay.families.sql._targets import Choice, Targets, targets
from assay.families.sql.config import NEIGHBOURS_DIR, QUERY_FILE, sql_config
from assay.families.sql.databases import Database, engine_file
from assay.families.sql.gate import database_statements
from assay.tasks.taskdir import load_task

DEFAULT_COUNT = 4
MAX_CHOICE_VALUES = 8
"""Most distinct values the visible rows of a column without a CHECK list may hold for the
column to be taken as a choice among values."""
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$")


def neighbours(
    visible: str,
    queries: Sequence[str],
    *,
    engine: str = "sqlite",
    seed: int = 0,
    count: int = DEFAULT_COUNT,
) -> list[str]:
    """``count`` neighbour databases of ``visible`` (SQL text) as SQL text, made to separate
    queries near ``queries``, and one more holding the rows made for their choices among values
    when they make any. Raises :class:`ValueError` when ``visible`` is not a database."""
    statements = database_statements(visible, engine)
    if isinstance(statements, str):
        raise ValueError(statements)  # noqa: TRY004 - the text is wrong, not its type
    creates = [s for s in statements if isinstance(s, exp.Create)]
    schema = "\n\n".join(schema_texts(visible, engine))
    tables = load(statements, engine)
    aims = targets(queries, tables, engine)
    kept = [
        (choice, [tables[choice.table].rows[i] for i in _kept(tables, creates, choice)])
        for choice in aims.choices
    ]
    windows = [
        (choice, values, [tables[choice.table].rows[i] for i in _kept(tables, creates, choice)])
        for choice, values in aims.windows
    ]
    made = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        rows = _neighbour(tables, aims, windows, rng)
        made.append(dump(schema, admitted(tables, rows, creates, engine), engine))
    maker = _Neighbour(tables, random.Random(f"{seed}:choices"), drop=False)
    maker.choices(kept)
    if maker.added:  # a database of its own: rows added to the others could hide what they tell
        made.append(dump(schema, admitted(tables, maker.result(), creates, engine), engine))
    return made


def write_neighbours(
    task_dir: Path,
    *,
    count: int = DEFAULT_COUNT,
    seed: int | None = None,
    known_bad: bool = False,
) -> list[Path]:
    """Generate the neighbours of the task in ``task_dir`` from its visible database and its
    references' queries, replacing ``hidden/databases/``; returns the files written.

    With ``known_bad``, the known-bad queries' literals are targeted too. Off by default: a suite
    built to catch the known-bad queries would prove little when the audit then checks that it
    catches them."""
    task = load_task(task_dir)
    config = sql_config(task)
    visible = task.workspace.get(config.database)
    if visible is None:
        raise TaskFormatError(
            f"workspace/{config.database} does not exist",
            path=task_dir / "task.toml",
            field="sql.database",
            fix="name the visible database's .sql file in workspace/",
        )
    solutions = task.solutions if known_bad else task.references()
    queries = [
        _text(files[QUERY_FILE], task_dir / "solutions" / name / QUERY_FILE)
        for name, files in solutions.items()
        if QUERY_FILE in files
    ]
    database = task_dir / "workspace" / config.database
    visible_text = _text(visible, database)
    try:
        texts = neighbours(
            visible_text,
            queries,
            engine=config.engine,
            seed=config.seed if seed is None else seed,
            count=count,
        )
    except ValueError as exc:
        raise TaskFormatError(str(exc), path=database, fix="fix the database text") from None
    for number, text in enumerate(texts, start=1):  # each must build on the task's engine
        name = f"hidden/{NEIGHBOURS_DIR}/n{number:02d}.sql"
        engine_file(task.id, Database(name, text.encode()), config.engine)
    directory = task_dir / "hidden" / NEIGHBOURS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.sql"):
        old.unlink()
    written = []
    for number, text in enumerate(texts, start=1):
        path = directory / f"n{number:02d}.sql"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _text(data: bytes, path: Path) -> str:
    """``data`` read as the verifier reads it (UTF-8, a byte order mark dropped); raises
    :class:`TaskFormatError` naming ``path`` when it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + len(data) - len(exc.object)  # the decoder counts past the mark
        raise TaskFormatError(
            f"not UTF-8 text: byte {at} is {data[at]:#04x}",
            path=path,
            fix="save it as UTF-8",
        ) from None


def _around(value: object, kind: str) -> list[object]:  # noqa: PLR0911 - one answer per kind
    """``value`` and the values just on either side of it."""
    if isinstance(value, bool):
        return [value]
    if isinstance(value, int) and kind != "real":
        return [value - 1, value, value + 1]
    if isinstance(value, int):  # a whole amount: a cent and a unit either side
        return [value - 1, round(value - 0.01, 6), value, round(value + 0.01, 6), value + 1]
    if isinstance(value, float):
        return [round(value - 0.01, 6), value, round(value + 0.01, 6)]
    if isinstance(value, str) and _DATE.match(value):
        day = dt.date.fromisoformat(value)
        one = dt.timedelta(days=1)
        before, after = (day - one).isoformat(), (day + one).isoformat()
        return [
            before,
            value,
            after,
            f"{before} 23:59:59",
            f"{value} 00:00:00",
            f"{value} 23:59:59",
        ]
    if isinstance(value, str) and _DATETIME.match(value):
        moment = dt.datetime.fromisoformat(value)
        second = dt.timedelta(seconds=1)
        return [str(moment - second), value, str(moment + second)]
    if isinstance(value, str):
        return [value, value.upper() if value != value.upper() else value.lower(), value + " "]
    return [value]


_Window = tuple[Choice, tuple[object, ...], list[list[object]]]
"""A window's column and conditions, its literals, and the visible rows that meet its conditions."""


def _kept(tables: dict[str, Table], creates: Sequence[exp.Expr], choice: Choice) -> list[int]:
    """Positions of the visible rows that meet the other conditions of ``choice``'s query, on
    the row and on the rows the query joins to it (an order of a French customer, when the
    query keeps French customers' orders only). When no row is joined to one that meets them,
    the rows that meet the row's own conditions."""
    kept = satisfying(tables, creates, choice.table, choice.alias, choice.conditions)
    table = tables[choice.table]
    joined = kept
    for related in choice.related:
        other = tables[related.table]
        mine, theirs = table.index(related.column), other.index(related.other)
        if mine is None or theirs is None:
            continue
        met = satisfying(tables, creates, related.table, related.alias, related.conditions)
        values = {other.rows[i][theirs] for i in met} - {None}
        joined = [i for i in joined if table.rows[i][mine] in values]
    return joined or kept


def _read(choice: Choice) -> dict[str, set[str]]:
    """The columns that the conditions on each table joined to ``choice``'s row read, by table:
    a new parent in a group of its own keeps their values, so the query keeps it too."""
    found: dict[str, set[str]] = {}
    for related in choice.related:
        for condition in related.conditions:
            tree = sqlglot.parse_one(condition, read="sqlite")
            columns = {c.name.lower() for c in tree.find_all(exp.Column)}
            found.setdefault(related.table, set()).update(columns)
    return found


def _choice_values(column: Column, rows: Sequence[Sequence[object]], index: int) -> list[object]:
    """The values a column compared for equality may hold: its CHECK list, or else the few
    values its visible rows hold (none when they hold many: then it is no choice)."""
    if column.allowed:
        return list(column.allowed)
    seen = list(dict.fromkeys(row[index] for row in rows if row[index] is not None))
    if column.key or not 1 < len(seen) <= MAX_CHOICE_VALUES or len(rows) < 2 * len(seen):
        return []
    return seen


def _neighbour(
    tables: dict[str, Table], aims: Targets, windows: Sequence[_Window], rng: random.Random
) -> list[tuple[str, list[object]]]:
    """The rows of one neighbour, table by table: the visible ones kept, then the added ones."""
    maker = _Neighbour(tables, rng)
    maker.boundaries(aims)
    maker.edges(windows)
    maker.joins(aims)
    maker.ties(aims)
    maker.nulls_and_duplicates()
    maker.shuffle()
    return maker.result()


class _Neighbour:
    """The rows of one neighbour as they are being made."""

    def __init__(self, tables: dict[str, Table], rng: random.Random, *, drop: bool = True) -> None:
        """With ``drop``, some rows of the tables nothing references are left out."""
        self.tables = tables
        self.rng = rng
        self.rows = {
            name: [
                list(r) for r in table.rows if not drop or table.referenced or rng.random() < 0.85
            ]
            for name, table in tables.items()
        }
        self.fresh = _Fresh(tables)
        self.added: list[tuple[str, list[object]]] = []

    def shuffle(self) -> None:
        """Values of a column moved between the kept visible rows of each table."""
        for name, table in self.tables.items():
            _shuffle(table, self.rows[name], self.rng)

    def result(self) -> list[tuple[str, list[object]]]:
        return [(name, row) for name in self.tables for row in self.rows[name]] + self.added

    def clone(
        self,
        name: str,
        changes: dict[str, object],
        *,
        children: bool = True,
        vary: bool = False,
        parents: bool = False,
        among: Sequence[list[object]] = (),
        keep: dict[str, set[str]] | None = None,
    ) -> list[object] | None:
        """Add a copy of a random row of ``name`` (of ``among`` when given) with fresh keys and
        ``changes`` and return it (None when the table has no row to copy); with ``children``,
        copies of its children too, so that it counts in joins and aggregates; with ``vary``,
        the children refer to new parents (see :meth:`_copy_children`); with ``parents``, the
        row itself does (see :meth:`_own_parents`, given ``keep``)."""
        table = self.tables[name]
        source = among or self.rows[name] or table.rows
        if not source:
            return None
        original = self.rng.choice(source)
        row = [
            self.fresh.value(name, i) if column.key else value
            for i, (column, value) in enumerate(zip(table.columns, original, strict=True))
        ]
        for column_name, value in changes.items():
            index = table.index(column_name)
            if index is not None:
                row[index] = value
        if parents:
            for index, value in self._own_parents(name, original, keep).items():
                row[index] = value
        self.added.append((name, row))
        if children:
            for child, child_index, parent_index in table.children:
                if row[parent_index] != original[parent_index]:
                    self._copy_children(
                        child, child_index, original[parent_index], row[parent_index], vary=vary
                    )
        return row

    def _copy_children(
        self, child: str, index: int, old: object, new: object, *, vary: bool = False
    ) -> None:
        """Copies of the children of ``old`` for ``new``. With ``vary``, each of their other
        references (a line's account) names a new parent of its own: a row on a boundary then
        adds a value no other row has, and a COUNT(DISTINCT ...) over the window sees it
        (copies referring to the same accounts changed no count)."""
        columns = self.tables[child].columns
        others = self._new_parents(child, index) if vary else {}
        for kid in [r for r in self.rows[child] if r[index] == old]:
            copied = [
                self.fresh.value(child, i) if c.key else value
                for i, (c, value) in enumerate(zip(columns, kid, strict=True))
            ]
            copied[index] = new
            for column, value in others.items():
                copied[column] = value
            self.added.append((child, copied))

    def _new_parents(self, child: str, skip: int) -> dict[int, object]:
        """For each column of ``child`` but ``skip`` that refers to a parent, the key of a new
        parent row (a copy with fresh keys and unique values, its other values kept, so that
        it meets the parent's CHECK constraints as the copied row does)."""
        found: dict[int, object] = {}
        for parent, table in self.tables.items():
            for name, column, parent_column in table.children:
                if name != child or column == skip or parent == child:
                    continue
                made = self.clone(parent, {}, children=False)  # fresh keys, values kept
                if made is not None:
                    found[column] = made[parent_column]
        return found

    def _own_parents(
        self, name: str, original: Sequence[object], keep: dict[str, set[str]] | None = None
    ) -> dict[int, object]:
        """For each column of ``name`` that refers to a parent, the key of a new parent row in a
        group of its own (a copy of the row ``original`` refers to, with fresh keys and text):
        a row on a boundary then adds a value no other row has to a DISTINCT or a GROUP BY
        over its parent's columns (an order on the window's last day from a country that no
        other order in the window comes from). The parent keeps the values of its columns
        named in ``keep`` (by table) that the query's conditions read."""
        found: dict[int, object] = {}
        for parent, table in self.tables.items():
            for child, column, parent_column in table.children:
                if child != name or parent == name:
                    continue
                referred = [r for r in self.rows[parent] if r[parent_column] == original[column]]
                kept = (keep or {}).get(parent, set())
                alone = {
                    column_name: value
                    for column_name, value in _new_group(table, self.fresh, parent).items()
                    if column_name.lower() not in kept
                }
                made = self.clone(parent, alone, children=False, among=referred)
                if made is not None:
                    found[column] = made[parent_column]
        return found

    def boundaries(self, aims: Targets) -> None:
        """Rows on each compared literal and on either side of it, alone in a group or not."""
        for name, column, literals in aims.boundaries:
            table = self.tables[name]
            index = table.index(column)
            kind = table.columns[index].kind if index is not None else "text"
            for value in (v for literal in literals for v in _around(literal, kind)):
                if self.rng.random() < 0.6:  # first: a unique column takes one value once
                    alone = {**_new_group(table, self.fresh, name), column: value}
                    self.clone(name, alone, vary=True, parents=self.rng.random() < 0.5)
                if self.rng.random() < 0.7:
                    self.clone(name, {column: value})

    def edges(self, windows: Sequence[_Window]) -> None:
        """Rows on the edges of each window, copied from rows that meet the query's other
        conditions: a row on a boundary that the rest of the query drops anyway tells nothing
        (a claim filed at 23:59 on the window's last day, but already assigned, left
        ``filed_at <= '2024-09-30'`` for ``filed_at < '2024-10-01'`` unseen)."""
        for choice, values, among in windows:
            table = self.tables[choice.table]
            index = table.index(choice.column)
            if index is None or not among:
                continue
            kind = table.columns[index].kind
            for value in (v for literal in values for v in _around(literal, kind)):
                self.clone(choice.table, {choice.column: value}, among=among)
                if self.rng.random() < 0.5:
                    alone = {**_new_group(table, self.fresh, choice.table), choice.column: value}
                    own, keep = self.rng.random() < 0.5, _read(choice)
                    self.clone(choice.table, alone, vary=True, parents=own, among=among, keep=keep)

    def joins(self, aims: Targets) -> None:
        """On both sides of each join: a row nothing joins, and an orphan where allowed."""
        for child, child_column, parent, parent_column in aims.joins:
            sides = ((parent, parent_column, child), (child, child_column, parent))
            for name, column, other in sides:
                self.clone(name, {}, children=False)  # a fresh key: an empty group
                index = self.tables[name].index(column)
                if index is not None and not self.tables[name].columns[index].key:
                    self.clone(name, {column: _absent(self.tables[other], column, self.rng)})

    def ties(self, aims: Targets) -> None:
        """A row sharing an ordering or grouping value with another."""
        for name, column in aims.ties:
            index = self.tables[name].index(column)
            if index is not None and self.rows[name]:
                self.clone(name, {column: self.rng.choice(self.rows[name])[index]})

    def choices(self, kept: Sequence[tuple[Choice, list[list[object]]]]) -> None:
        """For each column compared for equality, rows holding each value it may hold, copied
        from rows that meet the query's other conditions (any row when none does), one of them
        at times in a group of its own."""
        for choice, among in kept:
            table = self.tables[choice.table]
            index = table.index(choice.column)
            if index is None:
                continue
            for value in _choice_values(table.columns[index], table.rows, index):
                for _copy in range(2):
                    self.clone(choice.table, {choice.column: value}, among=among)
                alone = {**_new_group(table, self.fresh, choice.table), choice.column: value}
                self.clone(choice.table, alone, vary=True, among=among)

    def nulls_and_duplicates(self) -> None:
        """NULL in each nullable column (in a group of its own too), empty text in a nullable text
        column, and a duplicate row."""
        for name, table in self.tables.items():
            for column in table.columns:
                if column.nullable and self.rng.random() < 0.8:
                    self.clone(name, {column.name: None})
                if column.nullable and self.rng.random() < 0.8:
                    self.clone(name, {**_new_group(table, self.fresh, name), column.name: None})
                if column.nullable and column.kind == "text" and self.rng.random() < 0.6:
                    empty = {**_new_group(table, self.fresh, name), column.name: ""}
                    self.clone(name, empty)  # empty text, which is not NULL
            if table.rows:
                self.clone(name, {})  # a duplicate but for its keys


def _new_group(table: Table, fresh: _Fresh, name: str) -> dict[str, object]:
    """Fresh values for the text columns that are neither keys nor joined on: a row that no
    other row shares a group with. A column whose CHECK lists its values keeps the copied one:
    a fresh value would break the constraint, and the row would be left out."""
    linked = {index for _, _, index in table.children}
    return {
        column.name: f"{column.name}-{fresh.number(name, index)}"
        for index, column in enumerate(table.columns)
        if column.kind == "text" and not column.key and index not in linked and not column.allowed
    }


def _absent(table: Table, column: str, rng: random.Random) -> object:
    index = table.index(column)
    values = [row[index] for row in table.rows] if index is not None else []
    numbers = [v for v in values if isinstance(v, int)]
    if numbers or not values:
        return max(numbers, default=0) + rng.randint(1000, 9999)
    return f"missing-{rng.randint(1000, 9999)}"


def _shuffle(table: Table, rows: list[list[object]], rng: random.Random) -> None:
    movable = [i for i, c in enumerate(table.columns) if not c.key]
    if len(rows) < 2 or not movable:
        return
    index = rng.choice(movable)
    values = [row[index] for row in rows]
    chosen = rng.sample(range(len(rows)), k=max(2, len(rows) // 5))
    picked = [values[i] for i in chosen]
    rng.shuffle(picked)
    for position, value in zip(chosen, picked, strict=True):
        rows[position][index] = value


class _Fresh:
    """Values no row of a key column holds yet."""

    def __init__(self, tables: dict[str, Table]) -> None:
        self.next: dict[tuple[str, int], int] = {}
        self.tables = tables

    def number(self, table: str, index: int) -> int:
        """A number no row of the column holds, and none given before."""
        key = (table, index)
        if key not in self.next:
            values = [row[index] for row in self.tables[table].rows]
            numbers = [v for v in values if isinstance(v, int)]
            self.next[key] = max(numbers, default=0) + 1
        number = self.next[key]
        self.next[key] += 1
        return number

    def value(self, table: str, index: int) -> object:
        column = self.tables[table].columns[index]
        values = [row[index] for row in self.tables[table].rows]
        number = self.number(table, index)
        if column.kind == "int" or all(isinstance(v, int) for v in values):
            return number
        return f"{values[0] if values else column.name}-{number}"
