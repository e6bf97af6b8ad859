"""A client that goes away (mid-body, mid-call, or closing its WebSocket without a word) costs
the server no crash: nothing is logged as an error, and nothing of the session is changed; a
session made for a client that gave up waiting for it is not kept."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator

import httpx
import pytest
from starlette.testclient import TestClient
from starlette.types import Message
from websockets.sync.client import connect

from assay.sandbox import PoolSandbox
from assay.server import Session, SessionManager, create_app
from assay.server.models import Observation
from assay.tasks import Task
from tests.conftest import make_median_task
from tests.server.conftest import Running

pytestmark = pytest.mark.sandbox


@pytest.mark.parametrize("route", ["/sessions", "/step", "/reset"])
def test_a_client_gone_before_its_body_ended_is_no_crash(pool: PoolSandbox, route: str) -> None:
    manager = SessionManager([make_median_task()], pool)
    session = manager.open()
    session.reset(make_median_task())
    path = route if route == "/sessions" else f"/sessions/{session.id}{route}"
    sent = asyncio.run(_send_half_a_body(manager, path))
    assert sent[0]["status"] == 400  # never read, but answered as a refusal
    assert json.loads(sent[1]["body"])["code"] == "disconnected"
    assert len(manager) == 1  # no session was opened for it
    state = session.state()
    assert (state.task_id, state.steps) == ("median-1", 0)
    manager.close_all()


async def _send_half_a_body(manager: SessionManager, path: str) -> list[Message]:
    """``path`` POSTed with a body that stops halfway: the client closed its connection."""
    parts: list[Message] = [
        {"type": "http.request", "body": b'{"task_id": "med', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"100")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8400),
    }
    await create_app(manager)(scope, receive, send)  # a crash would raise here
    return sent


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def logged_errors() -> Iterator[list[str]]:
    """What the server logs as errors (``Exception in ASGI application``: a crash)."""
    handler = _Errors()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def test_websocket_clients_that_leave_without_a_word_crash_nothing(
    server: Running, logged_errors: list[str]
) -> None:
    reset = json.dumps({"type": "reset", "data": {"task_id": "median-1"}})
    with connect(server.ws_url) as ws:  # closes at the end of the block, sends no "close"
        ws.send(reset)
        assert json.loads(ws.recv(timeout=30))["type"] == "observation"
    with connect(server.ws_url) as dropped:
        dropped.send(reset)
        dropped.recv(timeout=30)
        call = {"tool": "run", "arguments": {"command": "sleep 0.5"}}
        dropped.send(json.dumps({"type": "step", "data": call}))
        dropped.socket.close()  # gone while its call runs: the reply finds nobody
    with server.client() as client:
        deadline = time.monotonic() + 20
        while client.health().sessions:
            assert time.monotonic() < deadline, "the sessions of the gone clients stayed open"
            time.sleep(0.05)
    time.sleep(0.5)  # the reply to the dropped client, and its close, come after the release
    assert logged_errors == []


def test_a_defect_met_over_the_websocket_is_logged_not_only_answered(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Over HTTP a defect of the server is a 500 and a logged traceback; over the WebSocket the
    client is told ``internal error`` and the session goes on, and the traceback is logged too,
    or nobody could ever find the defect."""

    def broken(self: Session, tool: str, arguments: object) -> object:
        raise KeyError("a defect")

    monkeypatch.setattr(Session, "step", broken)
    manager = SessionManager([make_median_task()], pool)
    http = TestClient(create_app(manager), base_url="http://127.0.0.1:8400")
    with http, http.websocket_connect("ws://127.0.0.1:8400/ws") as ws, caplog.at_level("ERROR"):
        ws.send_json({"type": "reset", "data": {"task_id": "median-1"}})
        assert ws.receive_json()["type"] == "observation"
        ws.send_json({"type": "step", "data": {"tool": "run", "arguments": {"command": "ls"}}})
        error = ws.receive_json()["data"]
        ws.send_json({"type": "state"})
        assert ws.receive_json()["type"] == "state"  # the session goes on
    assert error == {"message": "internal error: KeyError", "code": "EXECUTION_ERROR"}
    [record] = [r for r in caplog.records if r.name == "assay.server.openenv"]
    assert record.exc_info is not None
    assert "a defect" in str(record.exc_info[1])


def test_a_session_whose_creator_gave_up_waiting_is_not_kept(
    server: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that times out while its session is made never learns the session's id: kept,
    the session would hold a place under the cap, and its episode, until it idled out."""
    reset = Session.reset

    def slow(self: Session, task: Task) -> Observation:
        time.sleep(1.0)
        return reset(self, task)

    monkeypatch.setattr(Session, "reset", slow)
    with pytest.raises(httpx.TimeoutException):
        httpx.post(f"{server.url}/sessions", json={"task_id": "median-1"}, timeout=0.3)
    with server.client() as client:
        deadline = time.monotonic() + 10
        while client.health().sessions:
            assert time.monotonic() < deadline, "the session nobody knows of was kept"
            time.sleep(0.05)
        with client.session("median-1"):  # one waited for is kept
            assert client.health().sessions == 1
