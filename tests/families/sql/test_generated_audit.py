"""Generated sql tasks pass their own audit, on each engine: lint, references, every known-bad
query caught, the empty answer and the red-team's hacks failing, the mutants judged."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from assay.audit import Decision, run_audit
from assay.families.sql.generator import generate_sql_tasks
from assay.sandbox import PoolSandbox
from assay.tasks import TaskSet, save_task


@pytest.mark.parametrize(
    ("engine", "count"),
    # A DuckDB verification costs about ten times a SQLite one (the module is imported in each
    # sandbox job), so fewer of its tasks here; benchmarks/README.md gives the 100-task runs.
    [("sqlite", 12), ("duckdb", 4)],
)
@pytest.mark.slow(minutes=2)
def test_generated_tasks_pass_their_own_audit(
    pool: PoolSandbox, tmp_path: Path, engine: Literal["sqlite", "duckdb"], count: int
) -> None:
    for task in generate_sql_tasks(count, 21, pool, engine=engine):
        save_task(task, tmp_path)
    report = run_audit(TaskSet.load(tmp_path), pool)
    assert len(report.tasks) == count
    refused = [(t.task_id, t.decision, t.findings) for t in report.tasks]
    assert [r for r in refused if r[1] is not Decision.ACCEPTED] == []
    assert report.known_bad_caught == report.known_bad >= 3 * count
    assert {"red-team", "mutation"} <= set(report.checks)
    mutation = [f for t in report.tasks for f in t.findings if f.check == "mutation"]
    assert all(f.severity.value != "error" for f in mutation)
