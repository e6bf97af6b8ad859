"""Starting, resuming and stopping runs; replays; policies checked before any episode."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay.audit import AuditReport
from assay.errors import InputError
from assay.policies import PolicyIdentity, PolicyRequest, PolicyTurn, Sampling, parse_policy
from assay.runs import Runner, RunnerOptions, RunSpec, check_policy, open_policy, start_run
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.verdicts import Status
from tests.runs.conftest import assert_each_episode_kept_once, median_tasks, run_tasks


class Slow:
    """The reference policy, thinking a little before each turn."""

    spec = "reference"

    def __init__(self) -> None:
        self.inner = parse_policy("reference")

    def identity(self) -> PolicyIdentity:
        return self.inner.identity()

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        await asyncio.sleep(0.05)
        return await self.inner.act(request)


def spec(**changes: object) -> RunSpec:
    base = RunSpec.of(
        median_tasks(3),
        root="t",
        policy="reference",
        k=2,
        mode="tools",
        max_turns=20,
        max_turn_s=1800,
    )
    return base.model_copy(update=changes)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"policy": "empty"}, "was started with policy reference, not empty"),
        ({"k": 3}, "was started with k 2, not 3"),
        ({"mode": "single"}, "was started with mode tools, not single"),
        ({"max_turns": 5}, "was started with max-turns 20, not 5"),
        ({"max_turn_s": 60.0}, "was started with max-turn-seconds 1800, not 60"),
        ({"max_turn_s": None}, "was started with max-turn-seconds 1800, not none"),
        (
            {"sampling": Sampling(temperature=0.5)},
            "was started with sampling defaults, not temperature=0.5",
        ),
        (
            {"tasks": {"median-0": "x", "median-1": spec().tasks["median-1"], "new": "y"}},
            "other tasks: 1 task not given now (median-2), 1 task not in the run (new), "
            "1 task changed since (median-0)",
        ),
    ],
)
def test_resuming_with_other_settings_is_refused_saying_what_differs(
    tmp_path: Path, changes: dict[str, object], said: str
) -> None:
    with Store(tmp_path / "s.db") as store:
        start_run(store, "r", spec())
        with pytest.raises(InputError, match="run: run 'r' ") as caught:
            start_run(store, "r", spec(**changes))
    assert said in str(caught.value)
    assert str(caught.value).endswith("or pick another --run name)")


def test_a_run_started_while_another_writer_holds_the_store_waits_for_it(
    tmp_path: Path,
) -> None:
    """As the command line starts a run: a lock held past the store's own timeout delays the
    start; only one held past the patience fails it."""
    import sqlite3  # noqa: PLC0415
    import threading  # noqa: PLC0415

    from assay.store import StoreBusyError  # noqa: PLC0415
    from assay.store.patience import patiently  # noqa: PLC0415

    path = tmp_path / "s.db"
    with Store(path, timeout_s=0.1) as store:
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusyError):
            patiently(lambda: start_run(store, "r", spec()), patience_s=0.3)
        release = threading.Timer(1.0, lambda: holder.execute("COMMIT"))
        release.start()
        try:
            started = patiently(lambda: start_run(store, "r", spec()))
        finally:
            release.join()
            holder.close()
        assert started.state == "new"
        assert store.job_counts("r", now=0).total == 6


def test_a_run_kept_before_its_turn_budget_was_resumes_with_any(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        start_run(store, "r", spec(max_turns=None, max_turn_s=None))
        assert start_run(store, "r", spec(max_turns=7, max_turn_s=5.0)).state == "resumed"


def test_a_run_name_is_checked_and_shared_with_audit_runs(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError, match="'a b' is not a run name"):
            start_run(store, "a b", spec())
        now = datetime.now(UTC)
        audit = AuditReport(
            run_id="taken", root="/t", started_at=now, finished_at=now, checks=(), tasks=()
        )
        store.add_audit(audit, [])
        with pytest.raises(InputError, match="'taken' is the name of an audit run"):
            start_run(store, "taken", spec())


def test_an_interrupted_run_keeps_what_ended_and_resumes_without_repeats(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    db = tmp_path / "s.db"
    tasks = median_tasks(3)
    with Store(db) as store:
        start_run(store, "r", spec(max_turns=None, max_turn_s=None))  # as run_tasks resumes it
        ended: list[object] = []

        async def interrupted() -> None:
            runner = Runner(
                store,
                "r",
                tasks={t.id: t for t in tasks},
                policy=Slow(),
                sandbox=pool,
                options=RunnerOptions(max_sandboxes=1, max_requests=1),
                on_outcome=ended.append,
            )
            work = asyncio.create_task(runner.run())
            while len(ended) < 2:
                await asyncio.sleep(0.01)
            work.cancel()  # what Ctrl-C does to the run
            with pytest.raises(asyncio.CancelledError):
                await work

        asyncio.run(interrupted())
        counts = store.job_counts("r", now=0)
        assert counts.leased == 0  # unfinished jobs were given back
        assert counts.done >= len(ended) >= 2
        kept_before = {e.trajectory.episode_id for e in store.episodes("r")}
        again, outcomes = run_tasks(store, "r", tasks, parse_policy("reference"), pool)
        assert again.done == 6
        assert len(outcomes) == 6 - counts.done
        assert kept_before <= {e.trajectory.episode_id for e in store.episodes("r")}
    assert_each_episode_kept_once(db, "r", 6)


def test_a_replay_sends_the_recorded_actions_to_the_current_task(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    tasks = median_tasks(2)
    with Store(tmp_path / "s.db") as store:
        run_tasks(store, "good", tasks, parse_policy("reference"), pool)
        run_tasks(store, "bad", tasks, parse_policy("bad:unsorted"), pool)
        replay = open_policy("replay:good", store)
        check_policy(replay, tasks, 2)
        counts, _ = run_tasks(store, "again", tasks, replay, pool)
        assert counts.passed == 4
        counts, _ = run_tasks(store, "again-bad", tasks, open_policy("replay:bad", store), pool)
        assert counts.failed == 4
        [episode] = store.episodes("again", task_id="median-0", sample=1)
    assert episode.trajectory.policy.spec == "replay:good"
    assert episode.trajectory.steps[0].tools[0].call.name == "write_file"
    assert episode.trajectory.verdict.status is Status.PASS


class Overflowing(Slow):
    """The reference policy, as a model whose first turn asked for more calls than a turn
    takes (three were dropped)."""

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        turn = await self.inner.act(request)
        first = len(request.messages) <= 2
        return turn.model_copy(update={"dropped_tool_calls": 3 if first else 0})


def test_a_replay_drops_the_calls_the_recorded_turn_dropped(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    tasks = median_tasks(1)
    with Store(tmp_path / "s.db") as store:
        run_tasks(store, "over", tasks, Overflowing(), pool)
        run_tasks(store, "again", tasks, open_policy("replay:over", store), pool)
        [recorded] = store.episodes("over", task_id="median-0", sample=0)
        [replayed] = store.episodes("again", task_id="median-0", sample=0)
    for episode in (recorded, replayed):
        first = episode.trajectory.steps[0]
        assert first.dropped_tool_calls == 3
        assert "[3 more tool calls were not run" in first.tools[-1].result.output
        assert all(step.dropped_tool_calls == 0 for step in episode.trajectory.steps[1:])


def test_policies_that_cannot_act_on_every_episode_are_refused_first(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    tasks = median_tasks(2)
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError, match="task median-0 has no known-bad solution bad-nope"):
            check_policy(parse_policy("bad:nope"), tasks, 1)
        with pytest.raises(InputError, match="no rollout run 'missing' to replay"):
            open_policy("replay:missing", store)
        run_tasks(store, "one", tasks, parse_policy("reference"), pool, k=1)
        with pytest.raises(InputError, match="run 'one' has no episode of task median-0 sample 1"):
            check_policy(open_policy("replay:one", store), tasks, 2)
        with pytest.raises(InputError) as caught:
            check_policy(open_policy("replay:one", store), tasks, 1, mode="single")
        check_policy(open_policy("replay:one", store), tasks, 1, mode="tools")
    assert str(caught.value) == (
        "mode: run 'one' ran its episodes in mode tools, not single: its recorded turns would "
        "not act the same (replay it with --mode tools)"
    )


def test_a_cancel_that_comes_as_an_episode_ends_is_not_lost() -> None:
    """Ctrl-C at the moment an episode ends must stop the run (Python 3.11's wait_for lost
    such a cancellation, and the run went on to its end)."""

    async def cancelled_as_one_ends() -> bool:
        runner = Runner.__new__(Runner)
        runner.options = RunnerOptions()
        episode = asyncio.create_task(asyncio.sleep(0))
        await episode
        ended: asyncio.Queue[asyncio.Task[None]] = asyncio.Queue()
        waiting = asyncio.create_task(runner._ended(ended, {episode: None}))  # type: ignore[dict-item]
        await asyncio.sleep(0.01)
        ended.put_nowait(episode)
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            return True
        return False

    assert asyncio.run(cancelled_as_one_ends())
