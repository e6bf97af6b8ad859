"""OpenEnv's own client (``openenv.GenericEnvClient``) against the server's /ws, no adapter."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from openenv import GenericEnvClient
from websockets.sync.client import connect

from assay.errors import SandboxError
from assay.sandbox import ExecResult, PoolSandbox
from assay.server import ServerLimits
from assay.tasks import Limits, Task
from tests.server.conftest import REFERENCE, SECRET, WRONG, Running, running

pytestmark = pytest.mark.sandbox
TOKEN = "openenv-token-1"  # noqa: S105 - the test's token
BREAK = "BREAK-THE-SANDBOX"


def _write(source: str) -> dict[str, Any]:
    return {"tool": "write_file", "arguments": {"path": "solution.py", "content": source}}


def test_an_openenv_client_runs_an_episode(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    with running(median_tasks, pool) as live, GenericEnvClient(base_url=live.url).sync() as env:
        start = env.reset(task_id="median-1")
        assert start.done is False
        assert start.reward is None
        assert [t["function"]["name"] for t in start.observation["tools"]] == [
            "write_file",
            "read_file",
            "run",
            "submit",
        ]
        assert start.observation["task_id"] == "median-1"
        wrote = env.step(_write(REFERENCE.decode()))
        assert wrote.observation["ok"] is True
        assert wrote.done is False
        ran = env.step({"tool": "run", "arguments": {"command": "python solution.py"}})
        assert ran.observation["output"].startswith("exit code 0")
        state = env.state()
        assert state["task_id"] == "median-1"
        assert state["step_count"] == 2
        done = env.step({"tool": "submit", "arguments": {}})
        assert done.done is True
        assert done.reward == 1.0
        assert done.metadata == {"status": "pass", "summary": "5/5 checks met"}
        assert done.observation["verdict"]["status"] == "pass"


def test_a_failing_episode_shows_no_expected_value(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    with running(median_tasks, pool) as live, connect(live.ws_url) as ws:
        replies = []
        for message in (
            {"type": "reset", "data": {"task_id": "secret-1"}},
            {"type": "step", "data": _write("def tag(n):\n    return 'nope'\n")},
            {"type": "step", "data": {"tool": "submit", "arguments": {}}},
            {"type": "state"},
        ):
            ws.send(json.dumps(message))
            replies.append(str(ws.recv()))
        for reply in replies:
            assert SECRET not in reply
        done = json.loads(replies[2])["data"]
        assert done["done"] is True
        assert done["reward"] == 0.0
        assert done["metadata"]["status"] == "fail"


def test_a_sampled_reset_and_protocol_errors(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    with running(median_tasks, pool) as live, connect(live.ws_url) as ws:

        def ask(message: object) -> dict[str, Any]:
            ws.send(message if isinstance(message, str) else json.dumps(message))
            return json.loads(ws.recv())  # type: ignore[no-any-return]

        assert ask("{nope")["data"]["code"] == "INVALID_JSON"
        assert ask({"type": "dance"})["data"]["code"] == "UNKNOWN_TYPE"
        early = ask({"type": "step", "data": _write("x = 1")})
        assert early["type"] == "error"
        assert "reset" in early["data"]["message"]
        bad = ask({"type": "step", "data": {"tool": 3}})
        assert bad["data"]["code"] == "VALIDATION_ERROR"
        sampled = ask({"type": "reset", "data": {"family": "code", "tags": ["stats"], "seed": 1}})
        assert sampled["data"]["observation"]["task_id"] == "median-2"
        unknown = ask({"type": "reset", "data": {"task_id": "nope"}})
        assert unknown["type"] == "error"
        ws.send(json.dumps({"type": "close"}))
        with pytest.raises(Exception, match="1000"):
            ws.recv(timeout=5)


def test_a_token_is_needed_and_accepted_two_ways(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    with running(median_tasks, pool, token=TOKEN) as live:
        bare = GenericEnvClient(base_url=live.url).sync()
        with pytest.raises(ConnectionError):
            bare.reset(task_id="median-1")
        bare.close()
        wrong = GenericEnvClient(base_url=f"{live.url}/token/wrong").sync()
        with pytest.raises(ConnectionError):
            wrong.reset(task_id="median-1")
        wrong.close()
        headers = {"Authorization": f"Bearer {TOKEN}"}
        for env in (
            GenericEnvClient(base_url=f"{live.url}/token/{TOKEN}").sync(),
            GenericEnvClient(base_url=live.url, headers=headers).sync(),
        ):
            with env:
                assert env.reset(task_id="median-1").observation["task_id"] == "median-1"
                assert env.step(_write(WRONG.decode())).observation["ok"] is True


def test_past_the_cap_a_connection_is_refused(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    with running(median_tasks, pool, limits=ServerLimits(max_sessions=1)) as live:
        with GenericEnvClient(base_url=live.url).sync() as first:
            first.reset(task_id="median-1")
            second = GenericEnvClient(base_url=live.url).sync()
            with pytest.raises(RuntimeError, match="CAPACITY_REACHED"):
                second.reset(task_id="median-1")
            second.close()
        deadline = time.monotonic() + 5
        while True:  # the first connection's session is released when it closes
            with GenericEnvClient(base_url=live.url).sync() as third:
                try:
                    third.reset(task_id="median-1")
                    break
                except RuntimeError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)


def test_an_idle_connection_is_reclaimed(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    with running(median_tasks, pool, limits=ServerLimits(idle_timeout_s=0.3)) as live:
        with connect(live.ws_url) as ws:
            ws.send(json.dumps({"type": "reset", "data": {"task_id": "median-1"}}))
            assert json.loads(ws.recv())["type"] == "observation"
            time.sleep(1.5)
            ws.send(json.dumps({"type": "state"}))
            reply = json.loads(ws.recv())
            assert reply["type"] == "error"
            assert reply["data"]["code"] == "SESSION_ERROR"
        with live.client() as client:
            assert client.health().sessions == 0


class _Breaking:
    """The pool, failing as infrastructure whenever a job's files hold the marker."""

    name = "breaking"

    def __init__(self, pool: PoolSandbox) -> None:
        self._pool = pool

    @property
    def python(self) -> str:
        return self._pool.python

    @property
    def notes(self) -> tuple[str, ...]:
        return ()

    def close(self) -> None:
        """The pool belongs to the session's fixture."""

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
        if any(BREAK.encode() in data for data in (files or {}).values()):
            raise SandboxError("the sandbox broke (as the test asked)")
        return self._pool.run(
            command, files=files, limits=limits, stdin=stdin, packages=packages, sockets=sockets
        )


def test_an_error_verdict_is_done_without_a_reward(
    pool: PoolSandbox, median_tasks: list[Task], tmp_path: Path
) -> None:
    sandbox = _Breaking(pool)
    with (
        running(median_tasks, sandbox, limits=ServerLimits()) as live,  # type: ignore[arg-type]
        GenericEnvClient(base_url=live.url).sync() as env,
    ):
        env.reset(task_id="median-1")
        env.step(_write(f"# {BREAK}\n" + REFERENCE.decode()))
        done = env.step({"tool": "submit", "arguments": {}})
        assert done.done is True
        assert done.reward is None
        assert done.metadata is not None
        assert done.metadata["status"] == "error"
        assert done.observation["verdict"]["reward"] is None


def test_an_oversized_message_closes_the_connection(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    with (
        running(median_tasks, pool, limits=ServerLimits(max_body_bytes=64 * 1024)) as live,
        connect(live.ws_url, max_size=None) as ws,
    ):
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "median-1"}}))
        assert json.loads(ws.recv())["type"] == "observation"
        ws.send(json.dumps({"type": "step", "data": _write("x" * 100_000)}))
        with pytest.raises(Exception, match="1009"):
            ws.recv(timeout=5)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"taskid": "median-2"}, "reset takes no 'taskid'"),
        ({"task": "median-2", "seed": 1}, "reset takes no 'task'"),
        ({"task_id": "median-2", "family": "sql"}, "reset takes task_id or 'family', not both"),
    ],
)
def test_a_reset_field_that_would_go_unread_is_refused(
    server: Running, data: dict[str, object], said: str
) -> None:
    """A misspelt task id, or a filter beside one, would start an episode of a task drawn at
    random, unnoticed; OpenEnv's own episode_id, and a seed, are taken beside a task id."""
    with connect(server.ws_url) as ws:
        ws.send(json.dumps({"type": "reset", "data": data}))
        refused = json.loads(ws.recv())
        assert refused["type"] == "error"
        assert refused["data"]["code"] == "VALIDATION_ERROR"
        assert refused["data"]["message"].startswith(said)
        given = {"task_id": "median-2", "episode_id": "run-7", "seed": 3}
        ws.send(json.dumps({"type": "reset", "data": given}))
        assert json.loads(ws.recv())["data"]["observation"]["task_id"] == "median-2"
