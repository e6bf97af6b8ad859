"""The audit accepts the retail tasks; lint finds what is wrong with a task; bad task input is
one line naming the file, the field and the fix."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.errors import TaskFormatError
from assay.families import get_family, harness_code
from assay.families.sql import SqlFamily, databases
from assay.families.sql.lint import lint_sql_task
from assay.families.sql.tools import SqlTools
from assay.sandbox import PoolSandbox
from assay.tasks import Limits, Task, TaskSpec
from assay.verdicts import Status
from tests.families.sql.conftest import CITIES, FIXTURES, ORDERS, REVENUE, fixture_task

family = SqlFamily()


def test_the_family_is_registered_with_its_runner_for_warm_workers() -> None:
    assert get_family("sql").name == "sql"
    assert any("_FailedError" in code for code in harness_code())


def test_the_audit_accepts_the_retail_tasks(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    shutil.copytree(FIXTURES, tasks)
    result = run_cli("audit", str(tasks), "--json", str(tmp_path / "audit.json"))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "audit.json").read_text())
    decisions = {task["task_id"]: task["decision"] for task in report["tasks"]}
    assert decisions == {REVENUE: "accepted", ORDERS: "accepted", CITIES: "accepted"}
    for task in report["tasks"]:
        statuses = {s["solution"]: s["status"] for s in task["solutions"]}
        bad = [name for name in statuses if name.startswith("bad-")]
        assert len(bad) >= 4
        assert {statuses[name] for name in bad} == {"fail"}
        assert statuses["empty"] == "fail"
        assert statuses["reference"] == "pass"


def test_assay_verify_takes_a_query_file(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    query = tmp_path / "query.sql"
    query.write_text("SELECT DISTINCT city FROM customers WHERE email IS NOT NULL")
    result = run_cli("verify", str(FIXTURES / CITIES), "--solution", str(query))
    assert result.exit_code == 0, result.output
    query.write_text("SELECT city FROM customers")
    result = run_cli("verify", str(FIXTURES / CITIES), "--solution", str(query))
    assert result.exit_code == 1, result.output


def test_the_retail_tasks_lint_clean() -> None:
    for name in (REVENUE, ORDERS, CITIES):
        assert lint_sql_task(fixture_task(name)) == []


def with_config(task: Task, **config: object) -> Task:
    merged = {**task.spec.config, **config}
    return task.model_copy(update={"spec": task.spec.model_copy(update={"config": merged})})


def messages(task: Task) -> str:
    return " | ".join(f.message for f in lint_sql_task(task))


def test_lint_finds_a_task_without_neighbours() -> None:
    task = fixture_task(ORDERS).model_copy(update={"hidden": {}})
    assert "no neighbour database" in messages(task)


def test_lint_finds_a_neighbour_with_another_schema() -> None:
    task = fixture_task(ORDERS)
    hidden = dict(task.hidden)
    hidden["databases/n01.sql"] = hidden["databases/n01.sql"].replace(
        b"city TEXT,", b"city TEXT NOT NULL,"
    )
    assert "declares another schema" in messages(task.model_copy(update={"hidden": hidden}))


def test_a_comment_above_a_neighbours_tables_is_not_another_schema() -> None:
    task = fixture_task(ORDERS)
    hidden = {
        name: (b"-- neighbour database (generated)\n" + data if name.endswith(".sql") else data)
        for name, data in task.hidden.items()
    }
    assert "another schema" not in messages(task.model_copy(update={"hidden": hidden}))


def test_a_sorted_reference_in_a_task_compared_unordered_needs_review() -> None:
    task = fixture_task(REVENUE)
    reference = task.solutions["reference"]["query.sql"].decode()
    assert "ORDER BY" in reference.upper()
    unordered = task.model_copy(
        update={
            "spec": task.spec.model_copy(
                update={"config": {**task.spec.config, "order": "unordered"}}
            )
        }
    )
    assert "sorts its rows (ORDER BY) but the task compares them in any order" in messages(
        unordered
    )
    assert "sorts its rows" not in messages(task)


def test_a_reference_that_depends_on_the_clock_or_chance_needs_review() -> None:
    task = fixture_task(ORDERS)
    for query, word in [
        (b"SELECT id FROM orders WHERE order_date >= date('now', '-30 days')", "'NOW'"),
        (b"SELECT id FROM orders WHERE order_date <= CURRENT_DATE", "CURRENT_DATE"),
        (b"SELECT id FROM orders ORDER BY random() LIMIT 1", "RAND("),
        (b"SELECT id FROM orders WHERE order_date <= date()", "DATE()"),  # date('now')
        (b"SELECT id FROM orders WHERE julianday() - julianday(order_date) < 30", "JULIANDAY()"),
        (b"SELECT id, hex(randomblob(4)) AS tag FROM orders", "RANDOMBLOB("),
    ]:
        solutions = {**task.solutions, "reference": {"query.sql": query}}
        found = messages(task.model_copy(update={"solutions": solutions}))
        assert "depends on the clock or on chance" in found, query
        assert word in found, (word, found)
    assert "clock" not in messages(task)


def test_lint_finds_references_that_are_not_read_only_queries() -> None:
    task = fixture_task(ORDERS)
    solutions = {**task.solutions, "reference-x": {"query.sql": b"DELETE FROM orders"}}
    found = messages(task.model_copy(update={"solutions": solutions}))
    assert "solutions/reference-x/query.sql: DELETE is not a read-only query" in found


def test_a_query_the_parser_cannot_print_back_is_refused_not_a_crash() -> None:
    """sqlglot parses an empty blob (``X''``) and raises when it prints it; lint, ordering and
    mutants print references back, so such a query is refused at the gate, with the reason."""
    task = fixture_task(ORDERS)
    query = b"SELECT X'' AS tag, id FROM orders ORDER BY id"
    solutions = {**task.solutions, "reference": {"query.sql": query}}
    found = messages(task.model_copy(update={"solutions": solutions}))
    assert "solutions/reference/query.sql: the SQL parser cannot print the query back" in found
    assert family.mutants(task.model_copy(update={"solutions": solutions})) == []


def test_lint_warns_about_limit_without_order_by() -> None:
    task = fixture_task(CITIES)
    solutions = {
        **task.solutions,
        "reference": {"query.sql": b"SELECT DISTINCT city FROM customers LIMIT 2"},
    }
    assert "LIMIT without ORDER BY" in messages(task.model_copy(update={"solutions": solutions}))


def test_lint_finds_hidden_databases_shown_to_the_agent() -> None:
    task = fixture_task(CITIES)
    workspace = {**task.workspace, "copy.sql": task.hidden["databases/n02.sql"]}
    found = messages(task.model_copy(update={"workspace": workspace}))
    assert "workspace/copy.sql is a copy of hidden/databases/n02.sql" in found


def test_a_malformed_field_is_one_line_naming_the_file_the_field_and_the_fix(
    pool: PoolSandbox,
) -> None:
    task = with_config(fixture_task(CITIES), engine="postgres")
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, task.solutions["reference"], pool)
    message = str(raised.value)
    assert "\n" not in message
    assert f"{CITIES}/task.toml" in message
    assert "sql.engine" in message
    assert "correct the [sql] table" in message


def test_a_missing_visible_database_names_the_field(pool: PoolSandbox) -> None:
    task = with_config(fixture_task(CITIES), database="nowhere.sql")
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, task.solutions["reference"], pool)
    assert "sql.database" in str(raised.value)
    assert "workspace/nowhere.sql does not exist" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b"CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT", "does not parse"),
        (b"CREATE TABLE t (a INT);\nINSERT INTO t VALUES (abs(-1));", "not a literal"),
        (b"ATTACH '/tmp/x.db' AS x;", "only CREATE"),
        (b"CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1, 2);", "the engine refused it"),
        (b"\xff\xfe", "not UTF-8"),
        (b"CREATE TABLE t (a BLOB);\nINSERT INTO t VALUES (X'00ff');", "blob literal"),
        (b"CREATE TABLE t (a BLOB);\nINSERT INTO t VALUES (X'');", "blob literal"),
    ],
)
def test_broken_database_text_names_the_file(text: bytes, problem: str, pool: PoolSandbox) -> None:
    task = fixture_task(ORDERS)
    hidden = {**task.hidden, "databases/n03.sql": text}
    task = task.model_copy(update={"hidden": hidden})
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, task.solutions["reference"], pool)
    message = str(raised.value)
    assert "\n" not in message
    assert f"{ORDERS}/hidden/databases/n03.sql" in message
    assert problem in message
    assert any(problem in f.message for f in lint_sql_task(task))


def test_a_schema_the_parser_cannot_print_back_is_refused_by_file(pool: PoolSandbox) -> None:
    """SQLite takes ``DEFAULT X''``, but sqlglot cannot print it back: lint crashed comparing the
    schemas, and the audit called the task one it could not audit (to try again forever)."""

    def with_notes(files: dict[str, bytes]) -> dict[str, bytes]:
        return {
            name: data + b"\nCREATE TABLE notes (body BLOB DEFAULT X'');\n"
            for name, data in files.items()
        }

    task = fixture_task(ORDERS)
    task = task.model_copy(
        update={"workspace": with_notes(task.workspace), "hidden": with_notes(task.hidden)}
    )
    found = messages(task)
    assert f"{ORDERS}/workspace/shop.sql: statement 9 (CREATE): the SQL parser cannot" in found
    assert "write CAST('' AS BLOB)" in found
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, task.solutions["reference"], pool)
    message = str(raised.value)
    assert "\n" not in message
    assert "cannot print it back" in message


def test_a_reference_answer_past_the_record_size_in_bytes_is_the_tasks_fault(
    pool: PoolSandbox,
) -> None:
    """1,200,000 Chinese characters a database were under the record limit counted in
    characters, but 3.6 MB of a job's output budgeted at 2 MB a record: the reference's run was
    cut off, an infrastructure error to retry forever."""

    def database(shift: int) -> bytes:
        rows = ",\n".join(f"({i}, '{chr(0x4E00 + i + shift) * 1200}')" for i in range(1000))
        return f"CREATE TABLE t (id INTEGER, s TEXT);\nINSERT INTO t VALUES\n{rows};\n".encode()

    task = Task(
        spec=TaskSpec(
            id="wide-text",
            family="sql",
            limits=Limits(timeout_s=60),
            config={"engine": "sqlite", "database": "d.sql"},
        ),
        prompt="Every text.",
        workspace={"d.sql": database(0)},
        hidden={"databases/n01.sql": database(1)},
        solutions={"reference": {"query.sql": b"SELECT id, s FROM t"}},
    )
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, {"query.sql": b"SELECT 1, 'x'"}, pool)
    message = str(raised.value)
    assert message.startswith(
        "wide-text/solutions/reference/query.sql: gives no result on workspace/d.sql: "
        "more than 2000000 bytes"
    ), message


def test_broken_task_input_through_the_cli_is_one_line(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    task = tmp_path / CITIES
    shutil.copytree(FIXTURES / CITIES, task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('engine = "duckdb"', "engine = 3"))
    result = run_cli("verify", str(task), "--solution", str(task / "solutions" / "reference"))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "task.toml" in lines[0]
    assert "sql.engine" in lines[0]


def test_rows_in_a_transaction_that_no_commit_ends_are_refused_not_dropped(
    pool: PoolSandbox,
) -> None:
    """A dump cut short (``BEGIN``, the rows, no ``COMMIT``) was built into empty tables: the
    reference then answered nothing on every database, and so did any query with as many
    columns, which passed."""

    def unfinished(files: dict[str, bytes]) -> dict[str, bytes]:
        return {name: data.replace(b"INSERT", b"BEGIN;\nINSERT", 1) for name, data in files.items()}

    task = fixture_task(CITIES)
    task = task.model_copy(
        update={"workspace": unfinished(task.workspace), "hidden": unfinished(task.hidden)}
    )
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, {"query.sql": b"SELECT NULL AS city WHERE 1 = 0"}, pool)
    message = str(raised.value)
    assert "\n" not in message
    assert f"{CITIES}/workspace/shop.sql" in message
    assert "opens a transaction that no COMMIT ends" in message
    assert "end it with COMMIT" in message
    assert any("no COMMIT ends" in f.message for f in lint_sql_task(task))


def test_a_reference_saved_with_a_byte_order_mark_lints_clean_and_has_mutants() -> None:
    """The verifier reads a query without the mark some editors write; lint and the mutants
    read it the same way (lint called it a query that does not parse, and it had no mutants)."""
    task = fixture_task(ORDERS)
    marked = b"\xef\xbb\xbf" + task.solutions["reference"]["query.sql"]
    task = task.model_copy(
        update={"solutions": {**task.solutions, "reference": {"query.sql": marked}}}
    )
    assert lint_sql_task(task) == []
    assert family.mutants(task)


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_databases_saved_with_a_byte_order_mark_are_read_as_sql(
    name: str, pool: PoolSandbox
) -> None:
    """The mark some editors write was read as SQL: every database was refused as text that
    does not parse ("Line 2, Col: 6"), where a query saved so was read without it."""

    def marked(files: dict[str, bytes]) -> dict[str, bytes]:
        return {path: b"\xef\xbb\xbf" + data for path, data in files.items()}

    task = fixture_task(name)
    task = task.model_copy(
        update={"workspace": marked(task.workspace), "hidden": marked(task.hidden)}
    )
    assert lint_sql_task(task) == []
    verdict = family.verify(task, task.solutions["reference"], pool)
    assert verdict.status is Status.PASS, verdict.summary
    assert family.verify(task, task.solutions["bad-hard-coded"], pool).status is Status.FAIL
    assert any(e.name == "whole-table-customers" for e in family.exploits(task))
    assert family.mutants(task)
    schema = SqlTools(task).call("schema", {}, pool).output
    assert schema.startswith(("CREATE TABLE", "-- "))
    assert "\ufeff" not in schema


def test_a_reference_that_is_not_utf8_is_task_input_to_correct(pool: PoolSandbox) -> None:
    """Read with its bad bytes replaced, it gave the expected results, and as a submission it
    failed: lint said nothing."""
    task = fixture_task(ORDERS)
    query = task.solutions["reference"]["query.sql"].replace(b"COUNT", b"\xffCOUNT")
    task = task.model_copy(
        update={"solutions": {**task.solutions, "reference": {"query.sql": query}}}
    )
    assert "solutions/reference/query.sql is not UTF-8 text" in messages(task)
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, {"query.sql": b"SELECT 1"}, pool)
    message = str(raised.value)
    assert "\n" not in message
    assert f"{ORDERS}/solutions/reference/query.sql: the query is not UTF-8 text" in message
    assert "save it as UTF-8" in message


_ROWS = "INSERT INTO t VALUES (1);\n" * 100
SLOW_ROWS = {
    "sqlite": "CREATE TABLE t (a INT CHECK (length(printf('%.*c', 2000000 + a, 'x')) > 0));\n",
    "duckdb": "CREATE TABLE t (a INT CHECK (length(repeat('x', 2000000 + a)) > 0));\n",
}
"""A CHECK that makes a value of 2 MB for every row: seconds to build 100 rows."""


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_a_database_that_takes_too_long_to_build_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CHECK runs for every row inserted, in the trusted process: it had no deadline."""
    monkeypatch.setattr(databases, "BUILD_TIME_LIMIT_S", 0.5)
    task = fixture_task(name)
    engine = task.spec.config["engine"]
    hidden = {**task.hidden, "databases/n03.sql": (SLOW_ROWS[engine] + _ROWS).encode()}
    started = time.monotonic()
    found = messages(task.model_copy(update={"hidden": hidden}))
    assert f"{name}/hidden/databases/n03.sql: it takes longer than 0.5 s to build" in found
    assert time.monotonic() - started < 60


def test_a_duckdb_database_past_the_build_memory_is_refused(
    monkeypatch: pytest.MonkeyPatch, engine_cache: Path
) -> None:
    """A DEFAULT made a value of hundreds of MB for every row, in the trusted process: eight
    rows of 300 MB took 6.9 GB. Here the limit is 64 MB and the rows 30 MB."""
    monkeypatch.setattr(databases, "BUILD_MEMORY_LIMIT", "64MB")
    text = (
        "CREATE TABLE t (a INT, b VARCHAR DEFAULT repeat('x', 30000000));\n"
        "INSERT INTO t (a) VALUES (1), (2), (3), (4), (5), (6), (7), (8);\n"
    )
    with pytest.raises(TaskFormatError) as raised:
        databases.engine_file("t", databases.Database("workspace/t.sql", text.encode()), "duckdb")
    assert str(raised.value).startswith(
        "t/workspace/t.sql: it takes more than 64MB of memory to build"
    )


def test_a_value_past_the_longest_is_not_made_while_building(engine_cache: Path) -> None:
    """SQLite's printf() made values as long as a CHECK asked for, in the trusted process."""
    text = (
        "CREATE TABLE t (a INT, b TEXT AS (printf('%.*c', 70000000 + a, 'x')) STORED);\n"
        "INSERT INTO t (a) VALUES (1);\n"
    )
    path = databases.engine_file(
        "t", databases.Database("workspace/t.sql", text.encode()), "sqlite"
    )
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert connection.execute("SELECT b IS NULL FROM t").fetchall() == [(1,)]
    finally:
        connection.close()


def with_table(task: Task, table: str) -> Task:
    """``task`` with ``table`` (SQL text) added to every database of its suite."""

    def added(files: dict[str, bytes]) -> dict[str, bytes]:
        return {
            name: data + b"\n" + table.encode() if name.endswith(".sql") else data
            for name, data in files.items()
        }

    return task.model_copy(
        update={"workspace": added(task.workspace), "hidden": added(task.hidden)}
    )


@pytest.mark.parametrize(
    ("name", "table", "words"),
    [
        (
            ORDERS,
            "CREATE TABLE visits (id INTEGER PRIMARY KEY, at TEXT DEFAULT CURRENT_TIMESTAMP);\n"
            "INSERT INTO visits (id) VALUES (1), (2);\n",
            "visits.at is left to DEFAULT CURRENT_TIMESTAMP",
        ),
        (
            ORDERS,
            "CREATE TABLE draws (id INTEGER, r INTEGER DEFAULT (random()));\n"
            "INSERT INTO draws (id) VALUES (1);\n",
            "draws.r is left to DEFAULT (RAND())",
        ),
        (
            ORDERS,
            "CREATE TABLE days (id INTEGER, d TEXT DEFAULT (date('now')));\n"
            "INSERT INTO days (id) VALUES (1);\n",
            "days.d is left to DEFAULT (DATE('now'))",
        ),
        (ORDERS, "CREATE VIEW lucky AS SELECT id, random() AS r FROM customers;\n", "RAND()"),
        (
            CITIES,
            "CREATE TABLE visits (id INTEGER, seen TIMESTAMP DEFAULT now(), u UUID DEFAULT uuid());"
            "\nINSERT INTO visits (id) VALUES (1);\n",
            "visits.u is left to DEFAULT UUID()",
        ),
    ],
)
def test_a_database_built_from_the_clock_or_chance_needs_review(
    name: str, table: str, words: str
) -> None:
    """Rows given their value by ``DEFAULT random()`` or ``CURRENT_TIMESTAMP`` make another
    database on each machine and day that builds it: lint said nothing."""
    task = with_table(fixture_task(name), table)
    findings = lint_sql_task(task)
    found = [f for f in findings if "build" in f.message]
    assert found == findings  # each database builds, and nothing else is wrong
    suite = 1 + sum(path.endswith(".sql") for path in task.hidden)
    assert len(found) == suite  # the visible database and each neighbour
    for finding in found:
        assert finding.review
        assert finding.severity.value == "warning"
        assert "is not the same database on each build" in finding.message
        assert words in finding.message, finding.message
    assert found[0].message.startswith("workspace/shop.sql is not")


def test_a_default_from_the_clock_that_every_row_gives_is_no_finding() -> None:
    table = (
        "CREATE TABLE visits (id INTEGER, at TEXT DEFAULT CURRENT_TIMESTAMP);\n"
        "INSERT INTO visits (id, at) VALUES (1, '2024-01-01');\n"
        "INSERT INTO visits VALUES (2, '2024-01-02');\n"
    )
    assert lint_sql_task(with_table(fixture_task(ORDERS), table)) == []
