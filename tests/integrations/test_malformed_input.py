"""Input of the wrong kind, from a caller rather than an agent, is refused in one line or read
as what it plainly is: never judged as its ``str()``, which would be a fail nobody made."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium
import pytest

from assay.errors import InputError
from assay.integrations.gymnasium import AssayEnv
from assay.integrations.rewards import Judge
from assay.integrations.trl import AssayRewards
from assay.integrations.verl import compute_score, compute_score_batch
from assay.sandbox import PoolSandbox
from assay.tasks import save_task
from tests.conftest import REFERENCE, make_median_task

GOOD = f"```python\n{REFERENCE.decode()}```\n"
SUBMIT = '{"tool": "submit", "arguments": {}}'


@pytest.mark.parametrize("mode", ["single", "tools"])
@pytest.mark.parametrize(
    ("action", "kind"),
    [(GOOD.encode(), "bytes"), ({"tool": "submit", "arguments": {}}, "dict"), (None, "NoneType")],
)
def test_an_action_that_is_not_text_is_refused_and_costs_no_turn(
    pool: PoolSandbox, mode: str, action: object, kind: str
) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool, mode=mode)  # type: ignore[arg-type]
    env.reset(seed=0)
    with pytest.raises(InputError) as refused:
        env.step(action)  # type: ignore[arg-type]
    assert str(refused.value).startswith(f"action: the action is {kind}, not str (")
    # the episode goes on, untouched: the right answer as text still earns its reward
    if mode == "single":
        _, reward, terminated, _, _ = env.step(GOOD)
    else:
        write = {"path": "solution.py", "content": REFERENCE.decode()}
        env.step(json.dumps({"tool": "write_file", "arguments": write}))
        _, reward, terminated, _, _ = env.step(SUBMIT)
    assert (reward, terminated) == (1.0, True)
    env.close()


def test_a_completion_as_bytes_or_a_tuple_of_messages_is_read_as_what_it_says(
    pool: PoolSandbox,
) -> None:
    # their str() would hide the fenced block behind escapes: a right answer scored 0
    rewards = AssayRewards([make_median_task()], sandbox=pool)
    said = ({"role": "assistant", "content": GOOD},)
    scores = rewards.reward(["p"] * 2, [GOOD.encode(), said], task_id=["median-1"] * 2)
    assert scores == [1.0, 1.0]


def test_a_task_id_given_as_one_string_is_refused_not_spelt_out() -> None:
    rewards = AssayRewards([make_median_task()], sandbox=None)
    with pytest.raises(InputError) as refused:
        rewards.reward(["p"], [GOOD], task_id="median-1")
    assert str(refused.value) == (
        "task_id: task_id is one str, 'median-1', not a column (pass one task id per "
        "completion, as TRL passes a dataset's column)"
    )


def test_an_extra_info_that_is_no_mapping_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_task(make_median_task(), tmp_path)
    monkeypatch.setenv("ASSAY_TASKS", str(tmp_path))
    said = "extra_info: extra_info is str, not a mapping"
    with pytest.raises(InputError, match=said):
        compute_score("assay", GOOD, "median-1", '{"tasks_dir": "x"}')  # type: ignore[arg-type]
    with pytest.raises(InputError, match=said):
        compute_score_batch(["assay"], [GOOD], ["median-1"], ["{}"])  # type: ignore[list-item]


def test_a_budget_given_as_a_dict_is_read_as_one(pool: PoolSandbox) -> None:
    # what gymnasium.make's keyword arguments and configuration files hold; it used to fail
    # at the first step with an AttributeError
    env = gymnasium.make(
        "assay/code-v0", tasks=[make_median_task()], sandbox=pool, budget={"max_turns": 2}
    )
    env.reset(seed=0)
    assert env.step("not a call")[2:4] == (False, False)
    _, reward, terminated, truncated, info = env.step("not a call")
    assert (reward, terminated, truncated, info["status"]) == (0.0, False, True, "fail")
    env.close()


@pytest.mark.parametrize(
    ("budget", "said"),
    [
        ({"max_turn": 2}, "budget.max_turn: Extra inputs are not permitted (pass a Budget"),
        ({"max_turns": 0}, "budget.max_turns: Input should be greater than or equal to 1"),
        (3, "budget: budget is int, not a Budget (pass a Budget, or a dict of its fields"),
    ],
)
def test_a_budget_that_is_no_budget_is_refused_in_one_line(budget: object, said: str) -> None:
    with pytest.raises(InputError) as refused:
        AssayEnv("code", tasks=[make_median_task()], budget=budget)  # type: ignore[arg-type]
    assert str(refused.value).startswith(said)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("tasks", "said"),
    [
        (make_median_task(), "tasks: tasks is one Task (pass a task directory, or a list"),
        (["tasks/"], "tasks: tasks holds a str, not a Task"),
        ([make_median_task(), None], "tasks: tasks holds a NoneType, not a Task"),
        (7, "tasks: tasks is one int"),
    ],
)
def test_tasks_that_are_not_tasks_are_refused_in_one_line(tasks: object, said: str) -> None:
    # a task alone was taken apart as its fields; a list of paths failed with an AttributeError
    for make in (Judge, AssayRewards, lambda given: AssayEnv("code", tasks=given)):
        with pytest.raises(InputError) as refused:
            make(tasks)  # type: ignore[operator]
        assert str(refused.value).startswith(said)
    made = (task for task in [make_median_task()])  # any iterable of tasks will do
    assert list(Judge(made).tasks) == ["median-1"]


def test_a_task_id_that_is_no_column_is_refused_in_one_line() -> None:
    rewards = AssayRewards([make_median_task()], sandbox=None)
    with pytest.raises(InputError) as refused:
        rewards.reward(["p"], [GOOD], task_id=5)
    assert str(refused.value).startswith("task_id: task_id is one int, 5, not a column (")


def test_a_row_without_a_ground_truth_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was looked up as the task 'None', and the fix given was to export the set again
    save_task(make_median_task(), tmp_path)
    monkeypatch.setenv("ASSAY_TASKS", str(tmp_path))
    said = "ground_truth: a row has no reward_model.ground_truth (set each row's"
    with pytest.raises(InputError) as refused:
        compute_score("assay", GOOD, None, {})  # type: ignore[arg-type]
    assert str(refused.value).startswith(said)
    with pytest.raises(InputError) as refused:
        compute_score_batch(["assay"] * 2, [GOOD] * 2, ["median-1", None], [None, None])  # type: ignore[list-item]
    assert str(refused.value).startswith(said)


def test_an_unknown_task_id_is_named_in_a_line_of_bounded_length(pool: PoolSandbox) -> None:
    """A task id as long as a completion (a dataset's columns swapped) was repeated whole in the
    error: a megabyte in one line of a trainer's log."""
    long_id = "median-" + "9" * 1_000_000
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool)
    with pytest.raises(InputError) as gym_refused:
        env.reset(options={"task_id": long_id})
    with pytest.raises(InputError) as reward_refused:
        Judge([make_median_task()], sandbox=pool).judge([long_id], [GOOD])
    for refused in (gym_refused, reward_refused):
        said = str(refused.value)
        assert said.startswith("task_id: no task 'median-999")
        assert len(said) < 400
        assert "\n" not in said
