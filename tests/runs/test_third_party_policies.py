"""A third-party policy whose ``act`` or ``identity`` raises what it was never meant to, or
answers no turn: the episode ends in error (infrastructure), retried and then kept apart with
what was raised, and the run goes on. A cancellation is never taken for such an error."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.episodes import Budget, EndReason
from assay.errors import InputError
from assay.policies import Policy, PolicyIdentity, PolicyRequest, PolicyTurn, Usage, parse_policy
from assay.runs import RunnerOptions
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.verdicts import Status
from tests.runs.conftest import assert_each_episode_kept_once, median_tasks, run_tasks


class Buggy:
    """The reference policy, but ``act`` raises ``error`` on task ``broken``."""

    spec = "reference"

    def __init__(self, broken: str, error: BaseException) -> None:
        self.broken, self.error = broken, error
        self.inner = parse_policy("reference")
        self.calls = 0

    def identity(self) -> PolicyIdentity:
        return self.inner.identity()

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        if request.task is not None and request.task.id == self.broken:
            self.calls += 1
            raise self.error
        return await self.inner.act(request)


@pytest.mark.parametrize(
    "error", [TypeError("act() got an unexpected keyword"), RuntimeError("the GPU fell over")]
)
def test_a_policy_that_raises_ends_its_episode_in_error_and_the_run_goes_on(
    tmp_path: Path, pool: PoolSandbox, error: Exception
) -> None:
    db = tmp_path / "s.db"
    policy = Buggy("median-1", error)
    options = RunnerOptions(max_sandboxes=2, max_requests=2, max_attempts=2, backoff_s=0.01)
    with Store(db) as store:
        counts, outcomes = run_tasks(store, "r", median_tasks(3), policy, pool, options=options)
        kept = {(e.trajectory.task_id, e.sample): e.trajectory for e in store.episodes("r")}
    assert (counts.done, counts.passed, counts.errors) == (6, 4, 2)
    assert policy.calls == 4  # each of the two episodes tried twice
    assert [o.status for o in outcomes].count(None) == 2
    for sample in (0, 1):
        broken = kept[("median-1", sample)]
        assert broken.verdict.status is Status.ERROR
        assert broken.end is EndReason.INFRASTRUCTURE
        assert type(error).__name__ in broken.end_detail
        assert str(error) in broken.end_detail
    assert_each_episode_kept_once(db, "r", 6)


def test_a_cancellation_raised_in_a_policy_is_not_taken_for_its_error(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    with Store(tmp_path / "s.db") as store, pytest.raises(asyncio.CancelledError):
        run_tasks(store, "r", median_tasks(2), Buggy("median-0", asyncio.CancelledError()), pool)


class Answerless(Buggy):
    """The reference policy, but ``act`` returns no turn on task ``broken``."""

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        if request.task is not None and request.task.id == self.broken:
            return None  # type: ignore[return-value]
        return await self.inner.act(request)


@pytest.mark.parametrize("max_turn_s", [None, 60.0])
def test_a_policy_that_answers_no_turn_ends_its_episode_in_error(
    tmp_path: Path, pool: PoolSandbox, max_turn_s: float | None
) -> None:
    options = RunnerOptions(max_sandboxes=2, max_attempts=1, budget=Budget(max_turn_s=max_turn_s))
    policy = Answerless("median-0", RuntimeError())
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(2), policy, pool, k=1, options=options)
        [broken] = [e.trajectory for e in store.episodes("r") if e.trajectory.task_id == "median-0"]
    assert (counts.passed, counts.errors) == (1, 1)
    assert broken.end is EndReason.INFRASTRUCTURE
    assert "returned a NoneType, not a PolicyTurn" in broken.end_detail


class Nameless(Buggy):
    """The reference policy, but ``identity`` raises ``error``."""

    def identity(self) -> PolicyIdentity:
        raise self.error


def test_a_policy_whose_identity_raises_ends_its_episodes_in_error(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    policy = Nameless("none", AttributeError("'NoneType' object has no attribute 'model'"))
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(2), policy, pool, k=1, options=options)
        kept = [e.trajectory for e in store.episodes("r")]
    assert (counts.done, counts.errors) == (2, 2)
    for trajectory in kept:
        assert trajectory.end is EndReason.INFRASTRUCTURE
        assert trajectory.end_detail == (
            "the policy's identity() raised AttributeError: 'NoneType' object has no "
            "attribute 'model'"
        )
        assert trajectory.policy.spec == "reference"


class Unsampleable:
    """The reference policy, but ``for_sample`` raises ``error`` for sample ``broken``."""

    spec = "reference"

    def __init__(self, broken: int, error: Exception) -> None:
        self.broken, self.error = broken, error
        self.inner = parse_policy("reference")
        self.asked: list[int] = []

    def identity(self) -> PolicyIdentity:
        return self.inner.identity()

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        return await self.inner.act(request)

    def for_sample(self, sample: int) -> Policy:
        self.asked.append(sample)
        if sample == self.broken:
            raise self.error
        return self.inner


def test_a_policy_whose_for_sample_raises_ends_that_samples_episodes_in_error(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    db = tmp_path / "s.db"
    policy = Unsampleable(1, KeyError("no seed for this sample"))
    options = RunnerOptions(max_sandboxes=2, max_requests=2, max_attempts=2, backoff_s=0.01)
    with Store(db) as store:
        counts, outcomes = run_tasks(store, "r", median_tasks(2), policy, pool, options=options)
        kept = {(e.trajectory.task_id, e.sample): e.trajectory for e in store.episodes("r")}
    assert (counts.done, counts.passed, counts.errors) == (4, 2, 2)
    assert policy.asked.count(1) == 4  # each attempt of each of the two episodes asks again
    assert [o.status for o in outcomes].count(None) == 2
    for task_id in ("median-0", "median-1"):
        broken = kept[(task_id, 1)]
        assert broken.verdict.status is Status.ERROR
        assert broken.end is EndReason.INFRASTRUCTURE
        assert broken.end_detail == (
            "the policy's for_sample(1) raised KeyError: 'no seed for this sample'"
        )
    assert_each_episode_kept_once(db, "r", 4)


def test_a_for_sample_refusing_its_input_stops_the_run(tmp_path: Path, pool: PoolSandbox) -> None:
    policy = Unsampleable(0, InputError("no such run", field="policy", fix="name a run"))
    with Store(tmp_path / "s.db") as store, pytest.raises(InputError, match="no such run"):
        run_tasks(store, "r", median_tasks(1), policy, pool, k=1)


class Boastful(Buggy):
    """The reference policy, but on task ``broken`` its turns report ``10**30`` input tokens
    (``model_copy`` does not validate them)."""

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        turn = await self.inner.act(request)
        if request.task.id != self.broken:
            return turn
        return turn.model_copy(
            update={"usage": Usage(output_tokens=1).model_copy(update={"input_tokens": 10**30})}
        )


def test_a_policy_reporting_a_token_count_past_any_count_ends_its_episode_in_error(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    policy = Boastful("median-0", RuntimeError())
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(2), policy, pool, k=1, options=options)
        [broken] = [e.trajectory for e in store.episodes("r") if e.trajectory.task_id == "median-0"]
    assert (counts.passed, counts.errors) == (1, 1)
    assert broken.end is EndReason.INFRASTRUCTURE
    assert broken.end_detail.startswith(f"the policy's act reported input_tokens {10**30}")
    assert broken.cost.input_tokens == 0


class Unchecked(Buggy):
    """The reference policy, but on task ``broken`` its turns are changed by ``model_copy``,
    which does not validate."""

    def __init__(self, broken: str, update: dict[str, object]) -> None:
        super().__init__(broken, RuntimeError())
        self.update = update

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        turn = await self.inner.act(request)
        return turn.model_copy(update=self.update) if request.task.id == self.broken else turn


@pytest.mark.parametrize(
    ("update", "detail"),
    [
        ({"latency_s": -1.0}, "whose latency_s is wrong: Input should be greater than or equal"),
        ({"latency_s": float("nan")}, "whose latency_s is wrong"),
        ({"failure": 5}, "whose failure is wrong: Input should be a valid string"),
        ({"retries": -3}, "whose retries is wrong"),
    ],
)
def test_a_policy_returning_a_turn_that_is_not_valid_ends_its_episode_in_error(
    tmp_path: Path, pool: PoolSandbox, update: dict[str, object], detail: str
) -> None:
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    policy = Unchecked("median-0", update)
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(2), policy, pool, k=1, options=options)
        [broken] = [e.trajectory for e in store.episodes("r") if e.trajectory.task_id == "median-0"]
    assert (counts.passed, counts.errors) == (1, 1)
    assert broken.end is EndReason.INFRASTRUCTURE
    assert broken.end_detail.startswith(f"the policy's act returned a turn {detail}")


class UnprintableError(Exception):
    """An exception whose message cannot be read."""

    def __str__(self) -> str:
        raise RuntimeError("no message")


def test_a_policy_raising_an_exception_that_cannot_be_printed_ends_its_episode_in_error(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    options = RunnerOptions(max_sandboxes=2, max_attempts=1)
    policy = Buggy("median-0", UnprintableError())
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(2), policy, pool, k=1, options=options)
        [broken] = [e.trajectory for e in store.episodes("r") if e.trajectory.task_id == "median-0"]
    assert (counts.passed, counts.errors) == (1, 1)
    assert broken.end_detail == (
        "the policy raised UnprintableError: (its message could not be read)"
    )
