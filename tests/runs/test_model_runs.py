"""Runs against a real OpenAI-compatible server on loopback: a server that fails, hangs or sends
malformed tool calls is recovered or reported, and never becomes a score."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from assay.episodes import Budget
from assay.policies import OpenAIPolicy
from assay.runs import RunnerOptions, verdict_items
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.verdicts import Status
from tests.conftest import REFERENCE
from tests.policies.server import ModelServer, Reply, call
from tests.policies.server import Status as HTTPStatus
from tests.runs.conftest import assert_each_episode_kept_once, median_tasks, run_tasks

ONE_TRY = RunnerOptions(max_sandboxes=2, max_requests=4, max_attempts=2, backoff_s=0.01)
ANSWER = Reply(content=f"Here:\n```python\n{REFERENCE.decode()}```\n")
WRITE = Reply(tool_calls=(call("write_file", path="solution.py", content=REFERENCE.decode()),))
SUBMIT = Reply(tool_calls=(call("submit"),))


def model(server: ModelServer, **options: object) -> OpenAIPolicy:
    policy = OpenAIPolicy("test-model", base_url=server.base_url, **{"retries": 1, **options})  # type: ignore[arg-type]
    policy.backoff_s = 0.01
    return policy


def test_single_turn_answers_are_judged_and_tokens_counted(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    model_server.play(ANSWER)
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, _ = run_tasks(
            store, "r", median_tasks(2), model(model_server), pool, k=2, mode="single"
        )
        totals = store.episode_totals("r")
    assert counts.passed == 4
    assert (totals.input_tokens, totals.output_tokens) == (400, 80)
    assert_each_episode_kept_once(db, "r", 4)


def test_a_server_answering_500_gives_errors_kept_apart_never_scores(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    model_server.play(HTTPStatus(500, "engine down"))
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, outcomes = run_tasks(
            store, "r", median_tasks(1), model(model_server), pool, k=2, options=ONE_TRY
        )
        items = verdict_items(store.verdicts(run_id="r"))
        totals = store.episode_totals("r")
    assert (counts.errors, counts.passed, counts.failed) == (2, 0, 0)
    assert [o.status for o in outcomes].count(None) == 2  # each retried once
    assert {(i["status"], i["score"]) for i in items} == {("error", None)}
    assert totals.pass_rate is None
    assert "answered 500: engine down" in items[0]["verdict"]["summary"]
    assert_each_episode_kept_once(db, "r", 2)


def test_a_hanging_server_times_out_into_errors(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    model_server.play(Reply(content="late", delay_s=3))
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store,
            "r",
            median_tasks(1),
            model(model_server, timeout_s=0.2),
            pool,
            k=1,
            options=ONE_TRY,
        )
        [episode] = store.episodes("r")
    assert counts.errors == 1
    assert "timed out" in episode.trajectory.end_detail


def test_malformed_tool_calls_are_observations_and_the_episode_goes_on(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    broken = Reply(tool_calls=(("write_file", '{"path": "solution.py", "content": '),))
    model_server.play(broken, Reply(tool_calls=(("no_such_tool", "{}"),)), WRITE, SUBMIT)
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(1), model(model_server), pool, k=1)
        [episode] = store.episodes("r")
    assert counts.passed == 1
    assert episode.trajectory.failed_tool_calls == 2
    assert episode.trajectory.verdict.status is Status.PASS


def test_waiting_for_a_request_slot_is_not_spent_from_the_wall_time_budget(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    """Six episodes, one request at a time: the last waits for five answers before its own.
    The verdicts must be those of a run with room for every request."""
    model_server.play(Reply(content=ANSWER.content, delay_s=0.4))
    options = replace(ONE_TRY, max_requests=1, budget=Budget(max_wall_s=1.5))
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store,
            "r",
            median_tasks(3),
            model(model_server, concurrency=1),
            pool,
            k=2,
            mode="single",
            options=options,
        )
    assert (counts.passed, counts.failed, counts.errors) == (6, 0, 0)


def test_a_rate_limited_endpoint_does_not_spend_the_wall_time_budget(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    """Backing off a 429 is the endpoint's time: the same answer passes, however long the
    endpoint asked to wait before it."""
    limited = HTTPStatus(429, "slow down", headers=(("retry-after", "1"),))
    model_server.play(limited, limited, ANSWER)
    options = replace(ONE_TRY, budget=Budget(max_wall_s=1.0))
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store,
            "r",
            median_tasks(1),
            model(model_server, retries=3),
            pool,
            k=1,
            mode="single",
            options=options,
        )
        [episode] = store.episodes("r")
    assert counts.passed == 1
    assert episode.trajectory.steps[0].retries == 2


def test_the_wait_for_a_free_request_slot_is_not_counted_in_the_turn_limit(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    # One request at a time, 0.4 s each: the last of four episodes waits 1.2 s for its slot,
    # past the turn limit, though its model answers each request well within it.
    model_server.play(replace(ANSWER, delay_s=0.4))
    options = RunnerOptions(
        max_sandboxes=2, max_requests=1, max_attempts=1, budget=Budget(max_turn_s=1.0)
    )
    policy = model(model_server, concurrency=1)
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(
            store, "r", median_tasks(2), policy, pool, k=2, mode="single", options=options
        )
        episodes = [e.trajectory for e in store.episodes("r")]
    assert [t.end_detail for t in episodes if t.verdict.status is not Status.PASS] == []
    assert counts.passed == 4
