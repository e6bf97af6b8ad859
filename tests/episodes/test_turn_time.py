"""A policy's turn has a time limit: an act that never returns does not hold the episode."""

from __future__ import annotations

import asyncio
import time

from assay.episodes import Budget, EndReason, Trajectory, run_episode
from assay.policies import Message, PolicyIdentity, PolicyRequest, PolicyTurn, ToolCall
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.conftest import REFERENCE
from tests.policies.server import call

WRITE = call("write_file", path="solution.py", content=REFERENCE.decode())


class Sleeper:
    """A policy given by a user: it writes the reference, then sleeps on its second turn,
    ignoring the first cancellation for ``stubborn_s`` as a clean-up that takes its time."""

    spec = "sleeper"

    def __init__(self, stubborn_s: float = 0.0) -> None:
        self.stubborn_s = stubborn_s
        self.turns = 0

    def identity(self) -> PolicyIdentity:
        return PolicyIdentity(spec=self.spec, kind="sleeper")

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        self.turns += 1
        if self.turns == 1:
            name, arguments = WRITE
            written = ToolCall(id="call-0", name=name, arguments=arguments)
            return PolicyTurn(message=Message(role="assistant", tool_calls=(written,)))
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(self.stubborn_s)
            raise
        return PolicyTurn(message=Message(role="assistant", content="never"))


def _episode(
    task: Task, pool: PoolSandbox, policy: Sleeper, limit: float
) -> tuple[Trajectory, float]:
    async def go() -> tuple[Trajectory, float]:
        started = time.monotonic()
        async with asyncio.timeout(15):  # a failure of the test, not a hang, without the limit
            trajectory = await run_episode(task, policy, pool, budget=Budget(max_turn_s=limit))
        return trajectory, time.monotonic() - started

    return asyncio.run(go())


def test_an_act_that_never_returns_ends_the_episode_as_a_fail(
    median_task: Task, pool: PoolSandbox
) -> None:
    trajectory, took = _episode(median_task, pool, Sleeper(), 0.5)
    assert took < 30
    assert trajectory.end is EndReason.BUDGET
    assert trajectory.verdict.status is Status.FAIL  # the reference it wrote wins nothing
    assert trajectory.end_detail.startswith("turn time limit passed (0.5 s)")
    assert "the policy had not answered" in trajectory.verdict.summary
    assert len(trajectory.steps) == 1  # the turn that answered is kept
    assert trajectory.cost.model_s >= 0.5


def test_an_act_slow_to_give_up_does_not_hold_the_episode(
    median_task: Task, pool: PoolSandbox
) -> None:
    trajectory, took = _episode(median_task, pool, Sleeper(stubborn_s=20), 0.5)
    assert took < 15
    assert trajectory.end is EndReason.BUDGET


class Queued(Sleeper):
    """A policy that waits ``queued_s`` for a free request slot, its clock stopped, then takes
    ``answer_s`` of the model's time on its second turn."""

    def __init__(self, queued_s: float, answer_s: float) -> None:
        super().__init__()
        self.queued_s, self.answer_s = queued_s, answer_s

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        self.turns += 1
        if self.turns == 1:
            name, arguments = WRITE
            written = ToolCall(id="call-0", name=name, arguments=arguments)
            return PolicyTurn(message=Message(role="assistant", tool_calls=(written,)))
        with request.clock.paused():
            await asyncio.sleep(self.queued_s)
        await asyncio.sleep(self.answer_s)
        return PolicyTurn(message=Message(role="assistant", content="done"))


def test_a_wait_on_the_infrastructure_is_left_out_of_the_turn_limit(
    median_task: Task, pool: PoolSandbox
) -> None:
    trajectory, _ = _episode(median_task, pool, Queued(queued_s=1.0, answer_s=0.1), 0.5)
    assert trajectory.end_detail == ""
    assert trajectory.verdict.status is Status.PASS


def test_the_turn_limit_bounds_the_models_own_time_after_a_wait(
    median_task: Task, pool: PoolSandbox
) -> None:
    trajectory, took = _episode(median_task, pool, Queued(queued_s=0.3, answer_s=3600), 0.5)
    assert took < 15
    assert trajectory.end is EndReason.BUDGET
    assert trajectory.end_detail.startswith("turn time limit passed (0.5 s)")
