"""Bodies and messages are standard JSON: what Python's parser takes beyond it (NaN, Infinity, a
number past a double) is refused as bad JSON, and every refusal says what is wrong in words a
client can act on, not the server's Python."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from assay.sandbox import PoolSandbox
from assay.server import SessionManager, create_app
from tests.conftest import make_median_task

pytestmark = pytest.mark.sandbox
LOOPBACK = "http://127.0.0.1:8400"


@pytest.fixture
def http(pool: PoolSandbox) -> TestClient:
    return TestClient(create_app(SessionManager([make_median_task()], pool)), base_url=LOOPBACK)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (b"NaN", "holds NaN, which is not JSON"),
        (b"-Infinity", "holds -Infinity, which is not JSON"),
        (b"1e309", "holds the number 1e309, too large for a double"),
        (b"1" * 5000, "holds an integer of more than 4300 digits"),
        (b"[1,]", "is not valid JSON (Expecting value at line 1 column"),
    ],
)
def test_what_json_does_not_allow_is_refused_and_named(
    http: TestClient, value: bytes, said: str
) -> None:
    with http:
        sid = http.post("/sessions", json={"task_id": "median-1"}).json()["session_id"]
        call = b'{"tool": "run", "arguments": {"command": "echo hi", "n": %s}}' % value
        answer = http.post(f"/sessions/{sid}/step", content=call)
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "bad_json"
        assert answer.json()["error"].startswith(f"the body {said}")
        assert http.get(f"/sessions/{sid}").json()["steps"] == 0  # the call was never made
        with http.websocket_connect(f"{LOOPBACK.replace('http', 'ws')}/ws") as ws:
            ws.send_text('{"type": "reset", "data": {"seed": ' + value.decode() + "}}")
            error = ws.receive_json()
        assert error["type"] == "error"
        assert error["data"]["code"] == "INVALID_JSON"
        assert error["data"]["message"].startswith(f"the message {said}")
        assert "sys." not in error["data"]["message"]


def test_a_refusal_naming_what_the_client_sent_stays_one_line(http: TestClient) -> None:
    breaks = "a\nb\r\u2028c"
    with http:
        answer = http.post("/sessions", json={"task_id": "median-1", breaks: 1})
        assert answer.status_code == 422
        assert answer.json()["error"] == "'a\\nb\\r\\u2028c': Extra inputs are not permitted"
        with http.websocket_connect(f"{LOOPBACK.replace('http', 'ws')}/ws") as ws:
            ws.send_json({"type": "reset", "data": {"task_id": "median-1"}})
            assert ws.receive_json()["type"] == "observation"
            ws.send_json({"type": "step", "data": {"tool": "run", breaks: 1}})
            extra = ws.receive_json()["data"]["message"]
            ws.send_json({"type": breaks})
            unknown = ws.receive_json()["data"]["message"]
    for message in (extra, unknown):
        assert not any(mark in message for mark in "\n\r\u2028"), message
    assert unknown == "Unknown message type: 'a\\nb\\r\\u2028c'"


def test_a_split_that_does_not_exist_is_named_not_searched_for(http: TestClient) -> None:
    """A typo in the split is the client's field, not a search that found nothing."""
    answer = http.post("/sessions", json={"sample": {"split": "training"}})
    assert answer.status_code == 422
    assert answer.json() == {
        "error": "sample.split: Input should be 'train', 'dev', 'test' or 'frozen'",
        "code": "invalid",
    }
    assert http.post("/sessions", json={"sample": {"split": "train"}}).status_code == 201
