"""The audit's policy for Python's cyclic garbage collector (assay.audit.collector)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.audit import runner
from assay.audit.base import AuditContext, CheckOutcome
from assay.audit.runner import run_audit
from assay.sandbox.local import LocalSandbox
from assay.tasks import Task, TaskSet
from tests.conftest import make_median_task


class _Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


class LeavesCycles:
    """A check that leaves cyclic garbage behind, and notes what the collector did."""

    name = "cycles"

    def __init__(self) -> None:
        self.left: list[weakref.ref[_Cycle]] = []
        self.alive_at_start: list[int] = []
        self.thresholds: list[tuple[int, int, int]] = []
        self.frozen: list[int] = []

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        self.alive_at_start.append(sum(ref() is not None for ref in self.left))
        self.thresholds.append(gc.get_threshold())
        self.frozen.append(gc.get_freeze_count())
        self.left.append(weakref.ref(_Cycle()))
        return CheckOutcome()


@pytest.fixture
def windows_of_one(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(runner, "WINDOW", 1)
    yield
    assert gc.get_freeze_count() == 0


def _tasks(n: int) -> TaskSet:
    return TaskSet(root=Path("t"), tasks=tuple(make_median_task(f"t-{i}") for i in range(n)))


def test_a_windows_cyclic_garbage_is_collected_before_the_next_and_the_collector_restored(
    windows_of_one: None,
) -> None:
    before = gc.get_threshold()
    check = LeavesCycles()
    run_audit(_tasks(4), LocalSandbox(), checks=[check], workers=1)
    # each task is a window: what the earlier ones left was collected before it started
    assert check.alive_at_start == [0, 0, 0, 0]
    # no automatic full collection during the audit; the thresholds as they were after it
    assert all(t[:2] == before[:2] and t[2] > 1_000_000 for t in check.thresholds)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_an_audit_of_one_window_freezes_nothing_and_walks_no_older_object() -> None:
    check = LeavesCycles()
    run_audit(_tasks(3), LocalSandbox(), checks=[check], workers=1)
    assert check.frozen == [0, 0, 0]
    assert gc.get_freeze_count() == 0


def test_an_audit_leaves_the_collector_alone_where_the_process_keeps_frozen_objects(
    windows_of_one: None,
) -> None:
    before = gc.get_threshold()
    kept = [_Cycle() for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        check = LeavesCycles()
        run_audit(_tasks(3), LocalSandbox(), checks=[check], workers=1)
        assert check.thresholds == [before] * 3
        # nothing thawed, nothing more frozen (frozen objects may still die of their counts)
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
    assert kept


def test_the_collector_is_restored_when_an_audit_is_interrupted(windows_of_one: None) -> None:
    before = gc.get_threshold()

    class Interrupts(LeavesCycles):
        def run(self, task: Task, context: AuditContext) -> CheckOutcome:
            super().run(task, context)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_audit(_tasks(2), LocalSandbox(), checks=[Interrupts()], workers=1)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
