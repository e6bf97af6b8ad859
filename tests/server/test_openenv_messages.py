"""OpenEnv's /ws refuses a message that is JSON but not an object as the client's mistake."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

from tests.server.conftest import Running

pytestmark = pytest.mark.sandbox


@pytest.mark.parametrize("text", ["[1, 2]", '"state"', "null", "7"])
def test_a_message_that_is_not_an_object_is_a_validation_error(server: Running, text: str) -> None:
    with connect(server.ws_url) as ws:
        ws.send(text)
        error = json.loads(ws.recv(timeout=30))
        assert error["type"] == "error"
        assert error["data"]["code"] == "VALIDATION_ERROR"
        assert "internal" not in error["data"]["message"]
        assert "JSON object" in error["data"]["message"]
        ws.send(json.dumps({"type": "state"}))
        assert json.loads(ws.recv(timeout=30))["type"] == "state"
