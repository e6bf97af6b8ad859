"""A task set's own solutions verified together, several tasks a batch: the checks find their
verdicts given, and every verdict from a batch that would be a finding is verified again alone
(a reference's fail, a known-bad's or the empty submission's pass)."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from assay.audit import Decision, run_audit, select_checks
from assay.sandbox import PoolSandbox
from assay.sandbox.batch import BATCH
from assay.sandbox.protocol import ExecResult
from assay.tasks import Task, TaskSet
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task

pytestmark = pytest.mark.sandbox


class Jobs:
    """The pool, noting each job: ``("batch", tasks' solutions it ran)`` or ``("alone", the
    solution)``."""

    def __init__(self, pool: PoolSandbox) -> None:
        self.pool = pool
        self.jobs: list[tuple[str, list[bytes]]] = []
        self._lock = threading.Lock()

    def run(self, command: Sequence[str], **options: Any) -> ExecResult:
        if BATCH in command:
            runs = json.loads(options["stdin"])["runs"]
            job = ("batch", [run["files"]["solution.py"] for run in runs])
        else:
            job = ("alone", [options["files"].get("solution.py", b"")])
        with self._lock:
            self.jobs.append(job)
        return self.pool.run(command, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)


def _set(*tasks: Task) -> TaskSet:
    return TaskSet(root=Path("set"), tasks=tasks)


def test_the_solutions_of_several_tasks_share_batches_and_the_checks_run_no_job_of_their_own(
    pool: PoolSandbox,
) -> None:
    tasks = [make_median_task(f"median-{i}") for i in range(4)]
    jobs = Jobs(pool)
    checks = select_checks("reference,known-bad,empty")
    report = run_audit(_set(*tasks), jobs, checks=checks, workers=2)  # type: ignore[arg-type]
    assert [t.decision for t in report.tasks] == [Decision.ACCEPTED] * 4
    assert {kind for kind, _ in jobs.jobs} == {"batch"}  # nothing alone: no finding to confirm
    # 12 solutions (a reference, a known-bad and the empty one a task) in 4 batches of 3, so
    # that each of the 2 threads has two: each batch holds solutions of more than one task.
    assert sorted(len(runs) for _, runs in jobs.jobs) == [3, 3, 3, 3]
    assert all(len(set(runs)) > 1 for _, runs in jobs.jobs)
    for audit in report.tasks:
        assert {s.solution: s.status.value for s in audit.solutions} == {
            "reference": "pass",
            "bad-unsorted": "fail",
            "empty": "fail",
        }


def test_what_would_be_a_finding_is_verified_again_alone_and_still_found(
    pool: PoolSandbox,
) -> None:
    wrong = BAD_NO_SORT + b"# the broken task's reference\n"
    right = REFERENCE + b"# the blind task's known-bad\n"
    broken = make_median_task("broken")  # its reference is wrong
    broken = broken.model_copy(
        update={"solutions": {**broken.solutions, "reference": {"solution.py": wrong}}}
    )
    blind = make_median_task("blind")  # its known-bad is right
    blind = blind.model_copy(
        update={"solutions": {**blind.solutions, "bad-unsorted": {"solution.py": right}}}
    )
    jobs = Jobs(pool)
    report = run_audit(
        _set(broken, blind, make_median_task("sound")),
        jobs,  # type: ignore[arg-type]
        checks=select_checks("reference,known-bad"),
        workers=1,
    )
    by_id = {t.task_id: t for t in report.tasks}
    assert by_id["sound"].decision is Decision.ACCEPTED
    assert by_id["broken"].decision is Decision.REJECTED
    assert by_id["blind"].decision is Decision.REJECTED
    assert any(f.check == "reference" for f in by_id["broken"].findings)
    assert any(f.check == "known-bad" for f in by_id["blind"].findings)
    alone = sorted(runs[0] for kind, runs in jobs.jobs if kind == "alone")
    # 6 solutions in 2 batches of 3; broken's reference failed in one, blind's known-bad passed
    # in one: each verified once more alone, and nothing else
    assert sorted(len(runs) for kind, runs in jobs.jobs if kind == "batch") == [3, 3]
    assert alone == sorted([wrong, right])


def test_the_flaky_checks_varied_runs_share_batches_across_tasks_and_still_find_a_change(
    pool: PoolSandbox,
) -> None:
    """With the flaky check, the window also verifies each task's references and known-bad
    solutions under each of the check's conditions, tasks mixed in batches; the check then
    runs no job of its own, and a reference right only in one time zone is still found."""
    clocked = b"import time\nOFF = time.localtime().tm_gmtoff != 0\n" + REFERENCE.replace(
        b"def median(values):", b"def median(values):\n    if OFF:\n        return 0\n", 1
    )
    zoned = make_median_task("zoned")
    zoned = zoned.model_copy(
        update={"solutions": {**zoned.solutions, "reference": {"solution.py": clocked}}}
    )
    steady = [_distinct(make_median_task(f"steady-{i}"), i) for i in range(3)]
    jobs = Jobs(pool)
    report = run_audit(
        _set(zoned, *steady),
        jobs,  # type: ignore[arg-type]
        checks=select_checks("reference,known-bad,flaky"),
        workers=2,
    )
    by_id = {t.task_id: t for t in report.tasks}
    assert [by_id[t.id].decision for t in steady] == [Decision.ACCEPTED] * 3
    assert by_id["zoned"].decision is Decision.QUARANTINED
    (finding,) = [f for f in by_id["zoned"].findings if f.check == "flaky"]
    assert finding.message.startswith("reference sometimes fails")
    assert {kind for kind, _ in jobs.jobs} == {"batch"}
    # 8 solutions as they are, and 16 varied (each under 2 conditions): 24 runs in batches of
    # at most 6 (two a thread), a batch of one set of conditions each (8 runs: 6 and 2); the
    # batches of 6 hold solutions of three tasks
    batches = [runs for _, runs in jobs.jobs]
    assert sorted(map(len, batches)) == [2, 2, 2, 6, 6, 6]
    for runs in batches:
        owners = {_owner(base64.b64decode(run)) for run in runs}
        assert len(owners) == len(runs) // 2


def _owner(solution: bytes) -> str:
    """Which task of the flaky test a solution is from: a steady one's tag, else zoned's."""
    tagged = solution.rsplit(b"# task ", 1)
    return tagged[1].decode() if len(tagged) == 2 else "zoned"


def _distinct(task: Task, mark: int) -> Task:
    """``task`` with its solutions made its own (runs of the very same job are shared)."""
    tag = f"# task {mark}\n".encode()
    solutions = {
        name: {path: data + tag for path, data in files.items()}
        for name, files in task.solutions.items()
    }
    return task.model_copy(update={"solutions": solutions})
