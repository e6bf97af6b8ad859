"""Attacks on the sql verifier: each is a ``fail`` with evidence, never an ``error``, never a
crash, and nothing is written anywhere (the engine files keep their hashes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import TaskFormatError
from assay.families.sql import SqlFamily, run_queries
from assay.families.sql.config import sql_config
from assay.families.sql.databases import suite
from assay.families.sql.family import _engine_files
from assay.families.sql.results import Failed, Table
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.families.sql.conftest import CITIES, ORDERS, fixture_task, hashes

family = SqlFamily()

CROSS = ", ".join(f"order_items AS t{i}" for i in range(7))
ATTACKS = {
    "whole table": "SELECT * FROM customers",
    "every table": "SELECT * FROM customers, orders",
    "drop": "DROP TABLE customers",
    "insert": "INSERT INTO customers VALUES (99, 'x', 'Oslo', NULL, '2024-01-01')",
    "update": "UPDATE customers SET city = 'Oslo'",
    "delete": "DELETE FROM orders",
    "two statements": "SELECT city FROM customers; DROP TABLE customers",
    "attach": "ATTACH DATABASE '/tmp/evil.db' AS evil",
    "pragma": "PRAGMA writable_schema = ON",
    "read a file": "SELECT * FROM read_csv('/etc/passwd')",
    "file as a table": "SELECT * FROM '/etc/passwd'",
    "install": "INSTALL httpfs",
    "load": "LOAD httpfs",
    "copy out": "COPY customers TO '/tmp/customers.csv'",
    "ten million rows": f"SELECT t0.order_id, t1.order_id FROM {CROSS}",  # noqa: S608 - an attack
    "forever": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT COUNT(*) FROM r",
    "huge value": "SELECT DISTINCT city || printf('%.*c', 50000000, 'x') FROM customers",
    "not utf-8": b"SELECT '\xff\xfe' AS city",
    "nul byte": "SELECT city FROM customers\x00; DROP TABLE customers",
    "an empty blob in a write": "DELETE FROM orders WHERE 1 = X''",  # sqlglot cannot print X''
    "an empty blob in a table function": "SELECT * FROM json_each(X'')",
}


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_attacks_fail_with_evidence_and_write_nothing(
    name: str, pool: PoolSandbox, engine_cache: Path
) -> None:
    task = _fast(fixture_task(name))
    family.verify(task, task.solutions["reference"], pool)  # build and cache the engine files
    before = hashes(engine_cache)
    assert before
    for attack, query in ATTACKS.items():
        text = query if isinstance(query, bytes) else query.encode()
        verdict = family.verify(task, {"query.sql": text}, pool)
        assert verdict.status is Status.FAIL, (attack, verdict.summary)
        assert verdict.summary, attack
        assert any(c.evidence for c in verdict.criteria) or "query.sql" in verdict.summary, attack
    assert hashes(engine_cache) == before
    for named in ("/tmp/customers.csv", "/tmp/evil.db"):  # noqa: S108 - paths the attacks name
        assert not Path(named).exists()


def test_a_query_that_runs_forever_is_stopped_by_its_own_limit(sandbox: Sandbox) -> None:
    task = _fast(fixture_task(ORDERS))
    verdict = family.verify(task, {"query.sql": ATTACKS["forever"].encode()}, sandbox)  # type: ignore[union-attr]
    assert verdict.status is Status.FAIL
    first = verdict.criteria[0]
    assert "timeout" in first.evidence
    assert verdict.timings.wall_s < 10


def test_ten_million_rows_stop_at_the_row_limit(sandbox: Sandbox) -> None:
    for name in (ORDERS, CITIES):
        task = fixture_task(name)
        verdict = family.verify(task, {"query.sql": ATTACKS["ten million rows"].encode()}, sandbox)  # type: ignore[union-attr]
        assert verdict.status is Status.FAIL
        assert "more than 10000 rows" in verdict.criteria[0].evidence


ENGINE_WALLS = [
    "ATTACH DATABASE '/tmp/evil.db' AS evil",
    "PRAGMA writable_schema = ON",
    "CREATE TABLE stolen (a INT)",
    "CREATE TEMP TABLE stolen AS SELECT * FROM customers",
    "INSERT INTO customers VALUES (99, 'x', 'Oslo', NULL, '2024-01-01')",
    "DELETE FROM orders",
    "DROP TABLE customers",
    "COPY customers TO '/tmp/customers.csv'",
    "SELECT * FROM read_csv('/etc/passwd')",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT load_extension('/tmp/evil.so')",
    "SET enable_external_access = true",
    "SELECT * FROM 'db/1.duckdb'",  # another database of the suite, beside this one
    "SELECT * FROM read_text('db/1.sqlite')",
    "SELECT * FROM glob('db/*')",
    "ATTACH DATABASE 'db/1.sqlite' AS other",
    "ATTACH 'db/1.duckdb' AS other (READ_ONLY)",
]


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_the_engines_refuse_what_the_gate_would_have_refused(
    name: str, pool: PoolSandbox, engine_cache: Path
) -> None:
    """The parser is the first wall, not the only one: sent past it, the engine says no."""
    task = fixture_task(name)
    config = sql_config(task)
    files = _engine_files(task, suite(task, config), config)
    before = hashes(engine_cache)
    outputs = run_queries(
        pool, config, files, ENGINE_WALLS, task.spec.limits, stop_on_failure=False
    )
    assert outputs.tampered is None
    for q, query in enumerate(ENGINE_WALLS):
        outcome = outputs.outcome(q, 0)
        if isinstance(outcome, Table):  # a statement the engine allows must have done nothing
            assert outcome.rows in ((), ([0],)), query
            continue
        assert isinstance(outcome, Failed), query
        assert outcome.kind == "error", (query, outcome)
    reread = run_queries(
        pool,
        config,
        files,
        ["SELECT COUNT(*) FROM customers"],
        task.spec.limits,
        stop_on_failure=False,
    )
    assert reread.outcome(0, 0) == Table(
        ("COUNT(*)",) if config.engine == "sqlite" else ("count_star()",), ([6],)
    )
    assert hashes(engine_cache) == before


def test_a_reference_that_cannot_run_is_the_tasks_fault_not_a_pass(pool: PoolSandbox) -> None:
    """Not an ``error`` (audit again): the query fails the same way every time."""
    task = fixture_task(ORDERS)
    broken = {**task.solutions, "reference": {"query.sql": b"SELECT no_such_column FROM orders"}}
    task = task.model_copy(update={"solutions": broken})
    with pytest.raises(TaskFormatError, match=r"solutions/reference/query\.sql: gives no result"):
        family.verify(task, {"query.sql": b"SELECT 1"}, pool)


def _fast(task: Task) -> Task:
    """``task`` with a short time limit per query."""
    config = {**task.spec.config, "time_limit_s": 1.0}
    return task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_the_red_team_exploits_all_fail(name: str, pool: PoolSandbox) -> None:
    """The hacks the audit's red-team check tries on every sql task."""
    task = _fast(fixture_task(name))
    exploits = family.exploits(task)
    assert {
        "whole-table-customers",
        "reference-then-drop",
        "runs-forever",
        "another-database",
        "attach-another-database",
        "sql-in-a-string",
        "huge-sort",
    } <= {e.name for e in exploits}
    for exploit in exploits:
        verdict = family.verify(task, exploit.files, pool)
        assert verdict.status is Status.FAIL, (exploit.name, verdict.summary)
        assert all(not c.passed for c in verdict.criteria), exploit.name


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_the_visible_answer_hard_coded_fails_where_the_data_differs(
    name: str, pool: PoolSandbox
) -> None:
    task = fixture_task(name)
    [literal] = family.observed_exploits(task, pool)
    assert literal.name == "literal-rows"
    query = literal.files["query.sql"].decode()
    assert query.count("SELECT") > 2  # one literal row a SELECT
    verdict = family.verify(task, literal.files, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    [visible, *others] = verdict.criteria
    assert visible.passed, visible.evidence  # it is the right answer where it was copied from
    assert not all(c.passed for c in others)


def test_the_hard_coded_answer_passes_a_suite_that_never_changes_it(pool: PoolSandbox) -> None:
    """The red-team's reason to try it: neighbours that all give the visible answer."""
    task = fixture_task(ORDERS)
    hidden = {
        name: (task.workspace["shop.sql"] if name.startswith("databases/") else data)
        for name, data in task.hidden.items()
    }
    same = task.model_copy(update={"hidden": hidden})
    [literal] = family.observed_exploits(same, pool)
    assert family.verify(same, literal.files, pool).status is Status.PASS


def test_a_task_whose_database_cannot_be_read_has_no_exploits() -> None:
    task = fixture_task(ORDERS)
    broken = task.model_copy(update={"workspace": {"shop.sql": b"DROP TABLE x;"}})
    assert family.exploits(broken) == []


SPILLS = {
    "sqlite": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4000000) "
    "SELECT COUNT(*) FROM (SELECT hex(randomblob(100)) AS h FROM r ORDER BY h)",
    "duckdb": "SELECT COUNT(*) FROM (SELECT md5(range::VARCHAR) || md5((range + 1)::VARCHAR) AS h "
    "FROM range(8000000) ORDER BY h)",
}


@pytest.mark.parametrize("name", [ORDERS, CITIES])
def test_a_sort_past_the_memory_limit_fails_instead_of_writing_to_disk(
    name: str, pool: PoolSandbox
) -> None:
    """A read-only engine still wrote a big sort to temporary files beside the database (DuckDB)
    or in the job's temporary directory (SQLite), filling the job's disk at disk speed until
    the time limit. Both now keep temporary data in memory, and the query fails on the limit."""
    task = fixture_task(name)
    config = sql_config(task).model_copy(update={"time_limit_s": 15.0})
    files = _engine_files(task, suite(task, config)[:1], config)
    limits = task.spec.limits.model_copy(update={"timeout_s": 60.0, "memory_mb": 256})
    outputs = run_queries(
        pool, config, files, [SPILLS[config.engine]], limits, stop_on_failure=True
    )
    outcome = outputs.outcome(0, 0)
    assert isinstance(outcome, Failed), outcome
    assert outcome.kind == "error", outcome
    assert "memory" in outcome.message.lower(), outcome


def test_a_reference_the_engine_refuses_is_named_in_one_line(pool: PoolSandbox) -> None:
    """DuckDB's errors go on for lines (a hint, the query, a caret); bad task input is one."""
    task = fixture_task(CITIES)
    broken = {**task.solutions, "reference": {"query.sql": b"SELECT no_such_column FROM customers"}}
    task = task.model_copy(update={"solutions": broken})
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, {"query.sql": b"SELECT 1"}, pool)
    message = str(raised.value)
    assert "\n" not in message, message
    assert "solutions/reference/query.sql: gives no result on workspace/shop.sql" in message
    assert "no_such_column" in message
    assert message.endswith("(correct the reference query)")
