"""A scripted OpenAI-compatible server on loopback for every policy test that asks for one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.policies.server import ModelServer, serve


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    yield from serve()
