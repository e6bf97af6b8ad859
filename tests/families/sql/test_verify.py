"""Verification of the retail tasks: references pass, every known-bad query fails on the suite
(though some pass on the visible database alone), with evidence naming the database."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.families.sql import SqlFamily
from assay.families.sql.neighbours import write_neighbours
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task
from assay.tasks.taskdir import load_task
from assay.verdicts import Status
from tests.families.sql.conftest import (
    CITIES,
    FIXTURES,
    ORDERS,
    REVENUE,
    fixture_task,
    visible_only,
)

family = SqlFamily()
TASKS = [REVENUE, ORDERS, CITIES]


def verify(task: Task, query: str | bytes, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    text = query.encode() if isinstance(query, str) else query
    return family.verify(task, {"query.sql": text}, sandbox)


@pytest.mark.parametrize("name", TASKS)
def test_every_reference_passes_on_every_database(name: str, sandbox: Sandbox) -> None:
    task = fixture_task(name)
    for solution, files in task.references().items():
        verdict = family.verify(task, files, sandbox)
        assert verdict.status is Status.PASS, (solution, verdict.summary, verdict.logs)
        assert verdict.score == 1.0
        neighbours = sorted(name for name in task.hidden if name.startswith("databases/"))
        assert len(neighbours) >= 4
        assert [c.name for c in verdict.criteria] == [
            "workspace/shop.sql",
            *(f"hidden/{name}" for name in neighbours),
        ]
        assert verdict.versions.family == "sql@9"
        expected = ("duckdb",) if task.spec.config["engine"] == "duckdb" else ()
        assert [p.split("==")[0] for p in verdict.versions.python.packages] == list(expected)  # type: ignore[union-attr]


@pytest.mark.parametrize("name", TASKS)
def test_every_known_bad_query_fails_on_the_suite(name: str, pool: PoolSandbox) -> None:
    task = fixture_task(name)
    for label, files in task.known_bad().items():
        verdict = family.verify(task, files, pool)
        assert verdict.status is Status.FAIL, label
        assert verdict.score == 0.0
        failed = [c for c in verdict.criteria if not c.passed]
        assert failed, label
        assert all(c.evidence for c in failed), label


def test_some_known_bad_queries_pass_on_the_visible_database_alone(pool: PoolSandbox) -> None:
    passing_alone = set()
    for name in TASKS:
        task = visible_only(fixture_task(name))
        for label, files in task.known_bad().items():
            if family.verify(task, files, pool).status is Status.PASS:
                passing_alone.add(f"{name}/{label}")
    assert {
        f"{REVENUE}/bad-no-status-filter",
        f"{REVENUE}/bad-date-boundary",
        f"{REVENUE}/bad-hard-coded",
        f"{ORDERS}/bad-inner-join",
        f"{ORDERS}/bad-count-star",
        f"{ORDERS}/bad-filter-in-where",
        f"{ORDERS}/bad-hard-coded",
        f"{CITIES}/bad-missing-distinct",
        f"{CITIES}/bad-dropped-filter",
        f"{CITIES}/bad-hard-coded",
    } <= passing_alone


def test_the_hard_coded_answer_fails_where_the_data_differs(pool: PoolSandbox) -> None:
    task = fixture_task(REVENUE)
    verdict = family.verify(task, task.solutions["bad-hard-coded"], pool)
    visible, *neighbours = verdict.criteria
    assert visible.passed
    assert not all(c.passed for c in neighbours)
    evidence = " ".join(c.evidence for c in neighbours if not c.passed)
    assert "expected" in evidence
    assert "hidden/databases/" in " ".join(c.name for c in neighbours if not c.passed)


def test_a_submission_matching_another_reading_passes(pool: PoolSandbox) -> None:
    task = fixture_task(ORDERS)
    reading = """
        SELECT c.name, COUNT(o.id)
        FROM customers AS c LEFT JOIN orders AS o
          ON c.id = o.customer_id AND NOT o.status = 'cancelled'
        GROUP BY c.id, c.name
    """
    verdict = verify(task, reading, pool)
    assert verdict.status is Status.PASS, verdict.summary
    assert "reference-without-cancelled" in verdict.summary


def test_equivalent_queries_pass_whatever_their_column_order_and_names(pool: PoolSandbox) -> None:
    task = fixture_task(REVENUE)
    rewritten = """
        WITH q1 AS (
          SELECT * FROM orders
          WHERE order_date >= '2024-01-01' AND order_date < '2024-04-01' AND status != 'cancelled'
        )
        SELECT ROUND(SUM(i.unit_price * i.quantity), 6) AS total, p.category AS cat
        FROM q1 JOIN order_items AS i ON i.order_id = q1.id
        JOIN products AS p ON p.id = i.product_id
        GROUP BY cat ORDER BY total DESC
    """
    assert verify(task, rewritten, pool).status is Status.PASS


def test_a_query_saved_with_a_byte_order_mark_is_read_without_it(pool: PoolSandbox) -> None:
    """Some editors begin UTF-8 text with a byte order mark; it is no part of the query."""
    task = fixture_task(REVENUE)
    query = b"\xef\xbb\xbf" + task.solutions["reference"]["query.sql"]
    verdict = verify(task, query, pool)
    assert verdict.status is Status.PASS, verdict.summary


@pytest.mark.parametrize("after", ["; -- the answer", ";\n/* checked by hand */\n"])
def test_the_reference_with_a_comment_after_its_semicolon_passes(
    after: str, pool: PoolSandbox
) -> None:
    """A comment after the one query's ``;`` is no second statement: the engines run it."""
    task = fixture_task(REVENUE)
    query = task.solutions["reference"]["query.sql"].decode().rstrip().rstrip(";") + after
    verdict = verify(task, query, pool)
    assert verdict.status is Status.PASS, verdict.summary


@pytest.mark.parametrize("name", [REVENUE, CITIES])
@pytest.mark.parametrize("after", [";;", "; ;\n", ";; -- the answer"])
def test_the_reference_with_an_empty_statement_after_it_passes(
    name: str, after: str, pool: PoolSandbox
) -> None:
    """``SELECT ...;;`` is one query to the gate and to DuckDB, but SQLite took the empty
    statement for a second one and the right answer failed on every database."""
    task = fixture_task(name)
    query = task.solutions["reference"]["query.sql"].decode().rstrip().rstrip(";") + after
    verdict = verify(task, query, pool)
    assert verdict.status is Status.PASS, verdict.summary
    second = query + "\nSELECT 1"  # a second statement is still refused, by the gate
    assert verify(task, second, pool).status is Status.FAIL


def test_the_wrong_order_fails_where_the_reference_orders(pool: PoolSandbox) -> None:
    task = fixture_task(REVENUE)
    verdict = family.verify(task, task.solutions["bad-unordered"], pool)
    assert verdict.status is Status.FAIL
    assert any("another order" in c.evidence for c in verdict.criteria)


def test_a_solution_without_query_sql_fails(pool: PoolSandbox) -> None:
    verdict = family.verify(fixture_task(CITIES), {"answer.sql": b"SELECT 1"}, pool)
    assert verdict.status is Status.FAIL
    assert "query.sql was not submitted" in verdict.summary


def test_the_empty_solution_fails(pool: PoolSandbox) -> None:
    for name in TASKS:
        task = fixture_task(name)
        assert family.verify(task, family.empty_solution(task), pool).status is Status.FAIL


TOP_PRICE = "SELECT name, price FROM products ORDER BY price DESC LIMIT 2"


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_limit_keeps_the_other_columns_of_its_last_rows_compared(
    engine: str, pool: PoolSandbox, tmp_path: Path
) -> None:
    """Where the reference's LIMIT keeps its last rows (the one row of a LIMIT 1, say), only
    their ordering key (the price) was compared, so a made-up name beside the right price
    passed. Now they must be rows that tie with the reference's; another of the tied rows still
    passes."""
    task_dir = tmp_path / engine
    shutil.copytree(FIXTURES / ORDERS, task_dir)
    for old in (task_dir / "solutions").iterdir():
        shutil.rmtree(old)
    (task_dir / "solutions" / "reference").mkdir()
    (task_dir / "solutions" / "reference" / "query.sql").write_text(TOP_PRICE)
    toml = (task_dir / "task.toml").read_text().replace('"sqlite"', f'"{engine}"')
    (task_dir / "task.toml").write_text(toml)
    shop = task_dir / "workspace" / "shop.sql"  # a tie for second place: 45.00 twice
    shop.write_text(
        shop.read_text().replace(
            "(4, 'Green tea 250 g', 'tea', 7.90)", "(4, 'Green tea 250 g', 'tea', 45.00)"
        )
    )
    write_neighbours(task_dir)
    task = load_task(task_dir)
    assert verify(task, TOP_PRICE, pool).status is Status.PASS
    invented = (  # the right prices, a name made up where the LIMIT cut a tie
        "SELECT CASE WHEN price < 80 THEN 'anything' ELSE name END AS name, price "
        "FROM products ORDER BY price DESC LIMIT 2"
    )
    verdict = verify(task, invented, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    assert "anything" in " ".join(c.evidence for c in verdict.criteria)
    other_tie = "SELECT name, price FROM products ORDER BY price DESC, name DESC LIMIT 2"
    assert verify(task, other_tie, pool).status is Status.PASS
