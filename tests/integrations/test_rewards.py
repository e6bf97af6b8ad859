"""Rewards for trainers: completions judged in the pool, errors retried and never a false 0,
called the way TRL's GRPOTrainer and verl's reward managers call them."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from assay.errors import InputError, RewardError, SandboxError
from assay.integrations.rewards import Judge, Judgement, neutral_scores
from assay.integrations.trl import AssayRewards
from assay.integrations.verl import compute_score, compute_score_batch
from assay.sandbox import ExecResult, PoolSandbox, Sandbox
from assay.tasks import Limits, Task, save_task
from assay.verdicts import Status
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task

GOOD = f"Sure:\n```python\n{REFERENCE.decode()}```\n"
WRONG = f"```python\n{BAD_NO_SORT.decode()}```"


class Flaky:
    """The pool, but the first ``failures`` jobs fail as a broken sandbox does, and every job
    whose files hold ``doomed``."""

    def __init__(self, pool: PoolSandbox, failures: int, doomed: bytes | None = None) -> None:
        self.pool = pool
        self.failures = failures
        self.doomed = doomed
        self.python = pool.python
        self.notes = pool.notes
        self._lock = threading.Lock()

    def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes = b"",
        packages: Sequence[str] = (),
        sockets: bool = True,
    ) -> ExecResult:
        with self._lock:
            fail = self.failures > 0
            self.failures -= 1
        if self.doomed is not None and any(self.doomed in data for data in (files or {}).values()):
            fail = True
        if fail:
            raise SandboxError("the worker died")
        return self.pool.run(
            command, files=files, limits=limits, stdin=stdin, packages=packages, sockets=sockets
        )

    def close(self) -> None:
        pass


def _tasks() -> list[Task]:
    return [make_median_task("median-1"), make_median_task("median-2")]


def test_completions_are_judged_as_single_turn_answers(pool: PoolSandbox) -> None:
    judge = Judge(_tasks(), sandbox=pool)
    got = judge.judge(["median-1", "median-1", "median-2"], [GOOD, WRONG, "no code at all"])
    assert [j.verdict.status if j.verdict else None for j in got] == [
        Status.PASS,
        Status.FAIL,
        Status.FAIL,
    ]
    assert got[0].score == 1.0
    assert got[2].score == 0.0  # no fenced block: the model's own failure, a real 0


def test_an_error_is_retried_and_one_that_persists_is_no_score(pool: PoolSandbox) -> None:
    sandbox: Sandbox = Flaky(pool, failures=1)  # type: ignore[assignment]
    [recovered] = Judge(_tasks(), sandbox=sandbox).judge(["median-1"], [GOOD])
    assert (recovered.score, recovered.attempts) == (1.0, 2)
    broken: Sandbox = Flaky(pool, failures=100)  # type: ignore[assignment]
    [lost] = Judge(_tasks(), sandbox=broken, retries=2).judge(["median-1"], [GOOD])
    assert lost.score is None
    assert lost.attempts == 3
    assert "worker died" in lost.error


def test_an_unjudged_completion_gets_its_groups_mean_or_zero_with_its_whole_group(
    pool: PoolSandbox,
) -> None:
    good, wrong = Judge(_tasks(), sandbox=pool).judge(["median-1"] * 2, [GOOD, WRONG])
    assert wrong.score is not None
    lost = Judgement("median-1", None, 3, "gone")
    judgements = [good, wrong, lost, lost, lost]
    groups = ["a", "a", "a", "b", "b"]
    mean = (1.0 + wrong.score) / 2
    assert neutral_scores(judgements, groups) == [1.0, wrong.score, mean, 0.0, 0.0]


def test_trl_reward_takes_the_task_id_column_and_logs_its_errors(pool: PoolSandbox) -> None:
    rewards = AssayRewards(_tasks(), sandbox=pool)
    prompts = [[{"role": "user", "content": "median"}]] * 2 + [[{"role": "user", "content": "x"}]]
    completions = [
        [{"role": "assistant", "content": GOOD}],
        [{"role": "assistant", "content": WRONG}],
        [{"role": "assistant", "content": GOOD}],
    ]
    ids = ["median-1", "median-1", "median-2"]
    scores = rewards.reward(prompts, completions, task_id=ids, trainer_state=None)
    assert scores[0] == scores[2] == 1.0
    assert scores[1] < 1.0
    assert rewards.errors(prompts, completions, task_id=ids) == [0.0, 0.0, 0.0]
    assert rewards.reward.__name__ == "reward"  # TRL logs rewards/<name>/mean

    # the sandbox fails every job of the wrong solution: that completion cannot be judged
    doomed = Flaky(pool, failures=0, doomed=b"middle = len(values) // 2")
    flaky = AssayRewards(_tasks(), sandbox=doomed, retries=2)  # type: ignore[arg-type]
    got = flaky.reward(prompts[:2], [GOOD, WRONG], task_id=ids[:2])
    assert flaky.errors(prompts[:2], [GOOD, WRONG], task_id=ids[:2]) == [0.0, 1.0]
    assert got == [1.0, 1.0]  # the group's mean of what was judged: its advantage is zero
    assert (flaky.judged, flaky.unjudged) == (1, 1)


def test_trl_reward_refuses_rows_it_cannot_place(pool: PoolSandbox) -> None:
    rewards = AssayRewards(_tasks(), sandbox=pool)
    with pytest.raises(InputError, match="the dataset has no task_id column"):
        rewards.reward(["p"], [GOOD])
    with pytest.raises(InputError, match="no task 'median-9' in the task set"):
        rewards.reward(["p"], [GOOD], task_id=["median-9"])


def test_verl_compute_score_as_its_reward_managers_call_it(
    pool: PoolSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tasks"
    for task in _tasks():
        save_task(task, root)
    monkeypatch.setattr("assay.integrations._pool._pool", pool)
    # NaiveRewardManager: keyword arguments, one sample; extra_info names the task set
    single = compute_score(
        data_source="assay",
        solution_str=GOOD,
        ground_truth="median-1",
        extra_info={"tasks_dir": str(root), "index": 0},
    )
    assert single["score"] == 1.0
    assert single["status"] == "pass"
    assert single["error"] is False
    # BatchRewardManager: numpy object arrays, the task set from ASSAY_TASKS
    monkeypatch.setenv("ASSAY_TASKS", str(root))
    batch = compute_score_batch(
        data_sources=np.array(["assay"] * 3, dtype=object),
        solution_strs=np.array([GOOD, WRONG, "nothing"], dtype=object),
        ground_truths=np.array(["median-1", "median-1", "median-2"], dtype=object),
        extra_infos=np.array([{}, {}, {}], dtype=object),
    )
    assert batch[0]["score"] == 1.0
    assert [row["status"] for row in batch] == ["pass", "fail", "fail"]


def test_verl_never_turns_an_error_into_a_zero(
    pool: PoolSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tasks"
    for task in _tasks():
        save_task(task, root)
    monkeypatch.setattr("assay.integrations._pool._pool", Flaky(pool, failures=1000))
    with pytest.raises(RewardError, match="could not judge the response after 3 attempts"):
        compute_score("assay", GOOD, "median-2", {"tasks_dir": str(root)})
    monkeypatch.delenv("ASSAY_TASKS", raising=False)
    with pytest.raises(InputError, match="ASSAY_TASKS is not set"):
        compute_score("assay", GOOD, "median-1", {})


def test_trl_reads_the_answer_in_every_shape_a_conversation_holds_it(pool: PoolSandbox) -> None:
    rewards = AssayRewards(_tasks(), sandbox=pool)
    parts = (
        {"type": "text", "text": GOOD[:20]},
        {"type": "image_url"},
        {"type": "text", "text": GOOD[20:]},
    )
    completions = [
        [{"role": "assistant", "content": list(parts)}],
        {"role": "assistant", "content": GOOD},
        [{"role": "assistant", "content": None}],
        None,
    ]
    scores = rewards.reward(["p"] * 4, completions, task_id=["median-1"] * 4)
    assert scores == [1.0, 1.0, 0.0, 0.0]


def test_a_completion_that_is_not_unicode_text_fails_alone(pool: PoolSandbox) -> None:
    """A lone surrogate (a JSON ``\\ud800`` decoded) cannot be written to a file: that answer
    fails, and the rest of its batch is judged."""
    hostile = GOOD.replace("def ", "# \ud800\ndef ", 1)
    got = Judge(_tasks(), sandbox=pool).judge(["median-1"] * 2, [hostile, GOOD])
    assert [j.verdict.status if j.verdict else None for j in got] == [Status.FAIL, Status.PASS]
    assert got[0].verdict is not None
    assert "lone surrogate" in got[0].verdict.summary


def test_a_task_of_the_frozen_split_gets_no_reward_unless_evaluating(
    pool: PoolSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dataset built by hand named a frozen task, and the trainer got its reward: the frozen
    split trained on, which the export never allows. Every form refuses it; an evaluation says
    so and is judged."""
    tasks = [make_median_task("median-1"), make_median_task("held-out", split="frozen")]
    refused = r"task 'held-out' is of the frozen split, which is for evaluation only"
    with pytest.raises(InputError, match=refused):
        Judge(tasks, sandbox=pool).judge(["median-1", "held-out"], [GOOD, GOOD])
    with pytest.raises(InputError, match=refused):
        AssayRewards(tasks, sandbox=pool).reward(["p"], [GOOD], task_id=["held-out"])
    [judged] = Judge(tasks, sandbox=pool, frozen=True).judge(["held-out"], [GOOD])
    assert judged.score == 1.0
    assert AssayRewards(tasks, sandbox=pool, frozen=True).reward(
        ["p"], [GOOD], task_id=["held-out"]
    ) == [1.0]
    with pytest.raises(InputError, match="frozen is 'yes'"):
        Judge(tasks, sandbox=pool, frozen="yes")  # type: ignore[arg-type]

    root = tmp_path / "tasks"
    for task in tasks:
        save_task(task, root)
    monkeypatch.setattr("assay.integrations._pool._pool", pool)
    where = {"tasks_dir": str(root)}
    with pytest.raises(InputError, match=refused):
        compute_score("assay", GOOD, "held-out", where)
    with pytest.raises(InputError, match=refused):
        compute_score_batch(["assay"], [GOOD], ["held-out"], [where])
    assert compute_score("assay", GOOD, "held-out", {**where, "frozen": True})["score"] == 1.0
    [row] = compute_score_batch(["assay"], [GOOD], ["held-out"], [{**where, "frozen": True}])
    assert row["score"] == 1.0
    with pytest.raises(InputError, match=r"extra_info\.frozen is 'true'"):
        compute_score("assay", GOOD, "held-out", {**where, "frozen": "true"})
