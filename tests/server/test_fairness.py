"""One client's requests piled on its session hold neither the worker threads every session
shares nor their bodies in the server's memory."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from starlette.types import Message

from assay.sandbox import PoolSandbox
from assay.server import SessionManager, create_app
from tests.conftest import make_median_task
from tests.server.conftest import Running

pytestmark = pytest.mark.sandbox

HOGS = 60
"""Calls piled on one session: more than the server's worker threads (40)."""


def test_calls_piled_on_one_session_do_not_starve_another(server: Running) -> None:
    asyncio.run(_pile_up_then_step_elsewhere(server.url))


async def _pile_up_then_step_elsewhere(url: str) -> None:
    limits = httpx.Limits(max_connections=HOGS + 8)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        hog = await _open(http)
        victim = await _open(http)
        finished: list[int] = []

        async def sleep_on_hog() -> None:
            call = {"tool": "run", "arguments": {"command": "sleep 3"}}
            answer = await http.post(f"/sessions/{hog}/step", json=call)
            finished.append(answer.status_code)

        piled = [asyncio.create_task(sleep_on_hog()) for _ in range(HOGS)]
        await asyncio.sleep(1.0)  # the pile reaches the server
        call = {"tool": "read_file", "arguments": {"path": "solution.py"}}
        answered = await http.post(f"/sessions/{victim}/step", json=call)
        waited_for = len(finished)
        assert (await http.delete(f"/sessions/{hog}")).status_code == 204
        await asyncio.gather(*piled)
    assert answered.status_code == 200
    assert waited_for <= 1, f"the other session's call waited for {waited_for} of the pile"
    assert set(finished) <= {200, 404}


async def _open(http: httpx.AsyncClient) -> str:
    created = await http.post("/sessions", json={"task_id": "median-1"})
    assert created.status_code == 201
    session_id: str = created.json()["session_id"]
    return session_id


def test_a_call_waiting_for_its_turn_has_not_read_its_body(pool: PoolSandbox) -> None:
    """A pile of calls on one session holds no bodies in the server's memory: each stays in
    its socket until the call's turn comes (200 piled calls of 4 MiB held 1 GB)."""
    asyncio.run(_body_read_only_in_turn(pool))


async def _body_read_only_in_turn(pool: PoolSandbox) -> None:
    manager = SessionManager([make_median_task()], pool)
    app = create_app(manager)
    session = manager.open()
    session.reset(make_median_task())
    body = json.dumps({"tool": "read_file", "arguments": {"path": "solution.py"}}).encode()
    reads: list[int] = []
    sent: list[Message] = []

    async def receive() -> Message:
        reads.append(len(body))
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": f"/sessions/{session.id}/step",
        "raw_path": f"/sessions/{session.id}/step".encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8400),
    }
    async with session.turn:  # another call of the session is running
        queued = asyncio.create_task(app(scope, receive, send))
        for _ in range(100):
            await asyncio.sleep(0)
        assert reads == [], "the queued call read its body before its turn"
        assert not queued.done()
    await queued
    assert reads == [len(body)]
    assert sent[0]["status"] == 200
    manager.close_all()
