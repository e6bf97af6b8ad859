"""A loopback OpenAI-compatible server whose answers are computed from each request."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.policies.server import Action, ModelServer, serve

Responder = Callable[[dict[str, Any]], Action]


@dataclass
class JudgeServer(ModelServer):
    """The policy tests' server, answering through ``responder`` when one is set."""

    responder: Responder | None = None

    def next_action(self, body: dict[str, Any]) -> Action:
        if self.responder is None:
            return super().next_action(body)
        with self._lock:
            self.requests.append(body)
        return self.responder(body)


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    yield from serve(JudgeServer)


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
