"""The sql family's verifier against the same queries run directly, measured in one run.

For each engine, the tasks are the hand-written retail tasks of the tests on that engine and a
few generated ones; each verification judges the task's reference on its whole suite (the
visible database and its four neighbours):

- **sandboxed**: ``SqlFamily().verify(task, reference, pool)``: the query passes the gate
  (sqlglot), the suite's engine files are copied into a pool sandbox job, the runner opens each
  one read-only and locked down, runs the query with its time and row limits and prints bounded
  records, which this process decodes as hostile output and compares with the reference's
  results (computed once per task and cached, as in any run);
- **direct**: the same query on the same engine files with the engine's Python module in this
  process (``sqlite3`` or ``duckdb``, read-only), every row fetched and compared as a sorted
  multiset with the reference's rows fetched the same way at warm-up. No gate, no limits, no
  isolation: the floor for this work.

Figures: median and 99th-percentile latency of one verification (one after another), and
verifications per second with twice as many client threads as CPUs (the command line's default),
the two sides alternated over :data:`ROUNDS` rounds (the side that goes first swapped each
round) and summed, each round's ratio printed beside the total. To show where the sandboxed
side's time goes, sandbox jobs in the engine's environment are timed on their own (an empty one,
and one that only imports the engine's module), the sandboxed verifications' time inside their
job is averaged from their verdicts, and the gate is timed alone. Every verification must pass,
or the benchmark fails instead of printing a timing.

Run: ``.venv/bin/python benchmarks/sql.py [--quick] [--n N] [--engine sqlite|duckdb]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from assay.families import harness_code
from assay.families.sql import SqlFamily
from assay.families.sql.config import QUERY_FILE, sql_config
from assay.families.sql.databases import LOCKED_DUCKDB, engine_file, suite
from assay.families.sql.gate import check_query
from assay.families.sql.generator import generate_sql_tasks
from assay.sandbox import PACKAGES_DIR, PoolSandbox
from assay.tasks import Limits, Task
from assay.tasks.taskdir import load_task
from assay.verdicts import Status

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests/families/sql/fixtures"
CPUS = os.cpu_count() or 1
THREADS = 2 * CPUS
ROUNDS = 5
"""Rounds of the throughput figures, each side ``--n`` verifications a round; the side that goes
first alternates, and the figures are the totals."""
GENERATED = {"sqlite": 4, "duckdb": 2}
"""Generated tasks added to the fixtures, per engine."""


class BenchmarkError(RuntimeError):
    """A verification did not pass, so its timing would mean nothing."""


def tasks(engine: str, pool: PoolSandbox) -> list[Task]:
    """The retail fixtures on ``engine`` and a few generated tasks."""
    found = [load_task(path) for path in sorted(FIXTURES.iterdir()) if path.is_dir()]
    found = [task for task in found if sql_config(task).engine == engine]
    engine_name: Literal["sqlite", "duckdb"] = "duckdb" if engine == "duckdb" else "sqlite"
    return found + generate_sql_tasks(GENERATED[engine], 7, pool, engine=engine_name)


def sandboxed(pool: PoolSandbox) -> Callable[[Task], float]:
    """One verification through the family; returns the seconds spent in the sandbox."""
    family = SqlFamily()

    def run(task: Task) -> float:
        verdict = family.verify(task, task.solutions["reference"], pool)
        if verdict.status is not Status.PASS:
            raise BenchmarkError(f"{task.id}: {verdict.status.value}: {verdict.summary}")
        return verdict.timings.sandbox_s

    return run


Rows = list[tuple[object, ...]]


def direct(work: list[Task], stages: dict[str, float] | None = None) -> Callable[[Task], float]:
    """The reference on every database of the suite in this process, compared with the
    reference's rows; adds the seconds of connecting and of querying to ``stages``."""
    files = {task.id: _engine_files(task) for task in work}
    expected = {task.id: [_sorted(rows) for rows in _rows(task, files[task.id])] for task in work}

    def run(task: Task) -> float:
        found = _rows(task, files[task.id], stages)
        if [_sorted(rows) for rows in found] != expected[task.id]:
            raise BenchmarkError(f"{task.id}: the direct rows changed between runs")
        return 0.0

    return run


def _engine_files(task: Task) -> list[Path]:
    config = sql_config(task)
    return [engine_file(task.id, database, config.engine) for database in suite(task, config)]


def _rows(task: Task, paths: list[Path], stages: dict[str, float] | None = None) -> list[Rows]:
    engine = sql_config(task).engine
    query = task.solutions["reference"][QUERY_FILE].decode()
    results = []
    for path in paths:
        started = time.perf_counter()
        connection = _connect(engine, path)
        connected = time.perf_counter()
        try:
            results.append([tuple(row) for row in connection.execute(query).fetchall()])
        finally:
            connection.close()
        if stages is not None:
            stages["connect"] += connected - started
            stages["query"] += time.perf_counter() - connected
    return results


def _connect(engine: str, path: Path) -> sqlite3.Connection:
    if engine == "duckdb":
        import duckdb  # noqa: PLC0415 - loaded only when DuckDB is measured

        return duckdb.connect(str(path), read_only=True, config=dict(LOCKED_DUCKDB))  # type: ignore[return-value]
    return sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)


def _sorted(rows: Rows) -> Rows:
    return sorted(rows, key=repr)


def latency(verify: Callable[[Task], float], work: list[Task], count: int) -> list[float]:
    """Seconds of each of ``count`` verifications one after another."""
    times = []
    for index in range(count):
        started = time.perf_counter()
        verify(work[index % len(work)])
        times.append(time.perf_counter() - started)
    return times


def shared(verify: Callable[[Task], float], work: list[Task], count: int) -> float:
    """Seconds for ``count`` verifications shared by :data:`THREADS` client threads."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(lambda index: verify(work[index % len(work)]), range(count)))
    return time.perf_counter() - started


def job(pool: PoolSandbox, code: str, engine: str) -> Callable[[Task], float]:
    """A sandbox job of ``code`` in the engine's environment (the task is not used)."""
    packages = ("duckdb",) if engine == "duckdb" else ()

    def run(_task: Task) -> float:
        result = pool.run(
            [pool.python, "-I", "-S", "-c", code], limits=Limits(), packages=packages, sockets=False
        )
        if result.exit_code != 0:
            raise BenchmarkError(f"a job failed: {result.stderr[-300:]}")
        return result.wall_s

    return run


def measure(engine: str, pool: PoolSandbox, count: int) -> None:
    """Both sides on ``engine``'s tasks, printed side by side."""
    work = tasks(engine, pool)
    print(f"\n{engine}: " + ", ".join(task.id for task in work))
    sides = {"sandboxed": sandboxed(pool), "direct": direct(work)}
    for verify in sides.values():  # warm-up: workers started, references' results cached
        for task in work * 2:
            verify(task)
    seconds = dict.fromkeys(sides, 0.0)
    ratios = []
    for index in range(ROUNDS):  # alternated, the side that goes first swapped each round
        order = list(sides) if index % 2 == 0 else list(reversed(sides))
        took = {name: shared(sides[name], work, count) for name in order}
        ratios.append(took["sandboxed"] / took["direct"])
        for name, spent in took.items():
            seconds[name] += spent
    rows = []
    for name, verify in sides.items():
        times = latency(verify, work, count)
        rate = ROUNDS * count / seconds[name]
        rows.append((name, statistics.median(times) * 1000, _p99(times) * 1000, rate))
    module = "duckdb" if engine == "duckdb" else "sqlite3"
    path = f"import sys; sys.path.append({PACKAGES_DIR!r}); " if engine == "duckdb" else ""
    for name, code in (("empty job", "pass"), (f"import {module}", f"{path}import {module}")):
        times = latency(job(pool, code, engine), work, count)
        rows.append((name, statistics.median(times) * 1000, _p99(times) * 1000, 0.0))
    stages = {"connect": 0.0, "query": 0.0}
    latency(direct(work, stages), work, count)
    in_sandbox = statistics.mean(sides["sandboxed"](task) for task in work * 3)
    gate = latency(lambda task: _gate(task, engine), work, count)
    print(f"{'':14}{'p50 ms':>10}{'p99 ms':>10}{'verif/s':>10}")
    for name, p50, p99, rate in rows:
        shown = f"{rate:10.1f}" if rate else f"{'-':>10}"
        print(f"{name:14}{p50:10.2f}{p99:10.2f}{shown}")
    print(
        f"sandboxed / direct, verif/s: {rows[1][3] / rows[0][3]:.1f}x slower "
        f"({ROUNDS} rounds: {', '.join(f'{ratio:.1f}x' for ratio in ratios)})"
    )
    shares = ", ".join(f"{name} {sec / count * 1000:.2f} ms" for name, sec in stages.items())
    print(f"direct, per verification (5 databases): {shares}")
    print(
        f"sandboxed, per verification: {in_sandbox * 1000:.2f} ms in the sandbox job, "
        f"gate {statistics.median(gate) * 1000:.2f} ms"
    )


def _gate(task: Task, engine: str) -> float:
    check_query(task.solutions["reference"][QUERY_FILE].decode(), engine)
    return 0.0


def main() -> int:
    """Run both sides for each engine and print them side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 verifications per figure")
    parser.add_argument("--n", type=int, default=300, help="verifications per figure")
    parser.add_argument("--engine", choices=("sqlite", "duckdb"), help="only this engine")
    args = parser.parse_args()
    count = 40 if args.quick else args.n
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(
        f"{CPUS} CPUs, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"load {os.getloadavg()[0]:.2f}, {count} verifications per figure, "
        f"{THREADS} client threads"
    )
    with PoolSandbox(max_workers=THREADS, trusted_code=harness_code()) as pool:
        for engine in [args.engine] if args.engine else ["sqlite", "duckdb"]:
            measure(engine, pool, count)
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    return 0


def _p99(times: list[float]) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[98]


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchmarkError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
