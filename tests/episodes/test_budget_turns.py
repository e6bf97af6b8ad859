"""A turn that spends a budget cannot submit or answer after it."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.episodes import Budget, EndReason, Trajectory, run_episode
from assay.policies import parse_policy
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.conftest import REFERENCE
from tests.episodes.conftest import drive, model_policy
from tests.policies.server import ModelServer, Reply, call

ANSWER = f"```python\n{REFERENCE.decode()}```\n"
WRITE = call("write_file", path="solution.py", content=REFERENCE.decode())


@pytest.mark.parametrize(
    ("mode", "reply"),
    [
        ("tools", Reply(tool_calls=(WRITE, call("submit")), completion_tokens=50_000)),
        ("tools", Reply(content=ANSWER, completion_tokens=50_000)),
        ("single", Reply(content=ANSWER, completion_tokens=50_000)),
    ],
    ids=["submit", "fenced-answer", "single-turn"],
)
def test_the_turn_that_spends_the_token_budget_does_not_count(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox, mode: str, reply: Reply
) -> None:
    """50,000 tokens in one turn under a budget of 1,000: the reference it holds wins nothing."""
    model_server.play(reply)
    budget = Budget(max_tokens=1000)
    trajectory = drive(median_task, model_policy(model_server), pool, mode=mode, budget=budget)
    assert trajectory.verdict.status is Status.FAIL
    assert trajectory.end is EndReason.BUDGET
    assert trajectory.end_detail == "token budget spent (50100 of 1000 tokens)"
    assert [step.tools for step in trajectory.steps] == [()]  # kept, and no call was run


def test_a_turn_within_the_token_budget_still_submits(
    model_server: ModelServer, median_task: Task, pool: PoolSandbox
) -> None:
    model_server.play(Reply(tool_calls=(WRITE, call("submit")), completion_tokens=800))
    trajectory = drive(
        median_task, model_policy(model_server), pool, budget=Budget(max_tokens=1000)
    )
    assert (trajectory.verdict.status, trajectory.end) == (Status.PASS, EndReason.SUBMITTED)


def test_waiting_for_a_free_sandbox_thread_is_not_spent_from_the_wall_time_budget(
    median_task: Task, pool: PoolSandbox
) -> None:
    """The only thread is busy for 1.5 s when the reference's calls come: under a wall-time
    budget of 1 s, they run once it is free, as they would in a run with room for them."""

    async def crowded() -> Trajectory:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(1))
        busy = asyncio.create_task(asyncio.to_thread(time.sleep, 1.5))
        await asyncio.sleep(0.05)  # the busy job holds the thread
        trajectory = await run_episode(
            median_task, parse_policy("reference"), pool, budget=Budget(max_wall_s=1.0)
        )
        await busy
        return trajectory

    trajectory = asyncio.run(crowded())
    assert (trajectory.end, trajectory.verdict.status) == (EndReason.SUBMITTED, Status.PASS)
    assert trajectory.cost.wall_s >= 1.4  # the wall time itself is kept as it was
