"""Runs against a model server that sends what no well-behaved one would: every episode is kept,
as the model's fail or as an infrastructure error, and the run goes on to its end."""

from __future__ import annotations

import json
from pathlib import Path

from assay.policies import OpenAIPolicy
from assay.runs import RunnerOptions
from assay.sandbox import PoolSandbox
from assay.store import Store
from tests.policies.server import ModelServer, Raw
from tests.runs.conftest import assert_each_episode_kept_once, median_tasks, run_tasks

ONE_TRY = RunnerOptions(max_sandboxes=2, max_requests=4, max_attempts=1, backoff_s=0.01)


def model(server: ModelServer) -> OpenAIPolicy:
    policy = OpenAIPolicy("test-model", base_url=server.base_url, retries=0)
    policy.backoff_s = 0.01
    return policy


def test_answers_holding_lone_surrogates_and_absurd_token_counts_are_kept(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    body = {
        "model": "served\ud800",
        "choices": [{"message": {"content": "```python\nx = '\udc00'\n```"}}],
        "usage": {"prompt_tokens": 10**30, "completion_tokens": 5},
    }
    model_server.play(Raw(json.dumps(body).encode()))
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, _ = run_tasks(
            store, "r", median_tasks(2), model(model_server), pool, k=2, mode="single"
        )
        episodes = store.episodes("r")
    assert (counts.done, counts.errors) == (4, 0)
    assert {e.trajectory.policy.served_model for e in episodes} == {"served\ufffd"}
    assert {e.trajectory.cost.input_tokens for e in episodes} == {0}
    assert_each_episode_kept_once(db, "r", 4)


def test_a_gateway_error_sent_as_a_200_is_an_error_not_a_fail_of_the_model(
    tmp_path: Path, model_server: ModelServer, pool: PoolSandbox
) -> None:
    model_server.play(Raw(b'{"error": {"code": 502, "message": "provider returned error"}}'))
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, _ = run_tasks(
            store, "r", median_tasks(1), model(model_server), pool, k=2, options=ONE_TRY
        )
        totals = store.episode_totals("r")
    assert (counts.errors, counts.failed, counts.passed) == (2, 0, 0)
    assert totals.pass_rate is None
