"""A token in a WebSocket's path is the whole of what lies between ``/token/`` and ``/ws``:
a base64 token, which holds slashes, is accepted there as well as in the header."""

from __future__ import annotations

import pytest
from openenv import GenericEnvClient

from assay.sandbox import PoolSandbox
from assay.tasks import Task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox
TOKEN = "q8/Zx+3k/Lm0pW=="  # noqa: S105 - the test's token, as `openssl rand -base64` makes one


def test_a_token_holding_slashes_is_accepted_in_the_path(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    with running(median_tasks, pool, token=TOKEN) as live:
        with GenericEnvClient(base_url=f"{live.url}/token/{TOKEN}").sync() as env:
            assert env.reset(task_id="median-1").observation["task_id"] == "median-1"
        for wrong in ("q8", "q8/Zx+3k", f"{TOKEN}/more", f"x/{TOKEN}"):
            refused = GenericEnvClient(base_url=f"{live.url}/token/{wrong}").sync()
            with pytest.raises(ConnectionError):
                refused.reset(task_id="median-1")
            refused.close()
