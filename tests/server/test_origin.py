"""A server without a token refuses web pages of other sites: a browser sends its page's
Origin, and a WebSocket (or a page whose name was rebound to 127.0.0.1) is not held back by the
browser's same-origin rule, so any page the user opened could otherwise run code through it."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from assay.sandbox import PoolSandbox
from assay.server import SessionManager, create_app
from tests.conftest import make_median_task

START = {"task_id": "median-1"}


@pytest.fixture
def manager(pool: PoolSandbox) -> SessionManager:
    return SessionManager([make_median_task()], pool)


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://127.0.0.1.evil.example:8400", "null", "x"]
)
def test_a_page_of_another_site_is_refused_without_a_token(
    manager: SessionManager, origin: str
) -> None:
    with TestClient(create_app(manager)) as http:
        refused = http.post("/sessions", json=START, headers={"Origin": origin})
        assert refused.status_code == 403
        assert refused.json()["code"] == "forbidden_origin"
        with pytest.raises(WebSocketDisconnect) as closed:
            _reset_over_websocket(http, {"Origin": origin})
        assert closed.value.code == 1008
        assert len(manager) == 0  # no session was opened for the page


@pytest.mark.parametrize("origin", [None, "http://localhost:5173", "http://127.0.0.1:8400"])
def test_clients_without_an_origin_or_on_this_machine_pass(
    manager: SessionManager, origin: str | None
) -> None:
    headers = {"Origin": origin} if origin else {}
    with TestClient(create_app(manager)) as http:
        made = http.post("/sessions", json=START, headers=headers)
        assert made.status_code == 201, made.text
        assert _reset_over_websocket(http, headers)["type"] == "observation"


def test_with_a_token_the_token_decides(manager: SessionManager) -> None:
    with TestClient(create_app(manager, token="s3cret")) as http:  # noqa: S106 - a test's token
        evil = {"Origin": "https://evil.example"}
        assert http.post("/sessions", json=START, headers=evil).status_code == 401
        allowed = {**evil, "Authorization": "Bearer s3cret"}
        assert http.post("/sessions", json=START, headers=allowed).status_code == 201


def _reset_over_websocket(http: TestClient, headers: dict[str, str]) -> dict[str, object]:
    with http.websocket_connect("/ws", headers=headers) as ws:
        ws.send_json({"type": "reset", "data": START})
        reply: dict[str, object] = ws.receive_json()
        return reply
