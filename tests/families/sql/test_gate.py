"""The gate: exactly one read-only query reaches an engine; database text is schema and rows."""

from __future__ import annotations

import pytest

from assay.families.sql.gate import Accepted, Refused, check_query, database_statements

ENGINES = ["sqlite", "duckdb"]

READ_ONLY = [
    "SELECT 1",
    "SELECT c.name, COUNT(o.id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id "
    "GROUP BY c.id, c.name ORDER BY 2 DESC LIMIT 3",
    "WITH recent AS (SELECT * FROM orders WHERE order_date >= '2024-01-01') "
    "SELECT status, COUNT(*) FROM recent GROUP BY status",
    "SELECT id FROM orders UNION SELECT id FROM customers ORDER BY 1",
    "SELECT name, RANK() OVER (ORDER BY price DESC) FROM products",
    "SELECT * FROM customers WHERE email IS NULL  -- a trailing comment",
    "SELECT COUNT(*) FROM orders; -- a comment after the semicolon",
    "SELECT COUNT(*) FROM orders;\n/* a comment after the semicolon */\n",
]

REFUSED = {
    "DROP TABLE orders": "DROP",
    "INSERT INTO orders VALUES (1, 1, '2024-01-01', 'x')": "INSERT",
    "UPDATE orders SET status = 'shipped'": "UPDATE",
    "DELETE FROM orders": "DELETE",
    "CREATE TABLE stolen AS SELECT * FROM customers": "CREATE",
    "ALTER TABLE orders ADD COLUMN x INT": "ALTER",
    "SELECT 1; SELECT 2": "2 statements",
    "SELECT 1; DROP TABLE orders": "2 statements",
    "SELECT 1; /* between */; DROP TABLE orders -- after": "2 statements",
    "-- a comment alone": "no query",
    "ATTACH DATABASE '/tmp/x.db' AS x": "ATTACH",
    "DETACH DATABASE main": "DETACH",
    "PRAGMA table_info(orders)": "PRAGMA",
    "COPY orders TO '/tmp/orders.csv'": "COPY",
    "INSTALL httpfs": "not a read-only query",
    "LOAD httpfs": "LOAD",
    "SET memory_limit = '10GB'": "SET",
    "BEGIN TRANSACTION": "BEGIN",
    "SELECT * FROM read_csv('/etc/passwd')": "only tables by name",
    "SELECT * FROM read_csv_auto('/etc/passwd')": "only tables by name",
    "SELECT * FROM read_parquet('x.parquet')": "only tables by name",
    "SELECT * FROM '/etc/passwd'": "only tables by name",
    "SELECT * FROM orders WHERE id IN (SELECT 1 FROM read_json('x.json'))": "only tables by name",
    "SELECT getenv('HOME')": "getenv",
    "SELECT * FROM customers WHERE id IN (SELECT 1 FROM parquet_scan('x'))": "only tables",
    "SELECT COUNT(*) FROM (SELECT * FROM customers) WHERE sqlite_scan('x', 't') IS NULL": "scan",
    "SELECT load_extension('evil.so')": "load_extension",
    "SELECT * INTO copied FROM orders": "INTO",
    "EXPLAIN SELECT 1": "EXPLAIN",
    "": "no query",
    "-- only a comment": "no query",
    "SELEC 1 FROM": "does not parse",
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query", READ_ONLY)
def test_read_only_queries_pass_the_gate(query: str, engine: str) -> None:
    assert isinstance(check_query(query, engine), Accepted)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("query", "reason"), REFUSED.items())
def test_everything_else_is_refused_with_the_reason(query: str, reason: str, engine: str) -> None:
    verdict = check_query(query, engine)
    assert isinstance(verdict, Refused)
    assert reason.lower() in verdict.reason.lower()


def test_a_huge_query_is_refused_unparsed() -> None:
    verdict = check_query("SELECT " + "1 + " * 50_000 + "1", "sqlite")
    assert isinstance(verdict, Refused)
    assert "more than" in verdict.reason


def test_a_deeply_nested_query_is_refused_not_a_crash() -> None:
    verdict = check_query("SELECT " + "(" * 5000 + "1" + ")" * 5000, "sqlite")
    assert isinstance(verdict, (Refused, Accepted))


def test_database_text_holds_schema_and_literal_rows_only() -> None:
    good = (
        "CREATE TABLE t (id INTEGER PRIMARY KEY, d DATE, x DECIMAL(10, 2));\n"
        "CREATE INDEX t_d ON t (d);\n"
        "CREATE VIEW v AS SELECT id FROM t;\n"
        "BEGIN;\nINSERT INTO t VALUES (1, '2024-01-01', -3.5), (2, NULL, CAST('1' AS INT));\n"
        "COMMIT;\n"
    )
    assert isinstance(database_statements(good, "sqlite"), list)
    for bad, problem in {
        "CREATE TABLE t (a INT); INSERT INTO t SELECT * FROM read_csv('x')": "VALUES",
        "CREATE TABLE t (a INT); INSERT INTO t VALUES (abs(-1))": "not a literal",
        "ATTACH 'x.db' AS x": "only CREATE",
        "PRAGMA writable_schema = 1": "only CREATE",
        "CREATE TABLE t AS SELECT 1": "CREATE TABLE ... AS",
        "CREATE VIEW v AS SELECT * FROM read_csv('/etc/passwd')": "only tables by name",
        "CREATE TABLE t (a INT": "does not parse",
        "CREATE TABLE t (a INT); BEGIN; INSERT INTO t VALUES (1)": "no COMMIT ends",
        "BEGIN; CREATE TABLE t (a INT); COMMIT; BEGIN; INSERT INTO t VALUES (1)": "statement 4",
    }.items():
        found = database_statements(bad, "duckdb")
        assert isinstance(found, str), bad
        assert problem in found, (bad, found)
