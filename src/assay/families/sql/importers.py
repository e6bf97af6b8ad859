"""``assay import spider`` and ``assay import bird``: public text-to-SQL datasets as sql tasks.

A Spider-style dataset is a directory holding ``dev.json`` (or ``train_spider.json``): a list of
entries with ``db_id``, ``question`` and ``query``, the databases at
``database/<db_id>/<db_id>.sqlite``. A BIRD-style one holds ``dev.json`` (or ``train.json``)
with ``db_id``, ``question``, ``evidence`` and ``SQL``, the databases at
``dev_databases/<db_id>/<db_id>.sqlite`` (``train_databases/`` for ``train.json``).

Each entry becomes a task: the database as SQL text (schema as written, rows as INSERTs, at most
:data:`MAX_TABLE_ROWS` a table), the gold query as the reference, the gold answer hard-coded as a
known-bad query, and neighbour databases generated from the schema, the data and the gold query.
The dataset is input: a malformed file, an entry without a field or a missing database is one
error naming the file, the field and the fix, and nothing is written. A gold query that fails on
its own database, answers nothing there, or whose task does not check itself is reported with
its reason, never imported silently. Database files are read in the trusted process opened
read-only and immutable, through plain ``SELECT`` statements only, and no further than
:data:`MAX_DATABASE_CHARS` of text (a generated column can make a value of any size).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote as url_quote

from assay.errors import InputError, TaskFormatError
from assay.families.sql._authoring import (
    HARD_CODED,
    LIMITS,
    literal_query,
    neighbour_files,
    query_files,
    self_check,
    visible_answer,
)
from assay.families.sql._schema import dump, quote
from assay.families.sql.config import SqlConfig
from assay.families.sql.family import SqlFamily
from assay.families.sql.gate import Refused, check_query, database_statements
from assay.families.sql.results import Failed
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.spec import Split, TaskSpec

MAX_TABLE_ROWS = 2000
"""Rows kept of each table; the task's answers are computed on what is kept."""
MAX_DATABASE_CHARS = 4_000_000
"""Longest database text imported; larger databases are reported, not imported."""
MAX_ANSWER_ROWS = 500
"""Most rows of a gold answer hard-coded as a known-bad query."""


@dataclass(frozen=True)
class Layout:
    """Where a dataset keeps its entries and databases, and what its fields are called."""

    name: str
    entries: dict[str, str]
    """Entries file name to the directory of its databases, in the order they are looked for."""
    query_field: str
    hint_field: str | None


SPIDER = Layout("spider", {"dev.json": "database", "train_spider.json": "database"}, "query", None)
BIRD = Layout(
    "bird", {"dev.json": "dev_databases", "train.json": "train_databases"}, "SQL", "evidence"
)


@dataclass(frozen=True)
class Entry:
    """One question of the dataset, as read."""

    where: str
    """``dev.json[12]``: the file and the entry's index."""
    index: int
    db_id: str
    question: str
    query: str
    hint: str


@dataclass(frozen=True)
class Skipped:
    """An entry that was not imported, and why."""

    where: str
    db_id: str
    reason: str


@dataclass(frozen=True)
class Imported:
    """What an import made: the tasks, and the entries it reports instead of importing."""

    tasks: list[Task]
    skipped: list[Skipped]


def import_dataset(
    layout: Layout,
    directory: Path,
    sandbox: Sandbox,
    *,
    limit: int | None = None,
    seed: int = 0,
    workers: int = 2,
    on_entry: Callable[[], None] | None = None,
) -> Imported:
    """Import the first ``limit`` entries (all by default) of the dataset in ``directory``.
    Raises :class:`InputError` naming the file and field when the dataset is malformed."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(
            "no such directory", path=directory, fix=f"pass the {layout.name} dataset's directory"
        )
    entries_file, databases = _entries_file(layout, directory)
    entries = _read_entries(layout, entries_file)[:limit]
    paths = {entry.db_id: _database_path(databases, entry) for entry in entries}
    texts = {db_id: _database_text(path) for db_id, path in paths.items()}
    split = Split.DEV if entries_file.name == "dev.json" else Split.TRAIN
    family = SqlFamily()

    def make(entry: Entry) -> Task | Skipped:
        text = texts[entry.db_id]
        made = (
            Skipped(entry.where, entry.db_id, text.reason)
            if isinstance(text, _Unusable)
            else _task(layout, entry, text, split=split, seed=seed, sandbox=sandbox, family=family)
        )
        if on_entry is not None:
            on_entry()
        return made

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        made = list(pool.map(make, entries))
    return Imported(
        tasks=[m for m in made if isinstance(m, Task)],
        skipped=[m for m in made if isinstance(m, Skipped)],
    )


def _entries_file(layout: Layout, directory: Path) -> tuple[Path, Path]:
    for name, databases in layout.entries.items():
        if (directory / name).is_file():
            return directory / name, directory / databases
    names = " or ".join(layout.entries)
    first = next(iter(layout.entries))
    raise InputError(
        f"no {names} in the dataset",
        path=directory / first,
        fix=f"pass the directory that holds the {layout.name} entries file",
    )


def _read_entries(layout: Layout, path: Path) -> list[Entry]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read: {exc}", path=path, fix="pass a readable file") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"is not JSON: {exc.msg} at line {exc.lineno}", path=path, fix="repair the JSON"
        ) from None
    except RecursionError:
        raise InputError(
            "is nested too deeply to read", path=path, fix="give a JSON list of question objects"
        ) from None
    except ValueError:  # an integer of more digits than Python converts
        raise InputError(
            "holds a number too long to read", path=path, fix="repair the JSON"
        ) from None
    if not isinstance(data, list):
        raise InputError(
            "is not a list of entries", path=path, fix="give a JSON list of question objects"
        )
    fields = ["db_id", "question", layout.query_field]
    entries = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(
                "is not an object", path=path, field=f"[{index}]", fix="make each entry an object"
            )
        for field in fields:
            value = item.get(field)
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    "is missing or not text" if value is None else "is empty or not text",
                    path=path,
                    field=f"[{index}].{field}",
                    fix=f"give each entry its {field} ({', '.join(fields)} are needed)",
                )
        hint = item.get(layout.hint_field, "") if layout.hint_field else ""
        entries.append(
            Entry(
                where=f"{path.name}[{index}]",
                index=index,
                db_id=item["db_id"],
                question=item["question"].strip(),
                query=item[layout.query_field].strip(),
                hint=hint.strip() if isinstance(hint, str) else "",
            )
        )
    return entries


def _database_path(databases: Path, entry: Entry) -> Path:
    path = databases / entry.db_id / f"{entry.db_id}.sqlite"
    if ".." in Path(entry.db_id).parts or "/" in entry.db_id or not path.is_file():
        raise InputError(
            f"no database for db_id {entry.db_id!r} (asked by {entry.where})",
            path=path,
            field="db_id",
            fix=f"put the database at {databases.name}/<db_id>/<db_id>.sqlite",
        )
    return path


@dataclass(frozen=True)
class _Unusable:
    reason: str


def _database_text(path: Path) -> str | _Unusable:
    """The database at ``path`` as SQL text; raises :class:`InputError` when it is not SQLite."""
    uri = f"file:{url_quote(str(path.resolve()))}?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InputError(f"cannot be opened: {exc}", path=path, fix="pass a SQLite file") from None
    connection.set_authorizer(_reading)
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_DATABASE_CHARS)
    too_large = _Unusable(
        f"its database is more than {MAX_DATABASE_CHARS} characters as SQL text, past the limit"
    )
    try:
        tables = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        ).fetchall()
        creates = [sql.rstrip().rstrip(";") + ";" for _name, sql in tables]
        size = sum(len(create) for create in creates)
        rows: dict[str, list[list[object]]] = {}
        for name, _sql in tables:
            kept = rows[name] = []
            query = f"SELECT * FROM {quote(name)} LIMIT {MAX_TABLE_ROWS}"  # noqa: S608 - quoted
            for row in connection.execute(query):  # a generated column can make any size
                size += sum(_chars(value) for value in row)
                if size > MAX_DATABASE_CHARS:
                    return too_large
                kept.append(list(row))
    except sqlite3.DataError:  # a value past SQLITE_LIMIT_LENGTH
        return too_large
    except sqlite3.DatabaseError as exc:
        raise InputError(
            f"is not a SQLite database: {exc}", path=path, fix="replace it with the dataset's file"
        ) from None
    finally:
        connection.close()
    text = dump("\n\n".join(creates), rows, "sqlite")
    if len(text) > MAX_DATABASE_CHARS:
        return _Unusable(f"its database is {len(text)} characters as SQL text, past the limit")
    statements = database_statements(text, "sqlite")
    if isinstance(statements, str):
        return _Unusable(f"its database cannot be read as tasks need: {statements}")
    return text


def _chars(value: object) -> int:
    """Fewest characters ``value`` takes as SQL text in the dump (a text quoted, a blob in hex),
    so that counting them refuses no database that would have fitted."""
    if isinstance(value, bytes):
        return 2 * len(value) + 3
    if isinstance(value, str):
        return len(value) + 2
    return 1


_READS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION})


def _reading(action: int, *_: object) -> int:
    return sqlite3.SQLITE_OK if action in _READS else sqlite3.SQLITE_DENY


_SLUG = re.compile(r"[^a-z0-9_]+")


def _task(
    layout: Layout,
    entry: Entry,
    visible: str,
    *,
    split: Split,
    seed: int,
    sandbox: Sandbox,
    family: SqlFamily,
) -> Task | Skipped:
    def skip(reason: str) -> Skipped:
        return Skipped(entry.where, entry.db_id, reason)

    gate = check_query(entry.query, "sqlite")
    if isinstance(gate, Refused):
        return skip(f"the gold query is refused: {gate.reason}")
    slug = _SLUG.sub("-", entry.db_id.lower()).strip("-")[:60] or "db"
    task_id = f"{layout.name}-{slug}-{split.value}-{entry.index:05d}"
    config = SqlConfig(engine="sqlite", database=f"{slug.replace('-', '_')}.sql", seed=seed)
    try:
        answer = visible_answer(task_id, visible, entry.query, config, sandbox)
        hidden = neighbour_files(visible, [entry.query], engine="sqlite", seed=seed)
    except (TaskFormatError, ValueError) as exc:
        return skip(f"its database cannot be used: {exc}")
    if isinstance(answer, Failed):
        return skip(f"the gold query fails on its own database ({answer.kind}): {answer.message}")
    if not answer.rows:
        return skip("the gold query returns no rows on its own database: any empty answer passes")
    if len(answer.rows) > MAX_ANSWER_ROWS:
        return skip(f"the gold answer has {len(answer.rows)} rows, more than {MAX_ANSWER_ROWS}")
    hint = f"\n\nHint: {entry.hint}" if entry.hint else ""
    task = Task(
        spec=TaskSpec(
            id=task_id,
            family="sql",
            split=split,
            tags=(layout.name, entry.db_id[:60], "imported"),
            limits=LIMITS,
            config=config.model_dump(exclude_defaults=True),
        ),
        prompt=f"The database is in `{config.database}` (SQLite).\n\n{entry.question}{hint}\n\n"
        "Answer with one read-only SQL query.\n",
        workspace={config.database: visible.encode()},
        hidden=hidden,
        solutions={
            "reference": query_files(entry.query),
            HARD_CODED: query_files(literal_query(answer)),
        },
    )
    wrong = self_check(task, sandbox, family)
    return task if wrong is None else skip(f"the task does not check itself: {wrong}")
