"""Mutants of the reference query: each kind of near miss is made, the retail tasks' neighbour
suites tell every one apart from the reference, and the visible database alone does not."""

from __future__ import annotations

import pytest

from assay.families.base import MutationFamily
from assay.families.sql import SqlFamily
from assay.families.sql.gate import Accepted, check_query
from assay.families.sql.mutants import MAX_MUTANTS, query_mutants
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.families.sql.conftest import CITIES, ORDERS, REVENUE, fixture_task, visible_only

family = SqlFamily()
QUERY = """
SELECT DISTINCT c.city, COUNT(o.id) AS orders, COUNT(*) AS lines, SUM(o.total) AS spent,
       MIN(o.placed) AS first, COUNT(DISTINCT o.channel) AS channels
FROM customers AS c
LEFT JOIN orders AS o ON o.customer_id = c.id AND o.status <> 'cancelled'
JOIN regions AS r ON r.id = c.region_id
WHERE c.signup >= '2024-01-01' AND c.score < 10 AND c.email IS NOT NULL
GROUP BY c.city
HAVING AVG(o.total) > 2.5
"""


def mutated(query: str, engine: str = "sqlite") -> dict[str, list[str]]:
    """The mutants' texts by kind."""
    gate = check_query(query, engine)
    assert isinstance(gate, Accepted)
    texts: dict[str, list[str]] = {}
    for mutant in query_mutants(gate.tree, engine):
        texts.setdefault(mutant.name, []).append(mutant.files["query.sql"].decode())
    return texts


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_family_gives_mutants_through_the_protocol() -> None:
    assert isinstance(family, MutationFamily)
    mutants = family.mutants(fixture_task(REVENUE))
    assert mutants
    assert all(m.diff.startswith("@@") for m in mutants)
    assert all("\n+" in m.diff or "\n-" in m.diff for m in mutants)


def test_order_mutants_only_where_order_can_matter() -> None:
    query = "SELECT name, SUM(q) AS units FROM o GROUP BY name ORDER BY units DESC, name"
    tree = check_query(query, "sqlite")
    assert isinstance(tree, Accepted)
    kinds = [m.name for m in query_mutants(tree.tree, "sqlite")]
    assert kinds.count("flip-order") == 2
    assert kinds.count("drop-order") == 1
    unordered = [m.name for m in query_mutants(tree.tree, "sqlite", ordered=False)]
    assert "flip-order" not in unordered
    assert "drop-order" not in unordered
    limited = check_query(query + " LIMIT 3", "sqlite")
    assert isinstance(limited, Accepted)  # a LIMIT takes the first rows: order matters again
    assert "flip-order" in [m.name for m in query_mutants(limited.tree, "sqlite", ordered=False)]


def test_every_kind_of_mutant_is_made() -> None:
    texts = {kind: [flat(t) for t in found] for kind, found in mutated(QUERY).items()}
    assert set(texts) == {
        "drop-predicate",
        "flip-comparison",
        "null-check",
        "join-type",
        "change-aggregate",
        "drop-distinct",
        "shift-boundary",
    }
    dropped = texts["drop-predicate"]
    assert any("WHERE c.score < 10 AND NOT c.email IS NULL" in t for t in dropped)
    assert any("ON o.customer_id = c.id JOIN" in t for t in dropped)  # the ON filter left out
    assert any("HAVING" not in t for t in dropped)
    flipped = texts["flip-comparison"]
    for change in ("c.signup > '2024-01-01'", "c.score <= 10", "o.status = 'cancelled'"):
        assert any(change in t for t in flipped), change
    assert any("AVG(o.total) >= 2.5" in t for t in flipped)
    assert any("c.email IS NULL" in t and "NOT c.email" not in t for t in texts["null-check"])
    joins = texts["join-type"]
    assert any("FROM customers AS c JOIN orders AS o" in t for t in joins)
    assert any("LEFT JOIN regions AS r" in t for t in joins)
    aggregates = texts["change-aggregate"]
    for change in (
        "COUNT(*) AS orders",
        "COUNT(o.customer_id) AS lines",  # COUNT(*) counts the LEFT-joined side's column
        "AVG(o.total) AS spent",
        "MAX(o.placed) AS first",
        "HAVING SUM(o.total) > 2.5",
    ):
        assert any(change in t for t in aggregates), change
    distinct = texts["drop-distinct"]
    assert any(t.startswith("SELECT c.city") for t in distinct)
    assert any("COUNT(o.channel) AS channels" in t for t in distinct)
    shifted = texts["shift-boundary"]
    for change in ("'2023-12-31'", "'2024-01-02'", "< 9", "< 11", "> 2.4", "> 2.6"):
        assert any(change in t for t in shifted), change


def test_mutants_are_distinct_read_only_queries_unlike_the_reference() -> None:
    gate = check_query(QUERY, "duckdb")
    assert isinstance(gate, Accepted)
    reference = gate.tree.sql(dialect="duckdb", pretty=True)
    texts = [m.files["query.sql"].decode() for m in query_mutants(gate.tree, "duckdb")]
    assert len(texts) == len(set(texts))
    assert reference not in texts
    assert all(isinstance(check_query(t, "duckdb"), Accepted) for t in texts)


def test_timestamps_and_decimals_shift_by_their_last_unit() -> None:
    texts = mutated("SELECT id FROM t WHERE at < '2024-03-01 00:00:00' AND price >= 19.99")
    shifted = [flat(t) for t in texts["shift-boundary"]]
    for change in ("'2024-02-29 23:59:59'", "'2024-03-01 00:00:01'", ">= 19.98", ">= 20.00"):
        assert any(change in t for t in shifted), change


def test_many_sites_are_capped_and_spread_over_the_kinds() -> None:
    conjuncts = " AND ".join(f"c{i} < {i}" for i in range(30))
    gate = check_query(f"SELECT MAX(c0) FROM t WHERE {conjuncts}", "sqlite")  # noqa: S608 - a test query
    assert isinstance(gate, Accepted)
    mutants = query_mutants(gate.tree, "sqlite")
    assert len(mutants) == MAX_MUTANTS
    assert {m.name for m in mutants} >= {
        "drop-predicate",
        "flip-comparison",
        "change-aggregate",
        "shift-boundary",
    }


def test_joins_that_cannot_change_type_are_not_mutated() -> None:
    task = fixture_task(REVENUE)  # order_items' keys are NOT NULL foreign keys to both tables
    assert "join-type" not in {m.name for m in family.mutants(task)}
    rejecting = mutated(
        "SELECT c.name FROM customers AS c LEFT JOIN orders AS o ON o.customer_id = c.id "
        "WHERE o.status = 'paid'"
    )
    assert "join-type" not in rejecting  # NULL o.status never passes the WHERE
    keeping = mutated(
        "SELECT c.name FROM customers AS c LEFT JOIN orders AS o ON o.customer_id = c.id "
        "WHERE COALESCE(o.status, 'none') <> 'paid'"
    )
    assert "join-type" in keeping


def test_a_mutant_equal_to_another_reference_is_not_made() -> None:
    task = fixture_task(ORDERS)
    texts = [flat(m.files["query.sql"].decode()) for m in family.mutants(task)]
    other = flat(task.solutions["reference-without-cancelled"]["query.sql"].decode())
    assert other.rstrip(";") not in texts


@pytest.mark.parametrize(
    ("files", "why"),
    [
        ({}, "no reference"),
        ({"query.sql": b"DELETE FROM orders"}, "refused by the gate"),
        ({"query.sql": b"SELEC nothing"}, "does not parse"),
    ],
)
def test_no_mutants_of_a_reference_that_is_not_a_query(files: dict[str, bytes], why: str) -> None:
    task = fixture_task(ORDERS)
    broken = task.model_copy(update={"solutions": {"reference": files}})
    assert family.mutants(broken) == [], why


def test_no_mutants_when_the_settings_are_broken() -> None:
    task = fixture_task(ORDERS)
    spec = task.spec.model_copy(update={"config": {"engine": "oracle"}})
    assert family.mutants(task.model_copy(update={"spec": spec})) == []


def survivors(task: Task, pool: PoolSandbox) -> list[str]:
    return [
        f"{m.name}: {m.diff}"
        for m in family.mutants(task)
        if family.verify(task, m.files, pool).status is not Status.FAIL
    ]


@pytest.mark.parametrize("name", [REVENUE, ORDERS, CITIES])
def test_the_neighbour_suite_kills_every_mutant(name: str, pool: PoolSandbox) -> None:
    task = fixture_task(name)
    assert len(family.mutants(task)) >= 3
    assert survivors(task, pool) == []


@pytest.mark.parametrize("name", [REVENUE, ORDERS, CITIES])
def test_without_neighbours_mutants_survive(name: str, pool: PoolSandbox) -> None:
    alone = survivors(visible_only(fixture_task(name)), pool)
    assert alone
    kinds = {line.split(":")[0] for line in alone}
    expected = {
        REVENUE: {"drop-predicate", "flip-comparison", "shift-boundary"},
        ORDERS: {"join-type", "change-aggregate"},
        CITIES: {"drop-predicate", "null-check", "drop-distinct"},
    }
    assert kinds == expected[name]
