"""What the generator and the importers share when they make a task: the reference's answer on
the visible database (run in the sandbox), the known-bad query that hard-codes it, the neighbour
databases made once, and the self-check that every reference passes and every known-bad fails."""

from __future__ import annotations

from assay.families.sql.config import NEIGHBOURS_DIR, QUERY_FILE, SqlConfig
from assay.families.sql.databases import Database, engine_bytes, engine_file
from assay.families.sql.family import SqlFamily, run_queries
from assay.families.sql.neighbours import DEFAULT_COUNT, neighbours
from assay.families.sql.results import Failed, Table
from assay.families.sql.templates import value_sql
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits
from assay.verdicts import Status

LIMITS = Limits(timeout_s=20, cpu_s=20, memory_mb=512)
HARD_CODED = "bad-hard-coded"
"""The known-bad query that returns the visible database's answer from literals."""


def visible_answer(
    task_id: str, visible: str, query: str, config: SqlConfig, sandbox: Sandbox
) -> Table | Failed:
    """What ``query`` returns on the visible database, run in the sandbox. Raises
    :class:`TaskFormatError` when the database text does not build."""
    database = Database(f"workspace/{config.database}", visible.encode())
    path = engine_file(task_id, database, config.engine)
    files = {f"db/0{path.suffix}": engine_bytes(path)}
    run = run_queries(sandbox, config, files, [query], LIMITS, stop_on_failure=True)
    return run.outcome(0, 0)


def literal_query(answer: Table) -> str:
    """A query that returns ``answer`` from literals and reads no table."""
    names = [f"c{i}" for i in range(len(answer.columns))]
    selects = []
    for number, row in enumerate(answer.rows):
        values = [
            value_sql(v if v is None or isinstance(v, int | float | str) else str(v)) for v in row
        ]
        if number == 0:
            values = [f"{v} AS {name}" for v, name in zip(values, names, strict=True)]
        selects.append("SELECT " + ", ".join(values))
    return "\nUNION ALL ".join(selects)


def neighbour_files(visible: str, queries: list[str], *, engine: str, seed: int) -> Files:
    """The neighbour databases of ``visible`` made for ``queries``, as ``hidden/`` files.
    Raises :class:`ValueError` when ``visible`` is not a database."""
    made = neighbours(visible, queries, engine=engine, seed=seed, count=DEFAULT_COUNT)
    return {f"{NEIGHBOURS_DIR}/n{n:02d}.sql": text.encode() for n, text in enumerate(made, 1)}


def query_files(text: str) -> Files:
    """A solution directory holding ``text`` as its query."""
    return {QUERY_FILE: (text.strip() + "\n").encode()}


def self_check(task: Task, sandbox: Sandbox, family: SqlFamily) -> str | None:
    """Why the task is not sound (a reference fails, a known-bad query passes), or None."""
    for name, files in task.references().items():
        verdict = family.verify(task, files, sandbox)
        if verdict.status is not Status.PASS:
            return f"solutions/{name} does not pass: {verdict.summary}"
    for name, files in task.known_bad().items():
        verdict = family.verify(task, files, sandbox)
        if verdict.status is not Status.FAIL:
            return f"solutions/{name} is not caught: {verdict.summary}"
    return None
