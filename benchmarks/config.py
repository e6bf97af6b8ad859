"""The config family's verifier against the same work done directly, measured in one run.

For each task (the hand-written NetworkPolicy task of the tests, and generated RBAC, Deployment
and Service tasks, each with its reference):

- **sandboxed**: ``ConfigFamily().verify(task, reference, pool)``: the YAML of the cluster and
  the submission read by PyYAML in a pool sandbox job with the reader's limits, the records
  decoded as hostile text, every object validated against the Kubernetes schema, the meaning
  computed and judged in this process;
- **direct**: the same steps in this process with no sandbox: ``yaml.load_all`` with the same
  libyaml loader class, the same schema validation, the same meaning and judgment. No limits,
  no isolation: the floor for this work in Python.

Figures: median latency of one verification (one after another), verifications per second
with twice as many client threads as CPUs (the command line's default), and, for the direct
side, where the time goes (reading, schemas, meaning and judgment). Two sandbox jobs in the
reader's environment are timed on their own to show where the sandboxed side's time goes: an
empty one, and one that only imports PyYAML. Every verification must
pass, or the benchmark fails instead of printing a timing.

Run: ``.venv/bin/python benchmarks/config.py [--quick] [--n N]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from assay.families import harness_code
from assay.families.config import ConfigFamily
from assay.families.config.expectations import judge, readings
from assay.families.config.generator import draft
from assay.families.config.meaning import applied, meaning
from assay.families.config.schema import schema_problem
from assay.families.config.spec import config_spec
from assay.families.config.templates import TEMPLATES
from assay.sandbox import PACKAGES_DIR, PoolSandbox
from assay.tasks import Limits, Task
from assay.tasks.taskdir import load_task
from assay.verdicts import Status

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests/families/config/fixtures/netpol-only-api-reaches-db"
GENERATED = ("rbac-two-namespaces", "limits-deployment", "service-selects-stable-pods")
CPUS = os.cpu_count() or 1
THREADS = 2 * CPUS


class BenchmarkError(RuntimeError):
    """A verification did not pass, so its timing would mean nothing."""


def tasks() -> list[Task]:
    """The fixture task and one generated task of each kind in :data:`GENERATED`."""
    found = [load_task(FIXTURE)]
    by_id = {template.id: template for template in TEMPLATES}
    for index, name in enumerate(GENERATED):
        found.append(draft(by_id[name], random.Random(index), 0, index, style="precise"))
    return found


def sandboxed(pool: PoolSandbox) -> Callable[[Task], float]:
    """One verification through the family; returns the seconds spent in the sandbox."""
    family = ConfigFamily()

    def run(task: Task) -> float:
        verdict = family.verify(task, task.solutions["reference"], pool)
        if verdict.status is not Status.PASS:
            raise BenchmarkError(f"{task.id}: {verdict.status.value}: {verdict.summary}")
        return verdict.timings.sandbox_s

    return run


STAGES = ("read", "schema", "meaning")


def direct(stages: dict[str, float] | None = None) -> Callable[[Task], float]:
    """The same steps in this process; adds each step's seconds to ``stages`` when given."""

    def run(task: Task) -> float:
        spec = config_spec(task)
        started = time.perf_counter()
        cluster = _load(task.workspace[spec.cluster])
        submitted = [obj for data in task.solutions["reference"].values() for obj in _load(data)]
        read = time.perf_counter()
        for obj in submitted:
            if obj.get("kind") not in spec.kinds or schema_problem(obj, spec.kubernetes):
                raise BenchmarkError(f"{task.id}: the reference is refused")
        checked = time.perf_counter()
        meaning(cluster)
        found = meaning(applied(cluster, submitted))
        criteria = judge(readings(task)[""], found, task.id)
        if not all(c.passed for c in criteria):
            raise BenchmarkError(f"{task.id}: the reference fails when judged directly")
        done = time.perf_counter()
        if stages is not None:
            for name, seconds in zip(
                STAGES, (read - started, checked - read, done - checked), strict=True
            ):
                stages[name] += seconds
        return 0.0

    return run


def _load(data: bytes) -> list[dict[str, object]]:
    loader = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    return [doc for doc in yaml.load_all(data.decode(), Loader=loader) if doc is not None]


def latency(verify: Callable[[Task], float], work: list[Task], count: int) -> list[float]:
    """Seconds of each of ``count`` verifications one after another."""
    times = []
    for index in range(count):
        started = time.perf_counter()
        verify(work[index % len(work)])
        times.append(time.perf_counter() - started)
    return times


def throughput(verify: Callable[[Task], float], work: list[Task], count: int) -> float:
    """Verifications per second with :data:`THREADS` client threads."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(lambda index: verify(work[index % len(work)]), range(count)))
    return count / (time.perf_counter() - started)


def job(pool: PoolSandbox, code: str) -> Callable[[Task], float]:
    """A sandbox job of ``code`` in the YAML reader's environment (the task is not used)."""

    def run(_task: Task) -> float:
        result = pool.run(
            [pool.python, "-I", "-S", "-c", code], limits=Limits(), packages=("pyyaml",)
        )
        if result.exit_code != 0:
            raise BenchmarkError(f"a job failed: {result.stderr[-300:]}")
        return result.wall_s

    return run


def main() -> int:
    """Run both sides and print them side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 verifications per figure")
    parser.add_argument("--n", type=int, default=400, help="verifications per figure")
    args = parser.parse_args()
    count = 40 if args.quick else args.n
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(
        f"{CPUS} CPUs, Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}, "
        f"{count} verifications per figure, {THREADS} client threads"
    )
    work = tasks()
    print("tasks: " + ", ".join(task.id for task in work))
    rows = []
    with PoolSandbox(max_workers=THREADS, trusted_code=harness_code()) as pool:
        sides = {"sandboxed": sandboxed(pool), "direct": direct()}
        for verify in sides.values():  # warm-up: schemas loaded, workers started
            for task in work * 2:
                verify(task)
        for name, verify in sides.items():
            times = latency(verify, work, count)
            rate = throughput(verify, work, count)
            rows.append((name, statistics.median(times) * 1000, _p99(times) * 1000, rate))
        for name, code in (
            ("empty job", "pass"),
            ("import yaml", f"import sys; sys.path.append({PACKAGES_DIR!r}); import yaml"),
        ):
            times = latency(job(pool, code), work, count)
            rows.append((name, statistics.median(times) * 1000, _p99(times) * 1000, 0.0))
        stages = dict.fromkeys(STAGES, 0.0)
        latency(direct(stages), work, count)
        in_sandbox = sum(sides["sandboxed"](task) for task in work) / len(work)
    print(f"\n{'':12}{'p50 ms':>10}{'p99 ms':>10}{'verif/s':>10}")
    for name, p50, p99, rate in rows:
        shown = f"{rate:10.1f}" if rate else f"{'-':>10}"
        print(f"{name:12}{p50:10.2f}{p99:10.2f}{shown}")
    print(f"\nsandboxed / direct, verif/s: {rows[0][3] / rows[1][3]:.2f}x")
    shares = ", ".join(
        f"{name} {seconds / count * 1000:.2f} ms" for name, seconds in stages.items()
    )
    print(f"direct, per verification: {shares}")
    print(f"sandboxed, time in the sandbox job per verification: {in_sandbox * 1000:.2f} ms")
    return 0


def _p99(times: list[float]) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[98]


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchmarkError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        sys.exit(1)
