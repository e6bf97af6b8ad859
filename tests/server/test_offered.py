"""The server offers only tasks it can run as sessions: a task of a family that gives agents no
tools (``terminal``) is neither listed, drawn nor opened, and asking for it is no 500."""

from __future__ import annotations

import httpx
import pytest

from assay.sandbox import PoolSandbox
from tests.conftest import make_median_task, make_terminal_task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox


def test_a_task_without_tools_is_not_offered(pool: PoolSandbox) -> None:
    tasks = [make_median_task(), make_terminal_task()]
    with running(tasks, pool) as live, httpx.Client(base_url=live.url) as http:
        listed = [task["task_id"] for task in http.get("/tasks").json()["tasks"]]
        assert listed == ["median-1"]
        asked = http.post("/sessions", json={"task_id": "term-1"})
        assert asked.status_code == 404, asked.text
        assert asked.json()["code"] == "unknown_task"
        assert "no tools" in asked.json()["error"]
        drawn = [http.post("/sessions", json={"sample": {"seed": seed}}) for seed in range(12)]
        assert [answer.status_code for answer in drawn] == [201] * 12
        assert {answer.json()["task_id"] for answer in drawn} == {"median-1"}
