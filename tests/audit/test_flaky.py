"""The flaky check: a solution whose verdict changes with the hash seed, the time zone or the
locale (or the order of its cases) is a finding that quarantines the task, in the families that
run their jobs in the lent sandbox and in workflow, which runs them in its own; steady verdicts
say nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.audit import FlakyCheck, run_audit, select_checks
from assay.audit.base import AuditContext
from assay.audit.flaky import CONDITIONS, WithEnvironment
from assay.audit.runner import default_checks
from assay.families.code import CodeFamily
from assay.families.code.casefile import cases_json, hidden_cases
from assay.families.workflow import WorkflowFamily
from assay.findings import Decision, Finding, Severity
from assay.sandbox import PoolSandbox
from assay.tasks import Task, TaskSet, save_task
from assay.verdicts import Status
from tests.conftest import REFERENCE, make_median_task
from tests.families.workflow.tasks import router_task

pytestmark = pytest.mark.sandbox

# Right only where the clock's zone is UTC: the sandbox's own, and the first condition's.
CLOCK = b"import time\nOFF = time.localtime().tm_gmtoff != 0\n"
WRONG = b"def median(values):\n    return 0\n"


def with_solutions(**solutions: bytes) -> Task:
    task = make_median_task()
    return task.model_copy(
        update={
            "solutions": {
                name.replace("_", "-"): {"solution.py": source}
                for name, source in solutions.items()
            }
        }
    )


def run_check(task: Task, pool: PoolSandbox) -> list[Finding]:
    return FlakyCheck().run(task, AuditContext(family=CodeFamily(), sandbox=pool)).findings


def test_it_is_a_default_check_and_steady_verdicts_say_nothing(pool: PoolSandbox) -> None:
    assert "flaky" in [check.name for check in default_checks()]
    assert run_check(make_median_task(), pool) == []


def hash_under(seed: str, text: str) -> int:
    """``hash(text)`` in an interpreter started with ``PYTHONHASHSEED=seed``."""
    script = f"print(hash({text!r}))"
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, check=True)
    return int(done.stdout)


def test_the_conditions_reach_the_command(pool: PoolSandbox) -> None:
    script = (
        "import os, sys, time; print(os.environ['TZ'], os.environ['PYTHONHASHSEED'], "
        "time.localtime().tm_gmtoff, hash('assay'), sys.flags.no_user_site, sys.flags.safe_path)"
    )
    for env in CONDITIONS:
        sandbox = WithEnvironment(pool, env)
        # the shape of every harness command: isolated mode, which alone would ignore the seed
        result = sandbox.run([sandbox.python, "-I", "-S", "-c", script])
        tz, seed, offset, hashed, *flags = result.stdout.split()
        assert (tz, seed) == (env["TZ"], env["PYTHONHASHSEED"])
        assert (int(offset) == 0) == (env["TZ"] == "UTC")
        assert int(hashed) == hash_under(env["PYTHONHASHSEED"], "assay")
        assert flags == ["1", "True"]  # still no user site and no directory on sys.path


def test_a_reference_that_depends_on_the_hash_seed_is_found(pool: PoolSandbox) -> None:
    # Right only under the first condition's seed: set iteration order stands for any hash order.
    lucky = hash_under(CONDITIONS[0]["PYTHONHASHSEED"], "assay")
    seeded = f"OFF = hash('assay') != {lucky}\n".encode() + REFERENCE.replace(
        b"def median(values):", b"def median(values):\n    if OFF:\n        return 0\n", 1
    )
    findings = run_check(with_solutions(reference=seeded, bad_wrong=WRONG), pool)
    assert [f.message.split(":")[0] for f in findings] == ["reference sometimes fails"]
    lines = findings[0].evidence.splitlines()
    assert any(line.startswith("pass ") and "PYTHONHASHSEED=2" in line for line in lines)
    assert any(line.startswith("fail ") and "PYTHONHASHSEED=3" in line for line in lines)


def test_a_workflow_script_that_depends_on_the_time_zone_is_found(pool: PoolSandbox) -> None:
    # workflow scripts run in the family's own sandbox, not the one lent: the conditions follow
    task = router_task()
    reference = task.solutions["reference"]["solution.py"]
    clocked = b"import time\nif time.localtime().tm_gmtoff:\n    raise SystemExit(1)\n" + reference
    solutions = {
        "reference": {"solution.py": clocked},
        "bad-no-move": task.solutions["bad-no-move"],
    }
    task = task.model_copy(update={"solutions": solutions})
    context = AuditContext(family=WorkflowFamily(), sandbox=pool)
    findings = FlakyCheck().run(task, context).findings
    assert [f.message.split(":")[0] for f in findings] == ["reference sometimes fails"]
    lines = findings[0].evidence.splitlines()
    assert lines[0].startswith("pass  as usual")
    assert any(line.startswith("fail ") and "TZ=America/Adak" in line for line in lines)


def test_a_reference_that_depends_on_the_time_zone_is_quarantined(
    pool: PoolSandbox, tmp_path: Path
) -> None:
    clocked = CLOCK + REFERENCE.replace(
        b"def median(values):", b"def median(values):\n    if OFF:\n        return 0\n", 1
    )
    task = with_solutions(reference=clocked, bad_wrong=WRONG)
    findings = run_check(task, pool)
    assert len(findings) == 1
    finding = findings[0]
    assert (finding.severity, finding.review) == (Severity.WARNING, True)
    assert finding.message.startswith("reference sometimes fails")
    lines = finding.evidence.splitlines()
    assert lines[0].startswith("pass  as usual")
    assert any(line.startswith("fail ") and "TZ=Pacific/Kiritimati" in line for line in lines)
    save_task(task, tmp_path)
    report = run_audit(TaskSet.load(tmp_path), pool, checks=select_checks("flaky"))
    assert report.tasks[0].decision is Decision.QUARANTINED


def test_a_known_bad_that_passes_in_some_zones_is_found(pool: PoolSandbox) -> None:
    lucky = CLOCK + REFERENCE.replace(
        b"def median(values):", b"def median(values):\n    if not OFF:\n        return 0\n", 1
    )
    findings = run_check(with_solutions(reference=REFERENCE, bad_lucky=lucky), pool)
    assert [f.message.split(":")[0] for f in findings] == ["bad-lucky sometimes passes"]


# Right only while the cases come in the task's own order (ascending here): it remembers the
# previous call, as a solution with a module-level cache or a mutable default can.
ORDERED = (
    REFERENCE.replace(b"def median(values):", b"def right(values):", 1)
    + b"""
_LAST = [0]
def median(values):
    last, _LAST[0] = _LAST[0], len(values)
    return 0 if last > len(values) else right(values)
"""
)


def test_a_reference_that_is_right_only_in_the_cases_order_is_found(pool: PoolSandbox) -> None:
    task = make_median_task()
    cases = CodeFamily().reordered(task, 0).hidden["cases.json"]
    assert cases == task.hidden["cases.json"]
    sizes = [len(case.args[0]) for case in hidden_cases(task)]
    ascending = with_solutions(reference=ORDERED, bad_wrong=WRONG)
    if sizes != sorted(sizes):  # make the task's own order the one the reference needs
        ordered = sorted(hidden_cases(task), key=lambda case: len(case.args[0]))
        hidden = {**task.hidden, "cases.json": cases_json(ordered)}
        ascending = ascending.model_copy(update={"hidden": hidden})
    assert CodeFamily().verify(ascending, {"solution.py": ORDERED}, pool).status is Status.PASS
    findings = run_check(ascending, pool)
    assert [f.message.split(":")[0] for f in findings] == ["reference sometimes fails"]
    evidence = findings[0].evidence
    assert "cases reversed" in evidence
    assert any(line.startswith("fail ") for line in evidence.splitlines())
