"""OpenEnv's typed actions: every one carries the ``metadata`` of its ``Action`` base class."""

from __future__ import annotations

from typing import Any

import pytest
from openenv import GenericEnvClient
from openenv.core.env_server.types import Action
from pydantic import Field

from assay.sandbox import PoolSandbox
from assay.tasks import Task
from tests.server.conftest import REFERENCE, running

pytestmark = pytest.mark.sandbox


class ToolAction(Action):
    """A tool call as a typed OpenEnv action."""

    tool: str = Field(description="The tool's name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Its arguments.")


def test_a_typed_openenv_action_runs_an_episode(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    write = {"path": "solution.py", "content": REFERENCE.decode()}
    with running(median_tasks, pool) as live, GenericEnvClient(base_url=live.url).sync() as env:
        env.reset(task_id="median-1")
        wrote = env.step(ToolAction(tool="write_file", arguments=write, metadata={"turn": 1}))
        assert wrote.observation["ok"] is True
        done = env.step(ToolAction(tool="submit"))
        assert (done.done, done.reward) == (True, 1.0)
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step({"tool": "submit", "arguments": {}, "metadata": "not an object"})
