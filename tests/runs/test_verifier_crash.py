"""A family whose ``verify`` or tool raises (a plugin's bug, a :class:`VerifierError`): the
verifier crashed, so the episode ends in error (infrastructure), retried and then kept apart with
what was raised, never passed or failed, and the run goes on."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from assay.episodes import EndReason
from assay.errors import VerifierError
from assay.families import family_of
from assay.families.base import ToolResult
from assay.families.code.tools import CodeTools
from assay.policies import parse_policy
from assay.runs import RunnerOptions
from assay.sandbox import PoolSandbox, Sandbox
from assay.store import Store
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.runs.conftest import assert_each_episode_kept_once, median_tasks, run_tasks

OPTIONS = RunnerOptions(max_sandboxes=2, max_requests=2, max_attempts=2, backoff_s=0.01)


@pytest.mark.parametrize(
    ("error", "detail"),
    [
        (
            VerifierError("the harness answered nothing"),
            "the family's verify raised VerifierError: the harness answered nothing",
        ),
        (ZeroDivisionError("division by zero"), "the family's verify raised ZeroDivisionError"),
    ],
)
def test_a_verify_that_raises_ends_its_episode_in_error_and_the_run_goes_on(
    tmp_path: Path,
    pool: PoolSandbox,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    detail: str,
) -> None:
    tasks = median_tasks(2)
    family = family_of(tasks[0])
    verify = family.verify
    crashed: list[str] = []

    def crashing(task: Task, solution: Mapping[str, Any], sandbox: Sandbox) -> Verdict:
        if task.id == "median-1":
            crashed.append(task.id)
            raise error
        return verify(task, solution, sandbox)  # type: ignore[arg-type]

    monkeypatch.setattr(family, "verify", crashing)
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, outcomes = run_tasks(
            store, "r", tasks, parse_policy("reference"), pool, k=1, options=OPTIONS
        )
        kept = {e.trajectory.task_id: e.trajectory for e in store.episodes("r")}
    assert (counts.done, counts.passed, counts.errors) == (2, 1, 1)
    assert len(crashed) == 2  # tried again, then kept
    assert [o.status for o in outcomes].count(None) == 1
    broken = kept["median-1"]
    assert broken.verdict.status is Status.ERROR
    assert broken.end is EndReason.INFRASTRUCTURE
    assert broken.end_detail.startswith(detail)
    assert "\n" not in broken.end_detail
    assert_each_episode_kept_once(db, "r", 2)


def test_a_tool_that_raises_ends_its_episode_in_error_and_the_run_goes_on(
    tmp_path: Path, pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = CodeTools.call
    once = threading.Lock()

    def crashing(
        self: CodeTools, name: str, arguments: Mapping[str, Any], sandbox: Sandbox
    ) -> ToolResult:
        if once.acquire(blocking=False):  # the run's first call, never released
            raise VerifierError("the tool's harness is gone")
        return call(self, name, arguments, sandbox)

    monkeypatch.setattr(CodeTools, "call", crashing)
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store, "r", median_tasks(2), parse_policy("reference"), pool, k=1, options=options
        )
        kept = {e.trajectory.task_id: e.trajectory for e in store.episodes("r")}
    assert (counts.done, counts.passed, counts.errors) == (2, 1, 1)
    [broken] = [t for t in kept.values() if t.verdict.status is not Status.PASS]
    assert broken.end is EndReason.INFRASTRUCTURE
    assert broken.verdict.status is Status.ERROR
    assert broken.end_detail.startswith("the family's tool ")
    assert "raised VerifierError: the tool's harness is gone" in broken.end_detail


def test_a_verify_that_returns_no_verdict_ends_its_episode_in_error(
    tmp_path: Path, pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = median_tasks(2)
    family = family_of(tasks[0])
    verify = family.verify

    def answerless(task: Task, solution: Mapping[str, Any], sandbox: Sandbox) -> Verdict:
        if task.id == "median-1":
            return {"status": "pass"}  # type: ignore[return-value]
        return verify(task, solution, sandbox)  # type: ignore[arg-type]

    monkeypatch.setattr(family, "verify", answerless)
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store, "r", tasks, parse_policy("reference"), pool, k=1, options=options
        )
        kept = {e.trajectory.task_id: e.trajectory for e in store.episodes("r")}
    assert (counts.done, counts.passed, counts.errors) == (2, 1, 1)
    broken = kept["median-1"]
    assert broken.end is EndReason.INFRASTRUCTURE
    assert broken.end_detail == "the family's verify returned a dict, not a Verdict"


@pytest.mark.parametrize("broken", ["tools", "schemas"])
def test_a_family_whose_tools_raise_ends_that_episode_in_error_and_the_run_goes_on(
    tmp_path: Path, pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    """A family's ``tools(task)`` or its toolset's ``schemas()`` that raises (a plugin's bug)
    stopped the whole run with a traceback: they were called before any episode existed to
    record an error on. The episode now ends in error before the policy is asked anything."""
    tasks = median_tasks(2)
    family = family_of(tasks[0])
    if broken == "tools":
        tools = family.tools

        def crashing_tools(task: Task) -> Any:
            if task.id == "median-1":
                raise KeyError("workspace")
            return tools(task)  # type: ignore[attr-defined]

        monkeypatch.setattr(family, "tools", crashing_tools)
    else:
        schemas = CodeTools.schemas
        once = threading.Lock()

        def crashing_schemas(self: CodeTools) -> list[dict[str, Any]]:
            if once.acquire(blocking=False):  # the run's first episode, never released
                raise KeyError("workspace")
            return schemas(self)

        monkeypatch.setattr(CodeTools, "schemas", crashing_schemas)
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store, "r", tasks, parse_policy("reference"), pool, k=1, options=options
        )
        kept = {e.trajectory.task_id: e.trajectory for e in store.episodes("r")}
    assert (counts.done, counts.passed, counts.errors) == (2, 1, 1)
    [failed] = [t for t in kept.values() if t.verdict.status is not Status.PASS]
    assert failed.end is EndReason.INFRASTRUCTURE
    assert failed.verdict.status is Status.ERROR
    assert failed.end_detail == "the family's tools raised KeyError: 'workspace'"
    assert failed.steps == ()  # the policy was asked nothing
