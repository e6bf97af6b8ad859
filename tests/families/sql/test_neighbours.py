"""Neighbour databases: seeded and deterministic, the same schema and constraints, and rows that
tell near-miss queries apart from the reference where the visible database cannot."""

from __future__ import annotations

import datetime as dt
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from assay.errors import TaskFormatError
from assay.families.sql import SqlFamily
from assay.families.sql.gate import Accepted, check_query
from assay.families.sql.mutants import query_mutants
from assay.families.sql.neighbours import neighbours, write_neighbours
from assay.sandbox import PoolSandbox
from assay.tasks.taskdir import load_task
from assay.verdicts import Status
from tests.families.sql.conftest import FIXTURES, ORDERS

VISIBLE = (FIXTURES / ORDERS / "workspace" / "shop.sql").read_text()
REFERENCE = (
    "SELECT c.name, COUNT(o.id) FROM customers AS c LEFT JOIN orders AS o "
    "ON o.customer_id = c.id AND o.order_date >= '2024-01-01' GROUP BY c.id, c.name"
)


def rows(text: str, query: str) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(":memory:")
    try:
        connection.executescript(text)
        return sorted(connection.execute(query).fetchall(), key=repr)
    finally:
        connection.close()


def test_the_same_seed_gives_the_same_databases_and_another_seed_others() -> None:
    first = neighbours(VISIBLE, [REFERENCE], seed=7, count=3)
    assert first == neighbours(VISIBLE, [REFERENCE], seed=7, count=3)
    assert first != neighbours(VISIBLE, [REFERENCE], seed=8, count=3)
    assert len(set(first)) == 3


@pytest.mark.parametrize("seed", range(6))
def test_neighbours_keep_the_schema_verbatim_and_its_constraints(seed: int) -> None:
    for text in neighbours(VISIBLE, [REFERENCE], seed=seed):
        assert text.startswith("-- A small coffee and tea shop")
        assert "price DECIMAL(10, 2) NOT NULL CHECK (price >= 0)" in text
        connection = sqlite3.connect(":memory:")
        connection.execute("PRAGMA foreign_keys = ON")
        connection.executescript(text)  # would raise on a broken constraint
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        connection.close()


def test_neighbours_hold_boundaries_nulls_orphans_and_empty_groups() -> None:
    texts = neighbours(VISIBLE, [REFERENCE], seed=3, count=4)
    joined = "\n".join(texts)
    assert "'2023-12-31 23:59:59'" in joined
    assert "'2024-01-01 00:00:00'" in joined
    customers_without_orders = (
        "SELECT COUNT(*) FROM customers WHERE id NOT IN (SELECT customer_id FROM orders)"
    )
    orphans = "SELECT COUNT(*) FROM orders WHERE customer_id NOT IN (SELECT id FROM customers)"
    nulls = "SELECT COUNT(*) FROM customers WHERE email IS NULL AND city IS NULL"
    assert any(rows(t, customers_without_orders)[0][0] > 0 for t in texts)
    assert any(rows(t, orphans)[0][0] > 0 for t in texts)
    assert any(rows(t, "SELECT COUNT(*) FROM customers WHERE city IS NULL")[0][0] for t in texts)
    assert all(isinstance(rows(t, nulls)[0][0], int) for t in texts)


@pytest.mark.parametrize(
    "mutant",
    [
        REFERENCE.replace(">=", ">"),
        REFERENCE.replace("LEFT JOIN", "JOIN"),
        REFERENCE.replace("COUNT(o.id)", "COUNT(*)"),
        REFERENCE.replace(" AND o.order_date >= '2024-01-01'", ""),
    ],
)
def test_a_near_miss_that_the_visible_database_misses_is_told_apart(mutant: str) -> None:
    visible_same = rows(VISIBLE, REFERENCE) == rows(VISIBLE, mutant)
    texts = neighbours(VISIBLE, [REFERENCE], seed=5)
    assert any(rows(t, REFERENCE) != rows(t, mutant) for t in texts), (visible_same, mutant)


def test_write_neighbours_replaces_hidden_databases(tmp_path: Path) -> None:
    task = tmp_path / ORDERS
    shutil.copytree(FIXTURES / ORDERS, task)
    (task / "hidden" / "databases" / "stale.sql").write_text("-- left from before\n")
    written = write_neighbours(task, count=2, seed=11)
    names = ["n01.sql", "n02.sql", "n03.sql"]  # n03: the rows for o.status's values
    assert [p.name for p in written] == names
    assert sorted(p.name for p in (task / "hidden" / "databases").iterdir()) == names


def test_write_neighbours_of_a_broken_database_names_the_file(tmp_path: Path) -> None:
    task = tmp_path / ORDERS
    shutil.copytree(FIXTURES / ORDERS, task)
    (task / "workspace" / "shop.sql").write_text("CREATE TABLE t (a INT); DROP TABLE t;")
    with pytest.raises(TaskFormatError) as raised:
        write_neighbours(task)
    assert "workspace/shop.sql" in str(raised.value)
    assert "only CREATE" in str(raised.value)


@pytest.mark.parametrize(
    "where", ["workspace/shop.sql", "solutions/reference/query.sql", "solutions/bad-x/query.sql"]
)
def test_write_neighbours_of_text_that_is_not_utf8_names_the_file(
    tmp_path: Path, where: str
) -> None:
    """A database or query saved in Latin-1 stopped the writer with a UnicodeDecodeError."""
    task = tmp_path / ORDERS
    shutil.copytree(FIXTURES / ORDERS, task)
    path = task / where
    path.parent.mkdir(exist_ok=True)
    text = path.read_text() if path.exists() else "SELECT name FROM customers"
    path.write_bytes(f"-- Caf\u00e9\n{text}".encode("latin-1"))
    with pytest.raises(TaskFormatError) as raised:
        write_neighbours(task, known_bad=True)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: not UTF-8 text: byte "), message
    assert "is 0xe9 (save it as UTF-8)" in message


def test_write_neighbours_reads_text_saved_with_a_byte_order_mark(tmp_path: Path) -> None:
    """The verifier reads a database and a query without the mark some editors write."""
    task = tmp_path / ORDERS
    shutil.copytree(FIXTURES / ORDERS, task)
    for where in ("workspace/shop.sql", "solutions/reference/query.sql"):
        path = task / where
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    write_neighbours(task)
    for path in sorted((FIXTURES / ORDERS / "hidden" / "databases").glob("*.sql")):
        assert (task / "hidden" / "databases" / path.name).read_text() == path.read_text()


def test_the_fixtures_neighbours_are_what_the_generator_makes(tmp_path: Path) -> None:
    """The stored neighbours were generated, not edited by hand: regenerating gives them back."""
    task = tmp_path / ORDERS
    shutil.copytree(FIXTURES / ORDERS, task)
    write_neighbours(task)
    for path in sorted((FIXTURES / ORDERS / "hidden" / "databases").glob("*.sql")):
        assert (task / "hidden" / "databases" / path.name).read_text() == path.read_text()


def test_a_whole_amount_gets_rows_a_cent_and_a_unit_either_side() -> None:
    """``price > 24`` is told apart from ``price > 25`` (a shifted boundary) and ``price >= 24``."""
    texts = neighbours(VISIBLE, ["SELECT name FROM products WHERE price > 24"], seed=1)
    prices = {row[0] for text in texts for row in rows(text, "SELECT price FROM products")}
    assert {23, 23.99, 24, 24.01, 25} <= prices


LEDGER = """
CREATE TABLE accounts (
  code TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('asset', 'expense'))
);
CREATE TABLE entries (id INTEGER PRIMARY KEY, posted_on DATE NOT NULL);
CREATE TABLE lines (
  id INTEGER PRIMARY KEY,
  entry_id INTEGER NOT NULL REFERENCES entries (id),
  account TEXT NOT NULL REFERENCES accounts (code)
);
INSERT INTO accounts VALUES ('1000', 'asset'), ('6000', 'expense');
INSERT INTO entries VALUES (1, '2024-01-10'), (2, '2024-01-20'), (3, '2024-02-05');
INSERT INTO lines VALUES (1, 1, '1000'), (2, 2, '1000'), (3, 3, '1000');
"""


def test_a_row_on_a_boundary_changes_a_distinct_count_over_the_window() -> None:
    """Every line names account 1000: a copy of an entry on the boundary with copies of its
    lines changed no COUNT(DISTINCT account), so a query one day off passed every neighbour.
    Rows on a boundary in a group of their own now refer to new parents."""
    window = (
        "SELECT COUNT(DISTINCT l.account) FROM entries AS e JOIN lines AS l ON l.entry_id = e.id "
        "WHERE e.posted_on >= '{start}' AND e.posted_on < '2024-02-01'"
    )
    right, off = window.format(start="2024-01-01"), window.format(start="2024-01-02")
    for seed in range(1, 6):
        texts = neighbours(LEDGER, [right], seed=seed)
        told = [rows(text, right) != rows(text, off) for text in texts]
        assert any(told), seed
        for text in texts:  # every line names an account that exists
            assert rows(
                text, "SELECT COUNT(*) FROM lines WHERE account NOT IN (SELECT code FROM accounts)"
            ) == [(0,)]


def _shop() -> str:
    """Sixty orders over 2024, none refunded but one in January, so that a neighbour rarely
    gets a refunded order in the second quarter by chance (a clone of that one order)."""
    rng = random.Random(0)
    orders, lines = [], []
    for number in range(1, 61):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(300))
        status = "refunded" if number == 1 else rng.choice(("paid", "shipped", "cancelled"))
        day = dt.date(2024, 1, 15) if number == 1 else day
        orders.append(f"({number}, '{day} 10:00:00', '{status}')")
        for product in rng.sample(range(1, 5), rng.randint(1, 2)):
            lines.append(f"({number}, {product}, {rng.randint(1, 4)})")
    products = "(1, 'Milk jug'), (2, 'Rooibos'), (3, 'Gift card'), (4, 'Kettle')"
    inserts = [("products", products), ("orders", ", ".join(orders))]
    inserts.append(("order_lines", ", ".join(lines)))
    return SHOP_SCHEMA + "".join(f"INSERT INTO {t} VALUES {v};\n" for t, v in inserts)  # noqa: S608 - the test's own rows


SHOP_SCHEMA = """
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  placed_at TIMESTAMP NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('paid', 'shipped', 'cancelled', 'refunded'))
);
CREATE TABLE order_lines (
  order_id INTEGER NOT NULL REFERENCES orders (id),
  product_id INTEGER NOT NULL REFERENCES products (id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (order_id, product_id)
);
"""
SHOP = _shop()
TOP = (
    "WITH sold AS (SELECT p.name, SUM(l.quantity) AS units FROM order_lines AS l "
    "JOIN orders AS o ON o.id = l.order_id JOIN products AS p ON p.id = l.product_id "
    "WHERE o.placed_at >= '2024-04-01' AND o.placed_at < '2024-07-01' AND {status} "
    "GROUP BY p.name) SELECT name, units FROM (SELECT name, units, "
    "RANK() OVER (ORDER BY units DESC) AS place FROM sold) AS r WHERE place <= 2 "
    "ORDER BY units DESC"
)
PAID = "o.status IN ('paid', 'shipped')"
WINDOW = "SELECT status FROM orders WHERE placed_at >= '2024-04-01' AND placed_at < '2024-07-01'"
COMPLEMENTS = ["o.status <> 'cancelled'", "o.status NOT IN ('cancelled')"]


def engine_rows(engine: str, text: str, query: str) -> list[tuple[object, ...]]:
    if engine == "sqlite":
        return rows(text, query)
    import duckdb  # noqa: PLC0415 - only the DuckDB cases need it

    connection = duckdb.connect(":memory:")
    try:
        connection.execute(text)
        return sorted(connection.execute(query).fetchall(), key=repr)
    finally:
        connection.close()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
@pytest.mark.parametrize("complement", COMPLEMENTS)
def test_a_complement_of_a_status_filter_is_told_apart_on_the_columns_other_values(
    engine: str, complement: str
) -> None:
    """The visible database has no refunded order in the window: ``<> 'cancelled'`` (or NOT IN)
    answers like ``IN ('paid', 'shipped')`` there. Every suite of neighbours, whatever its seed,
    holds orders of each status the CHECK allows inside the window, and tells them apart."""
    reference, attack = TOP.format(status=PAID), TOP.format(status=complement)
    assert rows(SHOP, reference) == rows(SHOP, attack)
    for seed in range(8):
        texts = neighbours(SHOP, [reference], engine=engine, seed=seed)
        statuses = {row[0] for text in texts for row in engine_rows(engine, text, WINDOW)}
        assert statuses == {"paid", "shipped", "cancelled", "refunded"}, seed
        told = [engine_rows(engine, t, reference) != engine_rows(engine, t, attack) for t in texts]
        assert any(told), (seed, complement)


def test_a_column_without_a_check_list_is_a_choice_among_the_values_it_holds() -> None:
    """With no CHECK naming the statuses, the values the visible rows hold stand for them: the
    one refunded order, outside the window, gets copies inside it, and a reference excluding
    cancelled orders is told apart from one listing paid and shipped."""
    loose = SHOP.replace("CHECK (status IN ('paid', 'shipped', 'cancelled', 'refunded'))", "")
    reference = TOP.format(status="o.status <> 'cancelled'")
    attack = TOP.format(status=PAID)
    assert rows(loose, reference) == rows(loose, attack)
    for seed in range(8):
        texts = neighbours(loose, [reference], seed=seed)
        assert any(rows(t, f"{WINDOW} AND status = 'refunded'") for t in texts), seed
        assert any(rows(t, reference) != rows(t, attack) for t in texts), seed


def test_the_other_values_are_put_where_the_query_looks(tmp_path: Path, pool: PoolSandbox) -> None:
    """End to end: neighbours written for the task, the complement filter fails the suite (with
    the database that tells it apart named) and the reference passes it, on both engines."""
    for engine in ("sqlite", "duckdb"):
        task_dir = tmp_path / engine
        shutil.copytree(FIXTURES / ORDERS, task_dir)
        for old in (task_dir / "solutions").iterdir():
            shutil.rmtree(old)
        (task_dir / "solutions" / "reference").mkdir()
        (task_dir / "solutions" / "reference" / "query.sql").write_text(TOP.format(status=PAID))
        (task_dir / "workspace" / "shop.sql").write_text(SHOP)
        toml = (task_dir / "task.toml").read_text().replace('"sqlite"', f'"{engine}"')
        (task_dir / "task.toml").write_text(toml)
        write_neighbours(task_dir)
        task = load_task(task_dir)
        family = SqlFamily()
        reference = family.verify(task, task.references()["reference"], pool)
        assert reference.status is Status.PASS, (engine, reference.summary)
        for complement in COMPLEMENTS:
            query = {"query.sql": TOP.format(status=complement).encode()}
            verdict = family.verify(task, query, pool)
            assert verdict.status is Status.FAIL, (engine, complement, verdict.summary)
            assert verdict.criteria[0].passed  # the visible database cannot tell them apart


CLAIMS = """
CREATE TABLE claims (
  id INTEGER PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('waiting', 'assigned')),
  filed_at TEXT NOT NULL
);
INSERT INTO claims VALUES
  (1, 'assigned', '2024-09-30 10:00:00'),
  (2, 'waiting', '2024-09-12 09:30:00'),
  (3, 'assigned', '2024-10-03 16:00:00'),
  (4, 'assigned', '2024-09-02 08:00:00'),
  (5, 'assigned', '2024-09-20 14:45:00'),
  (6, 'assigned', '2024-08-28 11:15:00'),
  (7, 'assigned', '2024-10-09 17:20:00'),
  (8, 'assigned', '2024-09-17 12:00:00'),
  (9, 'assigned', '2024-09-25 13:40:00'),
  (10, 'assigned', '2024-10-14 10:05:00');
"""
WAITING = "SELECT COUNT(*) FROM claims WHERE status = 'waiting' AND filed_at {bound}"


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_rows_on_a_windows_edge_meet_the_rest_of_the_query(engine: str) -> None:
    """The visible claim filed late on the window's last day is assigned, so the reference's
    ``filed_at < '2024-10-01'`` and the classic slip ``filed_at <= '2024-09-30'`` (which drops
    every claim of that day after midnight) agree there; rows on a boundary copied from any row
    were assigned as often, and every neighbour agreed too. Rows on a window's edges are now
    copied from rows that meet the query's other conditions, and every suite tells them apart."""
    reference = WAITING.format(bound="< '2024-10-01'")
    slip = WAITING.format(bound="<= '2024-09-30'")
    assert rows(CLAIMS, reference) == rows(CLAIMS, slip)
    for seed in range(8):
        texts = neighbours(CLAIMS, [reference], engine=engine, seed=seed)
        told = [engine_rows(engine, t, reference) != engine_rows(engine, t, slip) for t in texts]
        assert any(told), seed


def test_a_row_on_a_boundary_in_a_group_of_its_own_meets_the_tables_check_lists() -> None:
    """Entries have a CHECK listing their kinds: a row in a group of its own got a fresh text in
    every text column, ``kind-1`` too, broke the CHECK and was left out, so no row on a boundary
    ever changed a distinct count. A column with a CHECK list keeps the copied value."""
    checked = LEDGER.replace(
        "CREATE TABLE entries (id INTEGER PRIMARY KEY, posted_on DATE NOT NULL);",
        "CREATE TABLE entries (\n  id INTEGER PRIMARY KEY,\n  posted_on DATE NOT NULL,\n"
        "  kind TEXT NOT NULL CHECK (kind IN ('manual', 'automatic'))\n);",
    ).replace(
        "(1, '2024-01-10'), (2, '2024-01-20'), (3, '2024-02-05')",
        "(1, '2024-01-10', 'manual'), (2, '2024-01-20', 'manual'), (3, '2024-02-05', 'manual')",
    )
    window = (
        "SELECT COUNT(DISTINCT l.account) FROM entries AS e JOIN lines AS l ON l.entry_id = e.id "
        "WHERE e.posted_on >= '{start}' AND e.posted_on < '2024-02-01'"
    )
    right, off = window.format(start="2024-01-01"), window.format(start="2024-01-02")
    for seed in range(1, 6):
        texts = neighbours(checked, [right], seed=seed)
        assert any(rows(text, right) != rows(text, off) for text in texts), seed


COUNTRIES = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers (id),
  placed_at TIMESTAMP NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('paid', 'cancelled')),
  coupon TEXT
);
INSERT INTO customers VALUES (1, 'Ada', 'DE'), (2, 'Bruno', 'PT'), (3, 'Chen', 'DE');
INSERT INTO orders VALUES
  (1, 1, '2024-07-03 10:00:00', 'paid', 'SPRING'),
  (2, 2, '2024-08-14 12:30:00', 'paid', 'WELCOME10'),
  (3, 3, '2024-09-30 18:00:00', 'paid', 'SPRING'),
  (4, 1, '2024-10-02 09:00:00', 'cancelled', NULL),
  (5, 2, '2024-06-11 16:45:00', 'paid', 'SPRING');
"""
ORPHANS = "SELECT COUNT(*) FROM orders WHERE customer_id NOT IN (SELECT id FROM customers)"
COUPON_COUNTRIES = (
    "SELECT DISTINCT c.country FROM orders AS o JOIN customers AS c ON c.id = o.customer_id "
    "WHERE o.coupon <> '' AND o.placed_at >= '2024-07-01' AND o.placed_at < '{end}'"
)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_row_on_a_boundary_adds_a_value_to_a_distinct_over_its_parents_column(
    engine: str,
) -> None:
    """The countries of the orders in a quarter: every order on the window's last day came from
    a customer whose country other orders in the window named already, so the query that drops
    the last day (``< '2024-09-30'``) passed every neighbour. A row on a boundary in a group of
    its own now refers to a new parent in a group of its own, with a country nobody else has."""
    right = COUPON_COUNTRIES.format(end="2024-10-01")
    off = COUPON_COUNTRIES.format(end="2024-09-30")
    assert rows(COUNTRIES, right) == rows(COUNTRIES, off)
    for seed in range(8):
        texts = neighbours(COUNTRIES, [right], engine=engine, seed=seed)
        told = [engine_rows(engine, t, right) != engine_rows(engine, t, off) for t in texts]
        assert any(told), seed
        for text in texts:  # every order names a customer that exists
            assert rows(text, ORPHANS) == [(0,)]


def _markets() -> str:
    """Twelve customers, one of them French, whose one order falls before the window: the
    orders on the window's edge are almost all other countries'."""
    countries = ("DE", "ES", "IT", "UK")
    customers = [f"({n}, 'C{n}', '{'FR' if n == 1 else countries[n % 4]}')" for n in range(1, 13)]
    orders, number = [], 0
    for customer in range(1, 13):
        for _ in range(1 if customer == 1 else 3):
            number += 1
            day = f"2024-0{1 + number % 6}-1{number % 9} 10:00:00"
            orders.append(f"({number}, {customer}, '{day}')")
    return (
        "CREATE TABLE customers (\n  id INTEGER PRIMARY KEY,\n  name TEXT NOT NULL,\n"
        "  country TEXT NOT NULL\n);\n"
        "CREATE TABLE orders (\n  id INTEGER PRIMARY KEY,\n"
        "  customer_id INTEGER NOT NULL REFERENCES customers (id),\n"
        "  placed_at TIMESTAMP NOT NULL\n);\n"
        f"INSERT INTO customers VALUES {', '.join(customers)};\n"
        f"INSERT INTO orders VALUES {', '.join(orders)};\n"
    )


MARKETS = _markets()
FRENCH = (
    "SELECT {what} FROM customers AS c JOIN orders AS o ON o.customer_id = c.id "
    "WHERE c.country = 'FR' AND o.placed_at >= '2024-03-01'"
)


def _boundary_mutants(query: str) -> list[str]:
    """The mutants of ``query`` that move its window's boundary (``>`` for ``>=``, a day off)."""
    gate = check_query(query, "sqlite")
    assert isinstance(gate, Accepted)
    texts = [
        m.files["query.sql"].decode()
        for m in query_mutants(gate.tree, "sqlite")
        if m.name in ("flip-comparison", "shift-boundary")
    ]
    return [t for t in texts if "'FR'" in t and "o.placed_at >= '2024-03-01'" not in t]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_rows_on_a_windows_edge_meet_the_conditions_on_the_table_joined_to_them(
    engine: str,
) -> None:
    """The French customers' orders since March: the condition on the window's own table is
    the window alone, the other one is on the customer. Rows on the edge were copied from any
    order, a German customer's as a rule, which the query drops anyway, and ``>`` for ``>=``
    passed most suites. They are now copied from orders whose customer meets the query's
    conditions, and every suite kills every mutant that moves the boundary."""
    reference = FRENCH.format(what="COUNT(*)")
    moved = _boundary_mutants(reference)
    assert len(moved) == 3  # > for >=, and a day either side
    assert all(rows(MARKETS, reference) == rows(MARKETS, mutant) for mutant in moved)
    for seed in range(8):
        texts = neighbours(MARKETS, [reference], engine=engine, seed=seed)
        for mutant in moved:
            told = [
                engine_rows(engine, t, reference) != engine_rows(engine, t, mutant) for t in texts
            ]
            assert any(told), (seed, mutant)


def test_a_new_parent_for_a_row_on_a_windows_edge_keeps_what_the_query_reads() -> None:
    """A row on the edge in a group of its own may refer to a new customer in a group of its
    own, for a DISTINCT over the customers' names: that customer got a fresh text in every text
    column, its country too, and the query dropped it. It keeps the country now."""
    reference = FRENCH.format(what="COUNT(DISTINCT c.name)")
    edge = (
        "SELECT DISTINCT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.id "
        "WHERE c.country = 'FR' AND o.placed_at BETWEEN '2024-02-29' AND '2024-03-01 23:59:59'"
    )
    assert rows(MARKETS, edge) == []
    for seed in range(8):
        names = {
            row for text in neighbours(MARKETS, [reference], seed=seed) for row in rows(text, edge)
        }
        assert names - {("C1",)}, seed
