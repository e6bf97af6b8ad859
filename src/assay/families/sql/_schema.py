"""The schema and rows of a database, as the neighbour generator sees and writes them.

A database's text is loaded into an in-memory SQLite database (its CREATE statements, then its
rows), described table by table (columns, kinds, keys, foreign keys), and rows are admitted back
only where the schema's constraints accept them. Task text runs here, in the trusted process, so
it has passed :func:`assay.families.sql.gate.database_statements` first, and SQLite runs it
behind an authorizer that refuses ``ATTACH``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from assay.families.sql.gate import database_statements, statement_texts


@dataclass
class Column:
    name: str
    kind: str
    """int, real, date (dates and timestamps) or text, from the declared type."""
    nullable: bool
    key: bool
    """Part of the primary key or UNIQUE: a clone needs a fresh value."""
    allowed: tuple[object, ...] = ()
    """The values a CHECK constraint (``CHECK (status IN ('paid', 'shipped'))``) lets the
    column hold; empty when no such constraint names them."""


@dataclass
class Table:
    name: str
    columns: list[Column]
    rows: list[list[object]] = field(default_factory=list)
    referenced: bool = False
    """Some declared foreign key points at it: its rows are never dropped."""
    children: list[tuple[str, int, int]] = field(default_factory=list)
    """(child table, its column, this table's column) for each declared foreign key or join
    on a key column of this table."""

    def index(self, column: str) -> int | None:
        names = [c.name.lower() for c in self.columns]
        return names.index(column.lower()) if column.lower() in names else None


def load(statements: Sequence[exp.Expr], engine: str) -> dict[str, Table]:
    connection = _connection(statements, engine)
    try:
        for statement in statements:
            if isinstance(statement, exp.Insert):
                connection.execute(statement.sql(dialect="sqlite"))
        tables: dict[str, Table] = {}
        names = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
        ).fetchall()
        for (name,) in names:
            tables[name.lower()] = _describe(connection, name)
        _checked_values(statements, tables)
        for table in list(tables.values()):
            for reference in connection.execute(f"PRAGMA foreign_key_list({quote(table.name)})"):
                parent = tables.get(str(reference[2]).lower())
                if parent is not None:
                    parent.referenced = True
                    link(tables, parent.name, str(reference[4]), table.name, str(reference[3]))
        return tables
    finally:
        connection.close()


def _connection(statements: Sequence[exp.Expr], engine: str) -> sqlite3.Connection:
    """An in-memory SQLite database with the schema of ``statements`` and no rows."""
    del engine  # the statements are parsed already; SQLite gets them in its own dialect
    connection = sqlite3.connect(":memory:", isolation_level=None)
    connection.execute("PRAGMA foreign_keys=ON")
    connection.set_authorizer(_no_attach)
    try:
        for statement in statements:
            if isinstance(statement, exp.Create):
                connection.execute(statement.sql(dialect="sqlite"))
    except sqlite3.Error as exc:
        connection.close()
        raise ValueError(f"SQLite cannot build the schema: {exc}") from None
    return connection


def _no_attach(action: int, *_: object) -> int:
    denied = (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH)
    return sqlite3.SQLITE_DENY if action in denied else sqlite3.SQLITE_OK


def _describe(connection: sqlite3.Connection, name: str) -> Table:
    info = connection.execute(f"PRAGMA table_info({quote(name)})").fetchall()
    keys = {str(row[1]).lower() for row in info if row[5]}
    single = keys if len(keys) == 1 else set()  # one column of a composite key need not change
    for index in connection.execute(f"PRAGMA index_list({quote(name)})").fetchall():
        if index[2]:  # unique
            columns = connection.execute(f"PRAGMA index_info({quote(index[1])})").fetchall()
            if len(columns) == 1:
                single.add(str(columns[0][2]).lower())
    columns = [
        Column(
            name=str(row[1]),
            kind=_kind(str(row[2])),
            nullable=not row[3] and not row[5],
            key=str(row[1]).lower() in single,
        )
        for row in info
    ]
    query = f"SELECT * FROM {quote(name)} ORDER BY rowid"  # noqa: S608 - a quoted table name
    rows = [list(row) for row in connection.execute(query)]
    return Table(name=name, columns=columns, rows=rows)


def _checked_values(statements: Sequence[exp.Expr], tables: dict[str, Table]) -> None:
    """Set :attr:`Column.allowed` from each ``CHECK (column IN (literal, ...))``."""
    for statement in statements:
        if not isinstance(statement, exp.Create) or not isinstance(statement.this, exp.Schema):
            continue
        table = tables.get(statement.this.this.name.lower())
        if table is None:
            continue
        for check in statement.find_all(exp.In):
            if isinstance(check.parent, exp.Not):
                continue  # NOT IN names the values it refuses
            index = table.index(check.this.name) if isinstance(check.this, exp.Column) else None
            values = [literal(item) for item in check.expressions]
            if index is not None and values and None not in values:
                table.columns[index].allowed = tuple(dict.fromkeys(values))


def literal(node: object) -> object:
    """The value of a literal (a string or a number, maybe cast, parenthesized or negated);
    None for anything else."""
    if isinstance(node, exp.Cast | exp.Paren):
        return literal(node.this)
    if isinstance(node, exp.Neg):
        inner = literal(node.this)
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


def _kind(declared: str) -> str:
    text = declared.upper()
    if "INT" in text:
        return "int"
    if "DATE" in text or "TIME" in text:
        return "date"
    if any(word in text for word in ("REAL", "FLOA", "DOUB", "DEC", "NUM")):
        return "real"
    return "text"


def schema_texts(visible: str, engine: str) -> list[str]:
    """The CREATE statements of ``visible`` exactly as written, comments included."""
    kept = []
    for text in statement_texts(visible):
        parsed = database_statements(text, engine)
        if isinstance(parsed, list) and parsed and isinstance(parsed[0], exp.Create):
            kept.append(text if text.endswith(";") else text + ";")
    return kept


def admitted(
    tables: dict[str, Table],
    pending: list[tuple[str, list[object]]],
    creates: Sequence[exp.Expr],
    engine: str,
) -> dict[str, list[list[object]]]:
    """The rows that the schema's constraints accept, parents before children."""
    connection = _connection(creates, engine)
    kept: dict[str, list[list[object]]] = {name: [] for name in tables}
    try:
        for _round in range(3):  # a child cloned before its parent gets another chance
            retry = []
            for name, row in pending:
                marks = ", ".join("?" * len(row))
                try:
                    insert = f"INSERT INTO {quote(tables[name].name)} VALUES ({marks})"  # noqa: S608 - a quoted name; values are bound
                    connection.execute(insert, row)
                except sqlite3.Error:
                    retry.append((name, row))
                    continue
                kept[name].append(row)
            pending = retry
    finally:
        connection.close()
    return kept


def satisfying(
    tables: dict[str, Table],
    creates: Sequence[exp.Expr],
    name: str,
    alias: str,
    conditions: Sequence[str],
) -> list[int]:
    """The positions of the rows of table ``name`` that meet every one of ``conditions``
    (SQLite text over the table named ``alias``); a condition SQLite cannot run is left out."""
    table = tables[name]
    connection = _connection(creates, "sqlite")
    try:
        connection.execute("PRAGMA foreign_keys=OFF")  # the one table is loaded alone
        marks = ", ".join("?" * len(table.columns))
        insert = f"INSERT INTO {quote(table.name)} VALUES ({marks})"  # noqa: S608 - a quoted name; values are bound
        positions: dict[int, int] = {}
        for position, row in enumerate(table.rows):
            cursor = connection.execute(insert, row)
            if cursor.lastrowid is not None:
                positions[cursor.lastrowid] = position
        kept = set(positions.values())
        for condition in conditions:
            query = f"SELECT rowid FROM {quote(table.name)} AS {quote(alias)} WHERE {condition}"  # noqa: S608 - the task's own reference query text, read-only
            try:
                found = {positions.get(r[0], -1) for r in connection.execute(query)}
            except sqlite3.Error:
                continue
            kept &= found
        return sorted(kept)
    except sqlite3.Error:
        return list(range(len(table.rows)))
    finally:
        connection.close()


def dump(schema: str, rows: dict[str, list[list[object]]], engine: str) -> str:
    lines = [schema.rstrip()]
    for name, table_rows in rows.items():
        if not table_rows:
            continue
        values = ",\n  ".join(
            "(" + ", ".join(_sql(v, engine) for v in row) + ")" for row in table_rows
        )
        lines.append(f"INSERT INTO {quote(name)} VALUES\n  {values};")
    return "\n\n".join(lines) + "\n"


def _sql(value: object, engine: str) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return f"'\\x{value.hex()}'::BLOB" if engine == "duckdb" else f"X'{value.hex()}'"
    return "'" + str(value).replace("'", "''") + "'"


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def link(tables: dict[str, Table], parent: str, key: str, child: str, column: str) -> None:
    """Record ``child.column`` as pointing at ``parent.key`` when ``key`` is the parent's key."""
    mother, kid = tables.get(parent.lower()), tables.get(child.lower())
    if mother is None or kid is None or mother is kid:
        return
    key_index, child_index = mother.index(key), kid.index(column)
    if key_index is None or child_index is None or not mother.columns[key_index].key:
        return
    link = (kid.name.lower(), child_index, key_index)
    if link not in mother.children:
        mother.children.append(link)
