"""A verdict whose score could not be made (a rubric's judge unreachable: the status stands,
``score_error`` says why, ``score`` is a placeholder 0) is no reward: retried like an error, and
never handed to a learner as a 0 for a right answer."""

from __future__ import annotations

import math

import pytest

from assay.integrations.gymnasium import AssayEnv
from assay.integrations.rewards import Judge
from assay.integrations.trl import AssayRewards
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task

GOOD = f"```python\n{REFERENCE.decode()}```\n"
WRONG = f"```python\n{BAD_NO_SORT.decode()}```\n"
UNREACHABLE_JUDGE = b"""format = 1

[correctness]
weight = 0.8

[[criteria]]
name = "documented"
kind = "judge"
weight = 0.2
model = "judge-model"
question = "Does median say what it returns for an empty list?"
base_url = "http://127.0.0.1:9/v1"
retries = 0
timeout_s = 5
"""


@pytest.fixture
def judged_by_nobody(monkeypatch: pytest.MonkeyPatch) -> Task:
    monkeypatch.setenv("ASSAY_JUDGE_API_KEY", "unused")
    task = make_median_task("median-1")
    return task.model_copy(update={"hidden": {**task.hidden, "rubric.toml": UNREACHABLE_JUDGE}})


def test_an_unscored_verdict_is_retried_and_is_no_score(
    pool: PoolSandbox, judged_by_nobody: Task
) -> None:
    [judgement] = Judge([judged_by_nobody], sandbox=pool).judge(["median-1"], [GOOD])
    assert judgement.score is None
    assert judgement.attempts == 3
    assert "judge could not be reached" in judgement.error


def test_trl_gives_an_unscored_right_answer_its_groups_mean_not_zero(
    pool: PoolSandbox, judged_by_nobody: Task
) -> None:
    rewards = AssayRewards([judged_by_nobody], sandbox=pool)
    scores = rewards.reward(["p", "p"], [GOOD, WRONG], task_id=["median-1"] * 2)
    assert 0 < scores[1] < 1  # the wrong answer is judged: the judge is not asked about it
    assert scores[0] == scores[1]
    assert rewards.errors(["p", "p"], [GOOD, WRONG]) == [1.0, 0.0]


def test_gymnasium_ends_an_unscored_episode_truncated_with_nan(
    pool: PoolSandbox, judged_by_nobody: Task
) -> None:
    env = AssayEnv("code", tasks=[judged_by_nobody], sandbox=pool, mode="single")
    env.reset(seed=0)
    _text, reward, terminated, truncated, info = env.step(GOOD)
    assert math.isnan(float(reward))
    assert (terminated, truncated) == (False, True)
    assert info["status"] == "pass"
    env.close()
