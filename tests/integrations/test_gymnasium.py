"""The families as Gymnasium environments: Gymnasium's own checker, whole episodes of every
family through text actions, the ends (terminated, truncated by the budget, an error that is no
reward), and bad input."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from assay.episodes.records import Budget
from assay.errors import InputError, SandboxError
from assay.families import family_of
from assay.families.base import ToolFamily
from assay.families.generators import generator_of
from assay.integrations.gymnasium import ENV_IDS, AssayEnv
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task, save_task
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task

WRITE = {"tool": "write_file", "arguments": {"path": "solution.py", "content": ""}}


def _write(code: bytes) -> str:
    return json.dumps({**WRITE, "arguments": {**WRITE["arguments"], "content": code.decode()}})


SUBMIT = json.dumps({"tool": "submit", "arguments": {}})


@pytest.fixture(scope="module")
def family_tasks(pool: PoolSandbox) -> dict[str, Task]:
    """One task of each family: the hand-written median task, and one generated of the rest."""
    made = {
        family: generator_of(family)(1, 7, pool)[0]
        for family in ("sql", "config", "workflow", "repo")
    }
    return {"code": make_median_task("median-gym"), **made}


def test_the_environments_are_registered() -> None:
    assert set(ENV_IDS.values()) <= set(gymnasium.registry)
    assert ENV_IDS == {
        "code": "assay/code-v0",
        "sql": "assay/sql-v0",
        "config": "assay/config-v0",
        "workflow": "assay/workflow-v0",
        "repo": "assay/repo-v0",
    }


@pytest.mark.parametrize("family", ["code", "sql", "config", "workflow", "repo"])
def test_each_environment_passes_gymnasiums_checker_and_its_reference_earns_one(
    family: str, family_tasks: dict[str, Task], pool: PoolSandbox
) -> None:
    task = family_tasks[family]
    env = gymnasium.make(ENV_IDS[family], tasks=[task], sandbox=pool, render_mode="ansi")
    check_env(env.unwrapped)
    observation, info = env.reset(seed=3)
    assert info["task_id"] == task.id
    assert task.prompt.strip()[:40] in observation
    assert "submit" in observation  # the tools and the action format are told
    assert env.observation_space.contains(observation)
    toolset_family = family_of(task)
    assert isinstance(toolset_family, ToolFamily)
    calls = toolset_family.tools(task).script(task.solutions["reference"])
    reward: float = 0.0
    terminated = truncated = False
    for name, arguments in calls:
        _, step_reward, terminated, truncated, info = env.step(
            json.dumps({"tool": name, "arguments": arguments})
        )
        reward = float(step_reward)
    assert (terminated, truncated) == (True, False)
    assert info["status"] == "pass", info["verdict"]
    assert reward == 1.0
    assert env.render() is not None
    env.close()


def test_a_wrong_solution_ends_terminated_with_its_lower_score(pool: PoolSandbox) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool)
    env.reset(seed=0)
    observation, reward, terminated, truncated, _ = env.step(_write(BAD_NO_SORT))
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert "solution.py" in observation
    observation, reward, terminated, truncated, info = env.step(SUBMIT)
    assert terminated
    assert not truncated
    assert info["status"] == "fail"
    assert 0.0 <= float(reward) < 1.0
    assert "fail" in observation
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(SUBMIT)


def test_actions_that_are_no_tool_call_are_observations_and_the_budget_truncates(
    pool: PoolSandbox,
) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool, budget=Budget(max_turns=3))
    env.reset(seed=0)
    for action, said in (("hello", "not JSON"), ("[1, 2]", "one tool call as JSON")):
        observation, reward, terminated, truncated, _ = env.step(action)
        assert said in observation
        assert (reward, terminated, truncated) == (0.0, False, False)
    observation, reward, terminated, truncated, info = env.step('{"tool": "no-such-tool"}')
    assert truncated
    assert not terminated
    assert reward == 0.0  # the agent's own fail: a real zero
    assert info["status"] == "fail"
    assert info["end"] == "budget"


def test_an_action_nested_past_any_parser_is_an_observation(pool: PoolSandbox) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool)
    env.reset(seed=0)
    observation, reward, terminated, truncated, _ = env.step("[" * 200_000 + "]" * 200_000)
    assert "not JSON" in observation
    assert (reward, terminated, truncated) == (0.0, False, False)


def test_frozen_tasks_are_drawn_only_when_their_split_is_asked_for(pool: PoolSandbox) -> None:
    """The frozen split is for evaluation: an environment made for training never offers it."""
    tasks = [make_median_task("median-train"), make_median_task("median-eval", split="frozen")]
    env = AssayEnv("code", tasks=tasks, sandbox=pool)
    assert [t.id for t in env.tasks] == ["median-train"]
    assert {env.reset(seed=seed)[1]["task_id"] for seed in range(8)} == {"median-train"}
    with pytest.raises(InputError, match="no task 'median-eval'"):
        env.reset(options={"task_id": "median-eval"})
    frozen = AssayEnv("code", tasks=tasks, sandbox=pool, split="frozen")
    assert [t.id for t in frozen.tasks] == ["median-eval"]
    with pytest.raises(InputError, match="split='frozen'"):
        AssayEnv("code", tasks=tasks[1:], sandbox=pool)
    with pytest.raises(InputError, match="unknown split 'eval'"):
        AssayEnv("code", tasks=tasks, sandbox=pool, split="eval")


def test_single_mode_judges_the_answer_at_once(pool: PoolSandbox) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool, mode="single")
    observation, info = env.reset(seed=0)
    assert info["tools"] == []
    assert "submit" not in observation
    answer = f"Here it is:\n```python\n{REFERENCE.decode()}```\n"
    _, reward, terminated, _, info = env.step(answer)
    assert (reward, terminated, info["status"]) == (1.0, True, "pass")


OUTSIDE_THE_SPACE = {
    # the right answer, then a model that never stopped: judged before, and it passed
    "too-long": lambda answer: answer + " " * 1_000_000,
    "nul": lambda answer: answer + "\0",
    "lone-surrogate": lambda answer: answer + "\ud800",
}


@pytest.mark.parametrize("mode", ["single", "tools"])
@pytest.mark.parametrize("outside", OUTSIDE_THE_SPACE)
def test_an_action_outside_the_action_space_is_the_policys_fail(
    pool: PoolSandbox, mode: str, outside: str
) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool, mode=mode)  # type: ignore[arg-type]
    env.reset(seed=0)
    right = f"```python\n{REFERENCE.decode()}```" if mode == "single" else _write(REFERENCE)
    action = OUTSIDE_THE_SPACE[outside](right)
    assert not env.action_space.contains(action)
    _, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert (info["status"], info["end"]) == ("fail", "policy_failed")
    assert "action space" in info["verdict"]["summary"]
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(SUBMIT)
    env.close()


class _Broken:
    """A sandbox whose every job fails as infrastructure does."""

    python = "/usr/bin/python3"
    notes = ()

    def run(self, *_: object, **__: object) -> object:
        raise SandboxError("the sandbox went away")

    def close(self) -> None:
        pass


def test_an_infrastructure_error_is_no_reward_at_all() -> None:
    broken: Sandbox = _Broken()  # type: ignore[assignment]
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=broken)
    env.reset(seed=0)
    env.step(_write(REFERENCE))
    _, reward, terminated, truncated, info = env.step(SUBMIT)
    assert math.isnan(float(reward))  # never a number a learner could take for an outcome
    assert truncated
    assert not terminated
    assert info["status"] == "error"


@pytest.mark.parametrize("mode", ["single", "tools"])
def test_an_answer_after_the_time_budget_ran_out_is_not_judged(
    pool: PoolSandbox, mode: str
) -> None:
    # the right answer given after the wall-time budget was spent used to be judged, and pass
    env = AssayEnv(
        "code", tasks=[make_median_task()], sandbox=pool, mode=mode, budget=Budget(max_wall_s=0.2)
    )  # type: ignore[arg-type]
    env.reset(seed=0)
    time.sleep(0.4)
    answer = f"```python\n{REFERENCE.decode()}```" if mode == "single" else SUBMIT
    _, reward, terminated, truncated, info = env.step(answer)
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert (info["status"], info["end"]) == ("fail", "budget")
    assert info["verdict"]["summary"] == "wall-time budget spent (0.2 s)"
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(answer)
    env.close()


def test_reset_draws_with_the_seed_and_can_be_told_the_task(pool: PoolSandbox) -> None:
    tasks = [make_median_task(f"median-{i}") for i in range(5)]
    env = AssayEnv("code", tasks=tasks, sandbox=pool)
    drawn = [env.reset(seed=11)[1]["task_id"] for _ in range(2)]
    assert drawn[0] == drawn[1]
    assert env.reset(options={"task_id": "median-3"})[1]["task_id"] == "median-3"


def test_tasks_come_from_a_directory_or_assay_tasks(
    pool: PoolSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tasks"
    save_task(make_median_task("median-dir"), root)
    assert [t.id for t in AssayEnv("code", tasks=root, sandbox=pool).tasks] == ["median-dir"]
    monkeypatch.setenv("ASSAY_TASKS", str(root))
    env = gymnasium.make("assay/code-v0", sandbox=pool)
    assert [t.id for t in env.unwrapped.tasks] == ["median-dir"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda pool: AssayEnv("nope", tasks=[], sandbox=pool), "no environment for family 'nope'"),
        (lambda pool: AssayEnv(["code"], sandbox=pool), r"no environment for family \['code'\]"),
        (lambda pool: AssayEnv("sql", tasks=[make_median_task()], sandbox=pool), "no sql task"),
        (lambda pool: AssayEnv("code", mode="chat", sandbox=pool), "unknown mode 'chat'"),
        (
            lambda pool: AssayEnv("code", tasks=[make_median_task()], render_mode="human"),
            "unknown render mode 'human'",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(make: object, said: str, pool: PoolSandbox) -> None:
    with pytest.raises(InputError, match=said):
        make(pool)  # type: ignore[operator]


def test_an_unknown_task_id_is_refused(pool: PoolSandbox) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool)
    with pytest.raises(InputError, match="no task 'other' in this environment's set"):
        env.reset(options={"task_id": "other"})


def test_no_step_before_reset(pool: PoolSandbox) -> None:
    env = AssayEnv("code", tasks=[make_median_task()], sandbox=pool)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(SUBMIT)


@pytest.fixture(autouse=True)
def _no_stray_tasks_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_TASKS", raising=False)


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"task": "median-1"}, "unknown option 'task'"),
        ({"task_id": "median-1", "seed": 3}, "unknown option 'seed'"),
        (["task_id"], "options is list, not a dict"),
    ],
)
def test_options_other_than_a_task_id_are_refused(
    options: object, said: str, pool: PoolSandbox
) -> None:
    # a misspelt task_id used to draw a task at random without a word
    env = AssayEnv("code", tasks=[make_median_task(), make_median_task("median-2")], sandbox=pool)
    with pytest.raises(InputError, match=said):
        env.reset(options=options)  # type: ignore[arg-type]
    _, info = env.reset(options={"task_id": "median-2"})
    assert info["task_id"] == "median-2"
    env.close()
