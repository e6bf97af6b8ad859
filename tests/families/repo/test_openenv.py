"""A repo task played over several rounds through the environment server, with OpenEnv's own
client (``openenv.GenericEnvClient``): look around, run the project's tests, fix, run again,
submit."""

from __future__ import annotations

from typing import Any

import pytest
from openenv import GenericEnvClient

from assay.sandbox import PoolSandbox
from assay.tasks import Task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox
EXPORT = "rota/export.py"
TESTS = "tests/test_export.py"


def _step(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


def test_an_openenv_client_fixes_a_project_in_several_rounds(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    fixed = decimal_comma.solutions["reference"]
    with running([decimal_comma], pool) as live, GenericEnvClient(base_url=live.url).sync() as env:
        start = env.reset(task_id=decimal_comma.id)
        names = [tool["function"]["name"] for tool in start.observation["tools"]]
        assert names == ["write_file", "read_file", "run", "search", "list_files", "submit"]
        listed = env.step(_step("list_files", path="rota"))
        assert EXPORT in listed.observation["output"]
        found = env.step(_step("search", text="def hours_text"))
        assert found.observation["output"].startswith(f"{EXPORT}:")
        ran = env.step(_step("run", command="python -m rota.cli export data/roster.csv"))
        assert ran.observation["output"].startswith("exit code 0")
        assert (
            env.step(_step("write_file", path=EXPORT, content=fixed[EXPORT].decode())).done is False
        )
        failing = env.step(_step("run", command="python -m unittest"))
        assert "FAILED" in failing.observation["output"]
        env.step(_step("write_file", path=TESTS, content=fixed[TESTS].decode()))
        passing = env.step(_step("run", command="python -m unittest"))
        assert passing.observation["output"].startswith("exit code 0")
        assert env.state()["step_count"] == 7
        done = env.step(_step("submit"))
        assert done.done is True
        assert done.reward == 1.0
        assert done.metadata["status"] == "pass"
