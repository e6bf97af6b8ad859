"""A server without a token refuses web pages of other sites: a browser sends its page's
Origin, and a WebSocket is not held back by the browser's same-origin rule, so any page the user
opened could otherwise run code through it. A page whose name was rebound to 127.0.0.1 sends no
Origin of another site, but its own name as the Host, which must be loopback."""

from __future__ import annotations

import httpx
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from assay.sandbox import PoolSandbox
from assay.server import SessionManager, create_app
from tests.conftest import make_median_task
from tests.server.conftest import Running

START = {"task_id": "median-1"}
LOOPBACK = "http://127.0.0.1:8400"
"""Where the test client says it sends its requests (the Host header): its own default,
``testserver``, is no loopback name, and a server without a token refuses it."""


def _client(manager: SessionManager, token: str | None = None) -> TestClient:
    return TestClient(create_app(manager, token=token), base_url=LOOPBACK)


@pytest.fixture
def manager(pool: PoolSandbox) -> SessionManager:
    return SessionManager([make_median_task()], pool)


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://127.0.0.1.evil.example:8400", "null", "x"]
)
def test_a_page_of_another_site_is_refused_without_a_token(
    manager: SessionManager, origin: str
) -> None:
    with _client(manager) as http:
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
    with _client(manager) as http:
        made = http.post("/sessions", json=START, headers=headers)
        assert made.status_code == 201, made.text
        assert _reset_over_websocket(http, headers)["type"] == "observation"


def test_with_a_token_the_token_decides(manager: SessionManager) -> None:
    with _client(manager, token="s3cret") as http:  # noqa: S106 - a test's token
        evil = {"Origin": "https://evil.example"}
        assert http.post("/sessions", json=START, headers=evil).status_code == 401
        allowed = {**evil, "Authorization": "Bearer s3cret"}
        assert http.post("/sessions", json=START, headers=allowed).status_code == 201


def _reset_over_websocket(http: TestClient, headers: dict[str, str]) -> dict[str, object]:
    with http.websocket_connect(f"{LOOPBACK.replace('http', 'ws')}/ws", headers=headers) as ws:
        ws.send_json({"type": "reset", "data": START})
        reply: dict[str, object] = ws.receive_json()
        return reply


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:8400",
        "evil.example",
        "127.0.0.1.evil.example:8400",
        "localhost.evil.example",
        "evil.example@127.0.0.1:8400",
        "127.0.0.1:8400/x",
        "[::1]x",
        "0.0.0.0:8400",
        "10.1.2.3:8400",
        "",
    ],
)
def test_a_page_rebound_to_loopback_is_refused_by_its_host(
    manager: SessionManager, host: str
) -> None:
    """The page of a name rebound to 127.0.0.1 sends no Origin of another site: only its Host
    gives it away, on reads as on the WebSocket."""
    headers = {"Host": host}
    with _client(manager) as http:
        for answer in (
            http.get("/health", headers=headers),
            http.get("/tasks", headers=headers),
            http.get("/openapi.json", headers=headers),
            http.post("/sessions", json=START, headers=headers),
        ):
            assert answer.status_code == 403
            assert answer.json()["code"] == "forbidden_host"
            assert "Host header" in answer.json()["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            _reset_over_websocket(http, headers)
        assert (closed.value.code, closed.value.reason) == (1008, "forbidden host")
        assert len(manager) == 0


def test_a_rebound_page_with_its_own_origin_is_refused_too(manager: SessionManager) -> None:
    page = {"Host": "evil.example:8400", "Origin": "http://evil.example:8400"}
    with _client(manager) as http:
        assert http.get("/tasks", headers=page).status_code == 403


@pytest.mark.parametrize(
    "host",
    ["localhost", "localhost:8400", "LocalHost:8400", "127.0.0.1:8400", "127.5.6.7", "[::1]:8400"],
)
def test_loopback_hosts_pass(manager: SessionManager, host: str) -> None:
    headers = {"Host": host}
    with _client(manager) as http:
        assert http.get("/tasks", headers=headers).status_code == 200
        assert _reset_over_websocket(http, headers)["type"] == "observation"


def test_with_a_token_any_host_may_use_it(manager: SessionManager) -> None:
    """A server on 0.0.0.0 has a token, and its clients name it as they reach it."""
    headers = {"Host": "gpu-box.internal:8400", "Authorization": "Bearer s3cret"}
    with _client(manager, token="s3cret") as http:  # noqa: S106 - a test's token
        assert http.get("/tasks", headers=headers).status_code == 200
        assert http.get("/tasks", headers={"Host": "gpu-box.internal:8400"}).status_code == 401


def test_a_rebound_page_cannot_read_a_running_server(server: Running) -> None:
    """As the browser sends it: a same-origin GET of the rebound name, no Origin at all."""
    port = server.url.rsplit(":", 1)[1]
    with httpx.Client(base_url=server.url) as http:
        rebound = http.get("/tasks", headers={"Host": f"evil.example:{port}"})
        assert rebound.status_code == 403
        assert "median-1" not in rebound.text
        assert http.get("/tasks", headers={"Host": f"localhost:{port}"}).status_code == 200
