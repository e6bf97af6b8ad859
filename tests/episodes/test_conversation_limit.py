"""An endpoint that answers megabytes of tool calls a turn: the conversation is bounded, the
episode a fail, its trajectory small enough to keep."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from assay.episodes import Budget, EndReason
from assay.episodes.loop import MAX_CONVERSATION_CHARS
from assay.policies.openai_chat import MAX_TOOL_CALLS
from assay.runs import RunSpec, run_rollouts, start_run
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.tasks import Task
from assay.verdicts import Status
from tests.episodes.conftest import drive, model_policy
from tests.policies.server import ModelServer, Reply, call
from tests.runs.conftest import FAST

pytestmark = pytest.mark.filterwarnings(
    # aiohttp's note on a request body past a megabyte (the conversation resent each turn)
    "ignore:Sending a large body directly:ResourceWarning"
)

PATH_CHARS = 100_000
"""Each call's argument: a path no workspace takes, so each call is refused at once."""
TURN_CHARS = MAX_TOOL_CALLS * PATH_CHARS
"""About 6.4 million characters of tool calls a turn: the third turn passes the limit."""
FLOOD = Reply(tool_calls=(call("read_file", path="x" * PATH_CHARS),) * MAX_TOOL_CALLS)


def test_a_conversation_past_its_limit_ends_the_episode_as_a_fail(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(FLOOD)
    budget = Budget(max_turns=10, max_sandbox_cpu_s=None, max_wall_s=None)
    trajectory = drive(median_task, model_policy(model_server), pool, budget=budget)
    assert trajectory.verdict.status is Status.FAIL, trajectory.end_detail
    assert trajectory.end is EndReason.BUDGET
    assert "conversation length limit passed" in trajectory.end_detail
    turns = MAX_CONVERSATION_CHARS // TURN_CHARS + 1
    assert len(trajectory.steps) == turns == 3
    # the calls of the turns before ran (each refused); those of the turn past it did not
    assert [len(step.tools) for step in trajectory.steps] == [MAX_TOOL_CALLS] * (turns - 1) + [0]
    assert len(model_server.requests) == turns


def test_a_run_keeps_such_an_episode_and_finishes(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox, tmp_path: Path
) -> None:
    model_server.play(FLOOD)
    policy = model_policy(model_server)
    spec = RunSpec.of([median_task], root="tasks", policy=policy.spec, k=1, mode="tools")
    with Store(tmp_path / "assay.db") as store:
        start_run(store, "flood", spec)
        counts = run_rollouts(
            store,
            "flood",
            tasks={median_task.id: median_task},
            policy=policy,
            sandbox=pool,
            options=replace(FAST, budget=Budget(max_turns=10)),
        )
        [kept] = store.episodes("flood")
    assert (counts.done, counts.failed, counts.errors) == (1, 1, 0)
    assert kept.trajectory.end is EndReason.BUDGET
    assert len(kept.trajectory.steps) == 3
