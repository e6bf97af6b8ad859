"""Batches whose columns do not line up are refused in one line, before any completion is
judged; TRL's extra keywords and a conversation in any script are read as they come."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.errors import InputError
from assay.integrations.rewards import Judge
from assay.integrations.trl import AssayRewards
from assay.integrations.verl import compute_score_batch
from assay.sandbox import PoolSandbox
from assay.tasks import save_task
from tests.conftest import REFERENCE, make_median_task

GOOD = f"Voilà, la médiane ✓:\n```python\n{REFERENCE.decode()}```\n"


class Untouchable:
    """A sandbox no job may reach: a batch refused must be refused before any is judged."""

    python = "python3"
    notes = ""

    def run(self, *_: object, **__: object) -> None:
        raise AssertionError("a completion was judged")

    def close(self) -> None:
        pass


def test_trl_refuses_prompts_that_do_not_match_the_completions() -> None:
    rewards = AssayRewards([make_median_task()], sandbox=Untouchable())  # type: ignore[arg-type]
    with pytest.raises(InputError) as refused:
        rewards.reward(["p"], [GOOD, GOOD], task_id=["median-1", "median-1"])
    assert str(refused.value) == (
        "prompts: 1 prompts for 2 completions (pass one prompt per completion, as TRL does)"
    )


def test_verl_refuses_a_batch_whose_columns_differ_in_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_task(make_median_task(), tmp_path)
    monkeypatch.setenv("ASSAY_TASKS", str(tmp_path))
    with pytest.raises(InputError) as refused:
        compute_score_batch(["assay"], [GOOD, GOOD], ["median-1", "median-1"], [None, None])
    assert str(refused.value).startswith(
        "batch: the batch holds 2 responses, 2 ground truths, 1 data sources and 2 extra infos"
    )


def test_trl_reads_a_conversation_with_its_extra_keywords(pool: PoolSandbox) -> None:
    rewards = AssayRewards([make_median_task()], sandbox=pool)
    prompt = [{"role": "user", "content": "Écris median ✓"}]
    completions = [
        [{"role": "assistant", "content": GOOD}],
        [{"role": "assistant", "content": [{"type": "text", "text": GOOD}]}],
        [{"role": "assistant", "content": None}],
    ]
    scores = rewards.reward(
        prompts=[prompt] * 3,
        completions=completions,
        completion_ids=[[1], [2], [3]],
        task_id=["median-1"] * 3,
        trainer_state=None,
        log_extra=None,
    )
    assert scores[:2] == [1.0, 1.0]
    assert scores[2] < 1.0  # no answer at all earns no pass
    assert rewards.errors(prompts=[prompt] * 3, completions=completions) == [0.0] * 3


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"retries": -1}, "retries is -1"),
        ({"retries": 1.5}, "retries is 1.5"),
        ({"workers": -2}, "workers is -2"),
    ],
)
def test_counts_that_would_judge_nothing_are_refused(options: dict[str, object], said: str) -> None:
    # with fewer than no retries no completion was ever judged, and each got a 0 all the same
    with pytest.raises(InputError, match=said):
        Judge([make_median_task()], sandbox=Untouchable(), **options)  # type: ignore[arg-type]
    if "retries" in options:
        with pytest.raises(InputError, match=said):
            AssayRewards([make_median_task()], sandbox=Untouchable(), **options)  # type: ignore[arg-type]


def test_a_conversation_ending_with_a_tool_is_judged_on_what_the_model_said(
    pool: PoolSandbox,
) -> None:
    # a tool's output (a file read back, a command's echo) is no answer of the model's
    rewards = AssayRewards([make_median_task()], sandbox=pool)
    completions = [
        [
            {"role": "assistant", "content": "let me look", "tool_calls": [{"id": "c"}]},
            {"role": "tool", "tool_call_id": "c", "content": GOOD},
        ],
        [{"role": "tool", "content": GOOD}],
        [
            {"role": "assistant", "content": GOOD},
            {"role": "tool", "content": "ok"},
        ],
        [],
    ]
    scores = rewards.reward(["p"] * 4, completions, task_id=["median-1"] * 4)
    assert scores == [0.0, 0.0, 1.0, 0.0]


def test_trl_rows_of_other_tasks_get_none_from_both_functions(pool: PoolSandbox) -> None:
    # a dataset mixing assay's tasks with others: TRL leaves a None out of that row's reward,
    # where a refused batch stopped training and a 0 would have been a false failure
    rewards = AssayRewards([make_median_task()], sandbox=pool)
    prompts = ["median", "what is 2 + 2?", "median"]
    completions = [GOOD, "4", "```python\ndef median(values):\n    return 0\n```"]
    scores = rewards.reward(prompts, completions, task_id=["median-1", None, "median-1"])
    assert scores[:2] == [1.0, None]
    assert scores[2] is not None
    assert scores[2] < 1.0
    assert rewards.errors(prompts, completions) == [0.0, None, 0.0]
    assert (rewards.judged, rewards.unjudged) == (2, 0)
    assert rewards.reward(["q"], ["4"], task_id=[None]) == [None]
    assert rewards.errors(["q"], ["4"]) == [None]
    assert (rewards.judged, rewards.unjudged) == (2, 0)
    # pandas gives a missing value of a column as NaN: it was the task 'nan', the batch refused
    missing = np.array(["median-1", float("nan")], dtype=object)
    assert rewards.reward(["m", "q"], [GOOD, "4"], task_id=missing) == [1.0, None]
    assert rewards.reward(["q"], ["4"], task_id=[np.float64("nan")]) == [None]
