"""The agent's tools: the schema, read-only queries on the visible database only, and submit."""

from __future__ import annotations

from assay.families.base import ToolFamily, Toolset
from assay.families.sql import SqlFamily
from assay.sandbox import PoolSandbox
from assay.verdicts import Status
from tests.families.sql.conftest import CITIES, ORDERS, fixture_task

family = SqlFamily()


def test_the_family_gives_toolsets() -> None:
    assert isinstance(family, ToolFamily)
    tools = family.tools(fixture_task(ORDERS))
    assert isinstance(tools, Toolset)
    assert [s["function"]["name"] for s in tools.schemas()] == ["schema", "query", "submit"]
    assert tools.fence == "sql"


def test_schema_shows_the_create_statements_as_written(pool: PoolSandbox) -> None:
    tools = family.tools(fixture_task(ORDERS))
    result = tools.call("schema", {}, pool)
    assert result.ok
    assert "CREATE TABLE order_items" in result.output
    assert "INSERT" not in result.output


def test_query_runs_on_the_visible_database_only(pool: PoolSandbox) -> None:
    for name, customers in ((ORDERS, 6), (CITIES, 6)):
        tools = family.tools(fixture_task(name))
        result = tools.call("query", {"sql": "SELECT COUNT(*) AS n FROM customers"}, pool)
        assert result.ok, result.output
        assert result.output.splitlines() == ["n", str(customers), "(1 rows)"]


def test_query_shows_nulls_and_bounds_its_rows(pool: PoolSandbox) -> None:
    tools = family.tools(fixture_task(ORDERS))
    result = tools.call("query", {"sql": "SELECT name, email FROM customers ORDER BY id"}, pool)
    assert "Chen Wei | NULL" in result.output
    big = "SELECT a.id FROM orders a, orders b, orders c"
    result = tools.call("query", {"sql": big}, pool)
    assert not result.ok
    assert "more than 200 rows; add a LIMIT" in result.output


def test_refused_and_malformed_calls_are_observations(pool: PoolSandbox) -> None:
    tools = family.tools(fixture_task(ORDERS))
    for name, arguments, expected in [
        ("query", {"sql": "DROP TABLE orders"}, "refused: DROP"),
        ("query", {"sql": "SELECT 1; SELECT 2"}, "2 statements"),
        ("query", {"sql": 3}, "must be a string"),
        ("query", {"sql": "SELECT 1", "db": "x"}, "unknown arguments"),
        ("query", {"sql": "SELECT nope FROM orders"}, "query failed"),
        ("schema", {"table": "x"}, "takes no arguments"),
        ("shell", {}, "unknown tool"),
    ]:
        result = tools.call(name, arguments, pool)
        assert not result.ok, name
        assert expected in result.output, (name, result.output)
    assert tools.submission() == {}


def test_a_submitted_query_is_judged_on_the_whole_suite(pool: PoolSandbox) -> None:
    task = fixture_task(CITIES)
    tools = family.tools(task)
    for name, arguments in tools.script(task.solutions["reference"]):
        result = tools.call(name, arguments, pool)
    assert result.submitted
    assert family.verify(task, tools.submission(), pool).status is Status.PASS
    answer = tools.script_answer(task.solutions["bad-missing-distinct"])
    assert "```sql\n" in answer
    query = answer.split("```sql\n")[1].split("```")[0]
    assert family.verify(task, tools.answer_files(query), pool).status is Status.FAIL
