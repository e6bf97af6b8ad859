"""A family's verify or tool that raises (a plugin's bug, a :class:`VerifierError`) judged
nothing: as in a run, that is an error verdict, retried, never a batch or a step that crashes,
nor a number a learner could take for a verdict. Bad input still stops, in one line."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import pytest

from assay.errors import InputError, TaskFormatError, VerifierError
from assay.families import family_of
from assay.integrations.gymnasium import AssayEnv
from assay.integrations.rewards import Judge
from assay.integrations.trl import AssayRewards
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task
from tests.conftest import REFERENCE, make_median_task

GOOD = f"```python\n{REFERENCE.decode()}```\n"
CRASHING = "```python\n# the verifier's reader trips on this\n```\n"


@pytest.fixture
def task(monkeypatch: pytest.MonkeyPatch) -> Task:
    """A task whose family's verify raises on :data:`CRASHING`, and refuses ``# broken`` as
    bad input (a task's own file that is wrong)."""
    task = make_median_task()
    family = type(family_of(task))
    verify = family.verify

    def crashing(self: Any, task: Task, files: Mapping[str, bytes], sandbox: Sandbox) -> Any:
        if b"reader trips" in files.get("solution.py", b""):
            raise VerifierError("the checker's reader did not start")
        if b"# broken" in files.get("solution.py", b""):
            raise TaskFormatError("no cases", path="median-1/hidden/cases.json")
        return verify(self, task, files, sandbox)

    monkeypatch.setattr(family, "verify", crashing)
    return task


def test_a_verify_that_raises_is_retried_and_is_no_score(pool: PoolSandbox, task: Task) -> None:
    judge = Judge([task], sandbox=pool)
    good, crashed = judge.judge(["median-1"] * 2, [GOOD, CRASHING])
    assert good.score == 1.0
    assert (crashed.score, crashed.attempts) == (None, 3)
    assert crashed.error == (
        "the family's verify raised VerifierError: the checker's reader did not start"
    )
    with pytest.raises(InputError, match=r"hidden/cases\.json: no cases"):
        judge.judge(["median-1"], ["```python\n# broken\n```"])


def test_trl_gives_a_crashed_verify_its_groups_mean(pool: PoolSandbox, task: Task) -> None:
    rewards = AssayRewards([task], sandbox=pool)
    assert rewards.reward(["p", "p"], [GOOD, CRASHING], task_id=["median-1"] * 2) == [1.0, 1.0]
    assert rewards.errors(["p", "p"], [GOOD, CRASHING]) == [0.0, 1.0]


def test_gymnasium_ends_a_crashed_verify_truncated_with_nan(pool: PoolSandbox, task: Task) -> None:
    env = AssayEnv("code", tasks=[task], sandbox=pool, mode="single")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(CRASHING)
    assert math.isnan(float(reward))
    assert (terminated, truncated, info["status"], info["end"]) == (
        False,
        True,
        "error",
        "infrastructure",
    )
    assert info["verdict"]["summary"].startswith("the family's verify raised VerifierError")
    env.close()


def test_gymnasium_ends_a_crashed_tool_truncated_with_nan(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = make_median_task()
    toolset = type(family_of(task).tools(task))

    def crashing(self: Any, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> Any:
        raise KeyError("workspace")

    monkeypatch.setattr(toolset, "call", crashing)
    env = AssayEnv("code", tasks=[task], sandbox=pool)
    env.reset(seed=0)
    action = json.dumps({"tool": "run", "arguments": {"command": "ls"}})
    _, reward, terminated, truncated, info = env.step(action)
    assert math.isnan(float(reward))
    assert (terminated, truncated, info["status"]) == (False, True, "error")
    assert info["verdict"]["summary"] == "the family's tool 'run' raised KeyError: 'workspace'"
    env.close()
