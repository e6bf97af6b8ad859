"""The audit's speed: generated code tasks audited with every check, next to the sandbox's raw
throughput measured in the same run.

Generates N code tasks (default 1,000; ``--quick``: 100) once, then:

- **raw**: the pool's verifications per second on the same tasks' references (``CodeFamily.verify``
  from as many threads as the pool has workers), the ceiling any audit over this pool has;
- **audit**: ``run_audit`` with the default checks (lint, reference, known-bad, empty, flaky,
  red-team, mutation, sensitivity, headroom, checker-crash, judge red-team, duplicates,
  contamination), counting the verifications it asks for.

Prints tasks per minute, verifications per task, and the share of the raw throughput the audit
reaches. Target: at least 300 tasks per minute on 2 cores.

Run: ``.venv/bin/python benchmarks/audit.py [--quick] [--tasks N]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from assay.audit import Decision, run_audit
from assay.families import harness_code
from assay.families.code.family import CodeFamily
from assay.families.code.generator import generate_code_tasks
from assay.sandbox import PoolSandbox
from assay.tasks import Task, TaskSet
from assay.verdicts import Status, Verdict

CPUS = os.cpu_count() or 1
WORKERS = 2 * CPUS
TARGET_TASKS_PER_MINUTE = 300.0
SEED = 2027


class Counting(PoolSandbox):
    """The pool, counting the jobs it runs."""

    def __init__(self, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.jobs = 0
        self._count_lock = threading.Lock()

    def run(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        with self._count_lock:
            self.jobs += 1
        return super().run(*args, **kwargs)  # type: ignore[arg-type]


def raw(tasks: list[Task], pool: PoolSandbox) -> tuple[float, int]:
    """Seconds to verify every task's reference twice, and the verifications made."""
    family = CodeFamily()
    work = [task for task in tasks for _ in range(2)]

    def verify(task: Task) -> Verdict:
        verdict = family.verify(task, task.solutions["reference"], pool)
        if verdict.status is not Status.PASS:
            raise SystemExit(f"{task.id}: the reference did not pass ({verdict.summary})")
        return verdict

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WORKERS) as threads:
        list(threads.map(verify, work))
    return time.perf_counter() - started, len(work)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="100 tasks instead of 1,000.")
    parser.add_argument("--tasks", type=int, help="How many tasks (overrides --quick).")
    options = parser.parse_args(argv)
    count = options.tasks or (100 if options.quick else 1000)
    print(f"$ python benchmarks/audit.py {' '.join(argv or sys.argv[1:])}".rstrip())
    print(
        f"{CPUS} CPUs, Python {platform.python_version()}, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    pool = Counting(max_workers=WORKERS, trusted_code=harness_code())
    with pool:
        started = time.perf_counter()
        tasks = generate_code_tasks(count, SEED, pool, workers=WORKERS)
        print(f"generated {count} tasks in {time.perf_counter() - started:.1f} s (not timed below)")
        raw_s, raw_n = raw(tasks, pool)
        pool.jobs = 0
        started = time.perf_counter()
        report = run_audit(
            TaskSet(root=Path("generated"), tasks=tuple(tasks)), pool, workers=WORKERS
        )
        audit_s = time.perf_counter() - started
        jobs = pool.jobs
    accepted = report.count(Decision.ACCEPTED)
    raw_rate = raw_n / raw_s
    per_task = jobs / count
    rate = count / audit_s * 60
    ceiling = raw_rate / per_task * 60
    print()
    print(f"{'':40}{'per s':>10}{'tasks/min':>12}")
    print(f"{'raw verifications (references)':40}{raw_rate:10.1f}{'':>12}")
    print(f"{'ceiling at ' + f'{per_task:.1f} jobs a task':40}{'':>10}{ceiling:12.1f}")
    print(f"{'audit, every check':40}{jobs / audit_s:10.1f}{rate:12.1f}")
    share = rate / ceiling
    print(f"  {count} tasks in {audit_s:.1f} s, {accepted} accepted; {share:.0%} of the ceiling")
    met = rate >= TARGET_TASKS_PER_MINUTE
    verdict = "met" if met else "NOT met"
    print(f"  target at least {TARGET_TASKS_PER_MINUTE:.0f} tasks/min: {verdict}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
