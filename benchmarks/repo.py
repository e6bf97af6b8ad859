"""The repo family's verifier side by side with the code family's, measured in one run.

- **repo**: ``RepoFamily().verify(task, reference, pool)`` on two generated tasks of each
  template: the whole project (10 to 15 files) written into a pool
  sandbox job, the harness importing the project and running every hidden case (calls and
  command lines, 7 to 14 a task), the records decoded as hostile text and judged here;
- **repo, as a patch**: the same, the submission a unified diff applied on the host first;
- **code**: ``CodeFamily().verify(task, reference, pool)`` on generated code tasks (one
  function, 8 to 20 cases);
- **empty job**: a sandbox job that does nothing, the floor of any verification.

Figures: median and p99 latency of one verification (one after another), and verifications per
second with twice as many client threads as CPUs. Every verification must pass, or the
benchmark fails instead of printing a timing.

Run: ``.venv/bin/python benchmarks/repo.py [--quick] [--n N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from assay.families import harness_code
from assay.families.code import CodeFamily
from assay.families.code.generator import generate_code_tasks
from assay.families.repo import RepoFamily
from assay.families.repo.generator import make_task
from assay.families.repo.patches import make_patch
from assay.families.repo.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.tasks import Limits, Task
from assay.tasks.model import Files
from assay.verdicts import Status

CPUS = os.cpu_count() or 1
THREADS = 2 * CPUS
Verify = Callable[[Task], None]


class BenchmarkError(RuntimeError):
    """A verification did not pass, so its timing would mean nothing."""


def repo_tasks(pool: PoolSandbox) -> list[Task]:
    """Two generated tasks of each template (its first and last change)."""
    return [
        make_task((template, change, "precise"), 3, index, pool)
        for index, template in enumerate(TEMPLATES)
        for change in (template.changes[0], template.changes[-1])
    ]


def verifier(family: RepoFamily | CodeFamily, pool: PoolSandbox, *, patch: bool = False) -> Verify:
    """One verification of a task's reference (or of its diff against the workspace)."""

    def run(task: Task) -> None:
        files: Files = task.solutions["reference"]
        if patch:
            files = {"fix.patch": make_patch(task.workspace, files).encode()}
        verdict = family.verify(task, files, pool)
        if verdict.status is not Status.PASS:
            raise BenchmarkError(f"{task.id}: {verdict.status.value}: {verdict.summary}")

    return run


def empty_job(pool: PoolSandbox) -> Verify:
    def run(task: Task) -> None:
        del task
        pool.run([pool.python, "-I", "-S", "-c", "pass"], limits=Limits())

    return run


def latencies(run: Verify, tasks: list[Task], n: int) -> list[float]:
    times = []
    for index in range(n):
        started = time.perf_counter()
        run(tasks[index % len(tasks)])
        times.append(time.perf_counter() - started)
    return times


def throughput(run: Verify, tasks: list[Task], n: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=THREADS) as threads:
        list(threads.map(lambda index: run(tasks[index % len(tasks)]), range(n)))
    return n / (time.perf_counter() - started)


def _cases(task: Task) -> int:
    return len(json.loads(task.hidden["cases.json"])["cases"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 verifications per figure")
    parser.add_argument("--n", type=int, default=400, help="verifications per figure")
    args = parser.parse_args()
    n = 40 if args.quick else args.n
    with PoolSandbox(max_workers=THREADS, trusted_code=harness_code()) as pool:
        repo = repo_tasks(pool)
        code = generate_code_tasks(5, 3, pool)
        rows = {
            "repo": (verifier(RepoFamily(), pool), repo),
            "repo, as a patch": (verifier(RepoFamily(), pool, patch=True), repo),
            "code": (verifier(CodeFamily(), pool), code),
            "empty job": (empty_job(pool), repo),
        }
        for run, tasks in rows.values():  # warm every worker and cache once
            throughput(run, tasks, THREADS)
        load = os.getloadavg()[0]
        print(f"{CPUS} CPUs, Python {platform.python_version()}, load {load:.1f}, n={n}")
        files = statistics.median(len(t.workspace) for t in repo)
        print(
            f"repo tasks: {len(repo)}, median {files:.0f} files, cases {min(map(_cases, repo))}"
            f"-{max(map(_cases, repo))}; code tasks: {len(code)}"
        )
        print(f"{'':18} {'p50 ms':>8} {'p99 ms':>8} {'verif/s':>8}")
        for name, (run, tasks) in rows.items():
            times = sorted(latencies(run, tasks, n))
            p50 = statistics.median(times) * 1000
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
            rate = throughput(run, tasks, n)
            print(f"{name:18} {p50:8.1f} {p99:8.1f} {rate:8.1f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
