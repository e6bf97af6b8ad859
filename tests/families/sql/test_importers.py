"""Importing Spider- and BIRD-style datasets: each entry a self-checked task with neighbours, gold
queries that fail (or answer nothing) reported, and malformed input one line naming the file,
the field and the fix."""

from __future__ import annotations

import json
import sqlite3
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli import cli
from assay.errors import InputError
from assay.families.sql import SqlFamily
from assay.families.sql.importers import BIRD, SPIDER, import_dataset
from assay.sandbox import PoolSandbox
from assay.tasks import load_task
from assay.verdicts import Status

SCHEMA = """
CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, age INTEGER);
CREATE TABLE concert (id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer (id),
                      year INTEGER NOT NULL, venue TEXT);
INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52),
  (2, 'Timbaland', 'United States', 32), (3, 'Justin Brown', 'France', 29),
  (4, 'Rose White', 'France', 41), (5, 'John Nizinik', NULL, 43);
INSERT INTO concert VALUES (1, 1, 2014, 'Arena'), (2, 2, 2014, 'Stadium'), (3, 3, 2015, 'Arena'),
  (4, 3, 2015, 'Hall'), (5, 4, 2016, NULL);
"""
GOOD = [
    ("How many singers are from France?", "SELECT count(*) FROM singer WHERE country = 'France'"),
    (
        "Name the singers who gave a concert in 2015.",
        "SELECT DISTINCT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id "
        "WHERE T2.year = 2015",
    ),
    (
        "How many concerts did each singer give?",
        "SELECT T1.name, count(T2.id) FROM singer AS T1 LEFT JOIN concert AS T2 "
        "ON T1.id = T2.singer_id GROUP BY T1.id, T1.name",
    ),
]
FAILING = ("What is the singers' salary?", "SELECT salary FROM singer")
EMPTY = ("Who is older than 100?", "SELECT name FROM singer WHERE age > 100")
REFUSED = ("Drop it.", "DROP TABLE singer")


def make_database(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA)
    connection.close()


def spider(root: Path, entries: list[dict[str, object]] | None = None) -> Path:
    make_database(root / "database" / "concert_singer" / "concert_singer.sqlite")
    if entries is None:
        entries = [
            {"db_id": "concert_singer", "question": q, "query": sql}
            for q, sql in [*GOOD, FAILING, EMPTY, REFUSED]
        ]
    (root / "dev.json").write_text(json.dumps(entries))
    return root


def bird(root: Path) -> Path:
    make_database(root / "dev_databases" / "concert_singer" / "concert_singer.sqlite")
    entries = [
        {
            "db_id": "concert_singer",
            "question": "Which French singers are older than 35?",
            "evidence": "French refers to country = 'France'; older than 35 refers to age > 35",
            "SQL": "SELECT name FROM singer WHERE country = 'France' AND age > 35",
        },
        {"db_id": "concert_singer", "question": "?", "evidence": "", "SQL": FAILING[1]},
    ]
    (root / "dev.json").write_text(json.dumps(entries))
    return root


def test_spider_entries_become_sound_tasks_and_failures_are_reported(
    pool: PoolSandbox, tmp_path: Path
) -> None:
    imported = import_dataset(SPIDER, spider(tmp_path / "spider"), pool)
    assert [t.id for t in imported.tasks] == [
        f"spider-concert_singer-dev-0000{i}" for i in range(3)
    ]
    reasons = {s.where: s.reason for s in imported.skipped}
    assert set(reasons) == {"dev.json[3]", "dev.json[4]", "dev.json[5]"}
    assert reasons["dev.json[3]"].startswith("the gold query fails on its own database (error)")
    assert "no such column: salary" in reasons["dev.json[3]"]
    assert "returns no rows" in reasons["dev.json[4]"]
    assert reasons["dev.json[5]"].startswith("the gold query is refused")
    family = SqlFamily()
    for task, (question, gold) in zip(imported.tasks, GOOD, strict=True):
        assert question in task.prompt
        assert task.spec.split.value == "dev"
        assert task.solutions["reference"]["query.sql"].decode().strip() == gold
        assert len(task.hidden) == 4
        visible = task.workspace["concert_singer.sql"].decode()
        assert "CREATE TABLE singer" in visible
        assert "'Rose White'" in visible
        verdict = family.verify(task, task.solutions["bad-hard-coded"], pool)
        assert verdict.status is Status.FAIL
        assert verdict.criteria[0].passed  # right on the visible database, wrong on neighbours


def test_bird_entries_carry_their_evidence(pool: PoolSandbox, tmp_path: Path) -> None:
    imported = import_dataset(BIRD, bird(tmp_path / "bird"), pool)
    assert len(imported.tasks) == 1
    task = imported.tasks[0]
    assert task.id == "bird-concert_singer-dev-00000"
    assert "Hint: French refers to country = 'France'" in task.prompt
    assert [s.where for s in imported.skipped] == ["dev.json[1]"]


def test_limit_imports_the_first_entries(pool: PoolSandbox, tmp_path: Path) -> None:
    imported = import_dataset(SPIDER, spider(tmp_path / "spider"), pool, limit=1)
    assert [t.id for t in imported.tasks] == ["spider-concert_singer-dev-00000"]
    assert imported.skipped == []


def test_a_database_that_makes_values_past_the_limit_is_skipped_without_reading_them(
    pool: PoolSandbox, tmp_path: Path
) -> None:
    """A file of a few kilobytes whose generated columns make tens of megabytes a row was read
    whole into the trusted process before its size was looked at: 5 GB for five rows of 200 MB.
    Now no value passes the database's limit, and reading stops once the text would."""
    root = spider(tmp_path / "spider", [])
    columns = {  # twenty rows of 3 MB, three of 40 MB
        "bulky": ("b TEXT AS (substr(hex(zeroblob(1500000 + a)), 1)) VIRTUAL", 20),
        "huge": ("b TEXT AS (substr(hex(zeroblob(20000000 + a)), 1)) VIRTUAL", 3),
    }
    for name, (column, count) in columns.items():
        path = root / "database" / name / f"{name}.sqlite"
        path.parent.mkdir(parents=True)
        connection = sqlite3.connect(path)
        connection.execute(f"CREATE TABLE t (a INTEGER, {column})")
        connection.executemany("INSERT INTO t (a) VALUES (?)", [(i,) for i in range(count)])
        connection.commit()
        connection.close()
        assert path.stat().st_size < 100_000
    entries = [{"db_id": name, "question": "Q?", "query": "SELECT a FROM t"} for name in columns]
    (root / "dev.json").write_text(json.dumps(entries))
    tracemalloc.start()
    try:
        imported = import_dataset(SPIDER, root, pool)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40_000_000
    assert imported.tasks == []
    reasons = {s.db_id: s.reason for s in imported.skipped}
    assert set(reasons) == set(columns)
    for reason in reasons.values():
        assert reason.startswith("its database is more than 4000000 characters"), reason
        assert reason.endswith("as SQL text, past the limit")


def bad_input(tmp_path: Path, case: str) -> tuple[Path, str]:  # noqa: PLR0911 - one per case
    """A broken Spider-style dataset and the message it must give."""
    root = tmp_path / "spider"
    entry = {"db_id": "concert_singer", "question": "Q?", "query": "SELECT 1"}
    if case == "missing-dev-json":
        root.mkdir()
        return root, f"{root}/dev.json: no dev.json or train_spider.json in the dataset"
    if case == "no-db-id":
        spider(root, [entry, {"question": "Q?", "query": "SELECT 1"}])
        return (
            root,
            f"{root}/dev.json: [1].db_id: is missing or not text (give each entry its db_id",
        )
    if case == "missing-database":
        spider(root, [{**entry, "db_id": "flights"}])
        return root, (
            f"{root}/database/flights/flights.sqlite: db_id: no database for db_id 'flights' "
            "(asked by dev.json[0]) (put the database at database/<db_id>/<db_id>.sqlite)"
        )
    if case == "not-json":
        spider(root, [])
        (root / "dev.json").write_text("[{")
        return root, f"{root}/dev.json: is not JSON"
    if case == "nested-too-deeply":
        spider(root, [])
        (root / "dev.json").write_text("[" * 100_000 + "]" * 100_000)
        return root, f"{root}/dev.json: is nested too deeply to read"
    if case == "number-too-long":
        spider(root, [])
        (root / "dev.json").write_text(f'[{{"db_id": {"9" * 5000}}}]')
        return root, f"{root}/dev.json: holds a number too long to read"
    if case == "not-a-list":
        spider(root, [])
        (root / "dev.json").write_text(json.dumps({"db_id": "x"}))
        return root, f"{root}/dev.json: is not a list of entries"
    if case == "empty-query":
        spider(root, [{**entry, "query": "  "}])
        return root, f"{root}/dev.json: [0].query: is empty or not text"
    if case == "not-sqlite":
        spider(root, [entry])
        (root / "database" / "concert_singer" / "concert_singer.sqlite").write_text("hello")
        return root, f"{root}/database/concert_singer/concert_singer.sqlite: is not a SQLite"
    spider(root, [entry])
    return root / "nowhere", f"{root / 'nowhere'}: no such directory"


CASES = [
    "missing-dev-json",
    "no-db-id",
    "missing-database",
    "not-json",
    "nested-too-deeply",
    "number-too-long",
    "not-a-list",
    "empty-query",
    "not-sqlite",
    "no-directory",
]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_error_naming_file_field_and_fix(
    pool: PoolSandbox, tmp_path: Path, case: str
) -> None:
    directory, message = bad_input(tmp_path, case)
    with pytest.raises(InputError) as raised:
        import_dataset(SPIDER, directory, pool)
    assert str(raised.value).startswith(message), str(raised.value)
    assert raised.value.fix


def test_assay_import_spider_writes_tasks_and_lists_the_rest(tmp_path: Path) -> None:
    root = spider(tmp_path / "spider")
    out = tmp_path / "tasks"
    result = CliRunner().invoke(cli, ["import", "spider", str(root), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert f"wrote 3 tasks to {out}" in result.stdout
    assert "not imported: dev.json[3] (concert_singer): the gold query fails" in result.stdout
    assert "3 entries not imported" in result.stdout
    assert len([load_task(p) for p in out.iterdir()]) == 3


def test_assay_import_bird_with_bad_input_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "bird"
    root.mkdir()
    result = CliRunner().invoke(cli, ["import", "bird", str(root), "--out", str(tmp_path / "t")])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {root}/dev.json: no dev.json or train.json in the dataset (pass the directory "
        "that holds the bird entries file)"
    ]
