"""Workflow verification, side by side with running the same script against in-process moto.

(a) **assay**: ``WorkflowFamily.verify`` of a generated invoice-routing task's reference: a
fresh emulator process forked from the warm parent, seeded through its API, the script run in a
bubblewrap sandbox whose only way out is the emulator's socket, the state read back through the
API, the script run a second time (the rerun check) and the state read again, then judged.

(b) **in-process**: the same steps with no isolation and no emulator process: moto's
``mock_aws`` in this process, the script ``exec``'d here, the same seeding, reading and judging
code. This is how a test suite would run such a script; the script can reach the verifier's
memory, files and network, so it is a speed baseline, not an alternative.

For each: verifications one after another (median and 95th percentile) and throughput with as
many threads as CPUs (assay only: moto's in-process backends are global, so the baseline cannot
run two at once). Also: the start of the warm parent, and of one emulator (fork to accepting).

Run: ``.venv/bin/python benchmarks/workflow.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
from moto import mock_aws

from assay.families.workflow import WorkflowFamily
from assay.families.workflow.cloud import read_state, seed
from assay.families.workflow.config import expected_state, initial_state, workflow_config
from assay.families.workflow.emulator import EmulatorFactory
from assay.families.workflow.generator import draft_task
from assay.families.workflow.judge import idempotence, judge_state
from assay.families.workflow.templates import TEMPLATES
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status


def the_task() -> Task:
    template = next(t for t in TEMPLATES if t.id == "invoice-routing")
    return draft_task(template, random.Random("benchmark"), 0, 0)


class InProcess:
    """Clients of moto's in-process backends, shaped like an emulator for seed and read."""

    def __init__(self) -> None:
        self._clients: dict[str, Any] = {}

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = boto3.client(service, region_name="us-east-1")
        return self._clients[service]


def in_process(task: Task) -> bool:
    """One verification with everything in this process; True when it passes."""
    config = workflow_config(task)
    initial, expected = initial_state(task, config), expected_state(task, config)
    script = compile(task.solutions["reference"]["solution.py"], "solution.py", "exec")
    with mock_aws():
        cloud = InProcess()
        seed(cloud, initial)  # type: ignore[arg-type]
        exec(script, {"__name__": "__main__"})  # noqa: S102 - the baseline runs it unisolated
        first = read_state(cloud)  # type: ignore[arg-type]
        exec(script, {"__name__": "__main__"})  # noqa: S102
        second = read_state(cloud)  # type: ignore[arg-type]
    criteria = [*judge_state(initial, expected, first), idempotence(first, second, required=True)]
    return all(c.passed for c in criteria)


def assay_verify(family: WorkflowFamily, task: Task) -> bool:
    verdict = family.verify(task, task.solutions["reference"], LocalSandbox())
    return verdict.status is Status.PASS


def timed(run: Callable[[], bool], count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        if not run():
            raise SystemExit("a reference verification did not pass: the figures would lie")
        times.append(time.perf_counter() - started)
    return times


def throughput(run: Callable[[], bool], count: int, threads: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(lambda _: run(), range(count)))
    if not all(results):
        raise SystemExit("a reference verification did not pass under load")
    return count / (time.perf_counter() - started)


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "median_s": statistics.median(ordered),
        "p95_s": p95,
        "per_s": 1 / statistics.median(ordered),
    }


def emulator_starts(count: int) -> dict[str, float]:
    factory = EmulatorFactory()
    started = time.perf_counter()
    factory.start().close()
    parent = time.perf_counter() - started
    forks, first_answers = [], []
    for _ in range(count):
        started = time.perf_counter()
        with factory.start() as emulator:
            forks.append(emulator.start_s)
            emulator.client("s3").list_buckets()
            first_answers.append(time.perf_counter() - started)
    factory.close()
    return {
        "warm_parent_s": parent,
        "fork_to_listening_median_ms": 1000 * statistics.median(forks),
        "start_to_first_answer_median_ms": 1000 * statistics.median(first_answers),
        "start_to_first_answer_max_ms": 1000 * max(first_answers),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    rounds = 3 if args.quick else 10
    cpus = os.cpu_count() or 1
    task = the_task()
    family = WorkflowFamily()
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")  # noqa: S106
    os.environ["AWS_DEFAULT_REGION"] = "us-east-1"
    assay_verify(family, task)  # warm: the parent, the sandbox's filter, the SDK's models
    in_process(task)
    report = {
        "machine": {"cpus": cpus, "python": platform.python_version(), "load": os.getloadavg()},
        "task": task.id,
        "emulator": emulator_starts(rounds * 3),
        "assay_sequential": summary(timed(lambda: assay_verify(family, task), rounds)),
        "in_process_sequential": summary(timed(lambda: in_process(task), rounds)),
        "assay_parallel_per_s": throughput(lambda: assay_verify(family, task), rounds * 2, cpus),
    }
    report["ratio_sequential"] = (
        report["assay_sequential"]["median_s"] / report["in_process_sequential"]["median_s"]
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
