"""The headroom check: a reference that needs most of a limit is a warning naming the limit."""

from __future__ import annotations

import pytest

from assay.audit import HeadroomCheck, SensitivityCheck
from assay.audit.base import AuditContext
from assay.audit.runner import default_checks
from assay.families.code import CodeFamily
from assay.findings import Finding, Severity
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Limits, Task
from assay.verdicts import Status
from tests.conftest import REFERENCE, make_median_task
from tests.sandbox.test_batch import Counting

pytestmark = pytest.mark.sandbox


def with_reference(source: bytes, limits: Limits) -> Task:
    task = make_median_task()
    spec = task.spec.model_copy(update={"limits": limits})
    solutions = {**task.solutions, "reference": {"solution.py": source}}
    return task.model_copy(update={"spec": spec, "solutions": solutions})


def run_check(task: Task, sandbox: Sandbox) -> list[Finding]:
    return HeadroomCheck().run(task, AuditContext(family=CodeFamily(), sandbox=sandbox)).findings


def test_it_is_a_default_check_and_a_quick_reference_has_room(pool: PoolSandbox) -> None:
    assert "headroom" in [check.name for check in default_checks()]
    assert run_check(make_median_task(), pool) == []


def test_a_reference_that_sleeps_most_of_its_timeout_is_a_time_warning(pool: PoolSandbox) -> None:
    slow = b"import time\ntime.sleep(1.2)\n" + REFERENCE
    findings = run_check(with_reference(slow, Limits(timeout_s=3, cpu_s=10)), pool)
    assert len(findings) == 1
    assert findings[0].severity is Severity.WARNING
    assert "of the task's time limit" in findings[0].message
    assert "time: " in findings[0].evidence
    assert "of 3s" in findings[0].evidence
    # the same reference under a roomy limit is fine
    assert run_check(with_reference(slow, Limits(timeout_s=30, cpu_s=10)), pool) == []


def test_a_reference_that_burns_cpu_is_a_cpu_warning(pool: PoolSandbox) -> None:
    busy = (
        b"import time\n"
        b"end = time.process_time() + 0.6\n"
        b"while time.process_time() < end:\n"
        b"    pass\n"
    )
    findings = run_check(with_reference(busy + REFERENCE, Limits(timeout_s=30, cpu_s=1.5)), pool)
    assert len(findings) == 1
    assert "CPU" in findings[0].message
    assert "CPU: " in findings[0].evidence


def test_a_reference_that_fills_its_memory_is_a_memory_warning(pool: PoolSandbox) -> None:
    hungry = b"BLOCK = bytearray(120 * 1024 * 1024)\n" + REFERENCE
    task = with_reference(hungry, Limits(timeout_s=30, memory_mb=256))
    verdict = CodeFamily().verify(task, task.solutions["reference"], pool)
    assert verdict.timings.peak_memory_mb is not None
    assert verdict.timings.peak_memory_mb >= 120
    findings = run_check(task, pool)
    assert len(findings) == 1
    assert "memory limit" in findings[0].message
    assert "MiB" in findings[0].evidence


def test_nothing_is_said_about_a_reference_that_fails(pool: PoolSandbox) -> None:
    broken = b"import time\ntime.sleep(2)\ndef median(values):\n    return 0\n"
    assert run_check(with_reference(broken, Limits(timeout_s=3)), pool) == []


def test_headroom_takes_the_fresh_verdict_the_sensitivity_probes_ran(pool: PoolSandbox) -> None:
    """The sensitivity probes of a code task run what the task as it is runs, so their job also
    gives a fresh verdict on the reference, which the headroom check takes as its second figure
    instead of a job of its own; once: a later fresh verification runs again."""
    jobs = Counting(pool)
    context = AuditContext(family=CodeFamily(), sandbox=jobs)  # type: ignore[arg-type]
    task = make_median_task()
    reference = task.references()["reference"]
    first = context.verify(task, reference)
    assert jobs.jobs == 1
    assert SensitivityCheck().run(task, context).findings == []
    assert jobs.jobs == 2  # every probe and the fresh verdict: one job
    spare = context._spare[id(task), tuple(sorted(reference.items()))][1]
    assert spare is not first
    assert spare.status is Status.PASS
    assert HeadroomCheck().run(task, context).findings == []
    assert jobs.jobs == 2  # headroom took it
    assert context.verify(task, reference, fresh=True) is not spare
    assert jobs.jobs == 3
    # Without the probes before it, headroom verifies afresh itself.
    alone = AuditContext(family=CodeFamily(), sandbox=jobs)  # type: ignore[arg-type]
    assert HeadroomCheck().run(task, alone).findings == []
    assert jobs.jobs == 5


def test_a_further_reference_that_needs_most_of_its_limit_is_a_warning_too(
    pool: PoolSandbox,
) -> None:
    """Every reference is a right answer the task must leave room for, not only the first: a
    ``reference-<label>`` that burns most of the CPU limit fails on a busy machine the same."""
    busy = (
        b"import time\n"
        b"end = time.process_time() + 0.6\n"
        b"while time.process_time() < end:\n"
        b"    pass\n"
    )
    task = with_reference(REFERENCE, Limits(timeout_s=30, cpu_s=1.5))
    solutions = {**task.solutions, "reference-slow": {"solution.py": busy + REFERENCE}}
    task = task.model_copy(update={"solutions": solutions})
    findings = run_check(task, pool)
    assert len(findings) == 1
    assert findings[0].message.startswith("reference-slow uses more than 1/3")
    assert "CPU: " in findings[0].evidence
