"""The ``sql`` family: answer a question with one query, judged on a suite of databases."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib.resources import files as package_files
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import SandboxError, TaskFormatError, VerifierError
from assay.families import version_label
from assay.families._recent import Recent
from assay.families.base import Exploit, Mutant
from assay.families.sql._judging import Recorder, assay_version, judge, refused
from assay.families.sql.compare import Ordering, tied_rows
from assay.families.sql.config import QUERY_FILE, SqlConfig, sql_config
from assay.families.sql.databases import SUFFIXES, Database, engine_data, suite
from assay.families.sql.exploits import literal_exploits, sql_exploits
from assay.families.sql.gate import Refused, check_query
from assay.families.sql.lint import lint_sql_task
from assay.families.sql.mutants import sql_mutants
from assay.families.sql.ordering import lifted, ordering
from assay.families.sql.results import Failed, Row, RunOutputs, Table, decode_run
from assay.findings import Finding
from assay.sandbox import PACKAGES_DIR, python_environment
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits
from assay.tasks.taskdir import read_files, read_solution_file
from assay.verdicts import Status, Verdict, Versions

if TYPE_CHECKING:
    from assay.families.sql.tools import SqlTools

RUNNER = package_files("assay.families.sql").joinpath("_runner.py").read_text(encoding="utf-8")
VERSION = "9"
MAX_RECORD_BYTES = 2_000_000
"""Longest record of one query's result on one database, in UTF-8 bytes (the job's output is
budgeted by them); a longer result fails (``size``)."""
EMPTY_QUERY = b"SELECT NULL AS nothing WHERE 1 = 0\n"
_EXPECTED_CACHE = 256


class SqlFamily:
    """SQL question tasks. See :mod:`assay.families.sql` for the task layout."""

    name = "sql"
    version = VERSION
    trusted_code: tuple[str, ...] = (RUNNER,)

    def __init__(self) -> None:
        self._expected: Recent[str, Expected] = Recent(_EXPECTED_CACHE)

    def load_solution(self, path: Path) -> Files:
        """A solution directory holding ``query.sql``, or a single ``.sql`` file taken as it."""
        path = Path(path)
        if path.is_dir():
            return read_files(path)
        return {QUERY_FILE: read_solution_file(path, missing="pass query.sql or its directory")}

    def empty_solution(self, task: Task) -> Files:
        """A query that returns nothing at all."""
        return {QUERY_FILE: EMPTY_QUERY}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's sql-family parts."""
        return lint_sql_task(task)

    def exploits(self, task: Task) -> list[Exploit]:
        """Reward hacks shaped for ``task``, for the audit's red-team check (see
        :mod:`assay.families.sql.exploits`)."""
        return sql_exploits(task)

    def observed_exploits(self, task: Task, sandbox: Sandbox) -> list[Exploit]:
        """The reference's answer on the visible database hard-coded (see
        :func:`assay.families.sql.exploits.literal_exploits`)."""
        return literal_exploits(task, sandbox)

    def mutants(self, task: Task) -> list[Mutant]:
        """Near misses of ``task``'s reference query, for the audit's mutation check (see
        :mod:`assay.families.sql.mutants`); empty when its settings or reference cannot be read."""
        try:
            config = sql_config(task)
        except TaskFormatError:
            return []
        return sql_mutants(task, config)

    def tools(self, task: Task) -> SqlTools:
        """The agent's tools over ``task``'s visible database."""
        from assay.families.sql.tools import SqlTools  # noqa: PLC0415 - tools import this module

        return SqlTools(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Run the submitted query on every database of the suite in ``sandbox``; it passes when
        its results match one reference's on all of them."""
        config = sql_config(task)
        databases = suite(task, config)
        files = _engine_files(task, databases, config)
        label = version_label(self)
        packages = _packages(config)
        record = Recorder(
            task.id,
            Versions(
                task=task.content_version(label),
                family=label,
                assay=assay_version(),
                python=python_environment(packages),
            ),
        )
        text = solution.get(QUERY_FILE)
        if text is None:
            return record(Status.FAIL, f"{QUERY_FILE} was not submitted")
        try:
            query = text.decode("utf-8-sig")  # a byte order mark some editors write is no SQL
        except UnicodeDecodeError:
            return record(Status.FAIL, f"{QUERY_FILE} is not UTF-8 text")
        gate = check_query(query, config.engine)
        if isinstance(gate, Refused):
            return record(Status.FAIL, f"refused: {gate.reason}", refused(databases, gate.reason))
        try:
            expected = self._expected_for(task, config, databases, files, sandbox)
            run = run_queries(
                sandbox, config, files, [query], task.spec.limits, stop_on_failure=True
            )
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        except VerifierError as exc:
            return record(Status.ERROR, f"verifier error: {exc}")
        outcomes = [run.outcome(0, index) for index in range(len(databases))]
        criteria, reference = judge(databases, outcomes, expected, config)
        passed = sum(c.passed for c in criteria)
        status = Status.PASS if passed == len(criteria) else Status.FAIL
        summary = f"{passed}/{len(criteria)} databases match the {reference}"
        if len(expected.references) > 1:
            summary += f" (best of {len(expected.references)} references)"
        return record(status, summary, tuple(criteria), run.result, expected.runs)

    def _expected_for(
        self,
        task: Task,
        config: SqlConfig,
        databases: list[Database],
        files: Files,
        sandbox: Sandbox,
    ) -> Expected:
        """The references' results on every database, computed once per task version."""
        key = task.content_version(version_label(self))
        known = self._expected.get(key)
        if known is not None:
            return replace(known, runs=())
        expected = _reference_results(task, config, databases, files, sandbox)
        self._expected.put(key, expected)
        return expected


@dataclass(frozen=True)
class Expected:
    """What each reference returns on each database of the suite."""

    references: tuple[str, ...]
    tables: tuple[tuple[Table, ...], ...]
    """Per reference, per database."""
    orderings: tuple[Ordering | None, ...]
    """Per reference."""
    ties: tuple[tuple[tuple[Row, ...] | None, ...], ...]
    """Per reference, per database: the rows that tie with the last ones its LIMIT kept (see
    :func:`assay.families.sql.compare.tied_rows`); None where it cut nothing or they are not
    known."""
    runs: tuple[ExecResult, ...]
    """The sandbox run that computed them; empty when they came from the cache."""


def _reference_results(
    task: Task, config: SqlConfig, databases: list[Database], files: Files, sandbox: Sandbox
) -> Expected:
    names, queries, trees = [], [], []
    for name, solution in task.references().items():
        where = f"{task.id}/solutions/{name}/{QUERY_FILE}"
        try:
            text = solution.get(QUERY_FILE, b"").decode("utf-8-sig")
        except UnicodeDecodeError:
            raise TaskFormatError(
                "the query is not UTF-8 text", path=where, fix="save it as UTF-8"
            ) from None
        gate = check_query(text, config.engine)
        if isinstance(gate, Refused):
            raise TaskFormatError(
                gate.reason, path=where, fix="make the reference one read-only query"
            )
        names.append(name)
        queries.append(text)
        trees.append(gate.tree)
    if not names:
        raise TaskFormatError(
            "the task has no reference query",
            path=f"{task.id}/solutions/reference/{QUERY_FILE}",
            fix="add the reference query",
        )
    unordered = config.order == "unordered"
    raised = [None if unordered else lifted(tree, config.engine, config.max_rows) for tree in trees]
    extra = [text for text, _ in filter(None, raised)]
    run = run_queries(
        sandbox, config, files, [*queries, *extra], task.spec.limits, stop_on_failure=False
    )
    tables: list[tuple[Table, ...]] = []
    orderings: list[Ordering | None] = []
    for q, name in enumerate(names):
        row: list[Table] = []
        for d, database in enumerate(databases):
            outcome = run.outcome(q, d)
            if (
                isinstance(outcome, Failed)
                and outcome.kind in _TASK_FAULTS
                and run.setup_error is None
                and run.tampered is None
            ):
                raise TaskFormatError(
                    f"gives no result on {database.name}: {_first_line(outcome.message)}",
                    path=f"{task.id}/solutions/{name}/{QUERY_FILE}",
                    fix="correct the reference query",
                )
            if isinstance(outcome, Failed):
                raise VerifierError(
                    f"solutions/{name} gives no result on {database.name}: "
                    + _first_line(outcome.message)
                )
            row.append(outcome)
        tables.append(tuple(row))
        orderings.append(None if unordered else ordering(trees[q], row[0].columns))
    ties = _ties(run, tables, orderings, raised, config)
    return Expected(tuple(names), tuple(tables), tuple(orderings), ties, (run.result,))


def _ties(
    run: RunOutputs,
    tables: list[tuple[Table, ...]],
    orderings: list[Ordering | None],
    raised: list[tuple[str, int] | None],
    config: SqlConfig,
) -> tuple[tuple[tuple[Row, ...] | None, ...], ...]:
    """Per reference, per database, the rows tied with the last ones its LIMIT kept, from the
    runs of the references with their LIMIT raised (queried after the references themselves)."""
    found: list[tuple[tuple[Row, ...] | None, ...]] = []
    position = len(tables)
    for q, kept in enumerate(tables):
        order, lift = orderings[q], raised[q]
        outcomes: list[Table | Failed | None] = [None] * len(kept)
        if lift is not None:
            outcomes = [run.outcome(position, d) for d in range(len(kept))]
            position += 1
        found.append(
            tuple(
                tied_rows(t, o, order, tolerance=config.float_tolerance, read=lift[1])
                if lift and order and isinstance(o, Table)
                else None
                for t, o in zip(kept, outcomes, strict=True)
            )
        )
    return tuple(found)


_TASK_FAULTS = ("error", "rows", "size")
"""How a reference query may fail that is the task's fault (an engine error, more rows or a
longer record than the limits allow); a timeout or a missing record may be the machine's."""


def run_queries(
    sandbox: Sandbox,
    config: SqlConfig,
    files: Files,
    queries: Sequence[str],
    limits: Limits,
    *,
    stop_on_failure: bool,
) -> RunOutputs:
    """Run every query on every database in ``files`` (``db/<n>`` engine files) in ``sandbox``."""
    nonce = f"@assay:{secrets.token_hex(8)}:"
    paths = sorted(files, key=lambda path: int(path.split("/")[1].split(".")[0]))
    records = len(queries) * len(paths)
    job = {
        "nonce": nonce,
        "engine": config.engine,
        "databases": paths,
        "queries": list(queries),
        "max_rows": config.max_rows,
        "time_limit_s": config.time_limit_s,
        "memory_mb": limits.memory_mb,
        "max_record_bytes": MAX_RECORD_BYTES,
        "stop_on_failure": stop_on_failure,
        "path": [PACKAGES_DIR] if config.engine == "duckdb" else [],
    }
    output_kb = min(65536, max(limits.max_output_kb, records * (MAX_RECORD_BYTES // 1000) + 64))
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", RUNNER],
        files=files,
        limits=limits.model_copy(update={"max_output_kb": output_kb}),
        stdin=json.dumps(job).encode(),
        packages=_packages(config),
        sockets=False,  # the runner needs none, and without them leaves its network unchanged
    )
    return decode_run(
        result,
        nonce,
        len(queries),
        len(paths),
        max_chars=MAX_RECORD_BYTES + 1000,
        stop_on_failure=stop_on_failure,
    )


def _first_line(message: str) -> str:
    """The first line of an engine's message (DuckDB's go on with a hint and the query)."""
    return next((line.strip() for line in message.splitlines() if line.strip()), message)


def _packages(config: SqlConfig) -> tuple[str, ...]:
    return ("duckdb",) if config.engine == "duckdb" else ()


def _engine_files(task: Task, databases: list[Database], config: SqlConfig) -> Files:
    suffix = SUFFIXES[config.engine]
    return {
        f"db/{index}{suffix}": engine_data(task.id, database, config.engine)
        for index, database in enumerate(databases)
    }
