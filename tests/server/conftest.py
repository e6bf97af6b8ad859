"""A real environment server on loopback, in a thread, over a few code tasks."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import uvicorn

from assay.client import EnvClient
from assay.sandbox import PoolSandbox
from assay.server import ServerLimits, build_server
from assay.tasks import Task
from tests.conftest import REFERENCE, make_median_task

WRONG = b"def median(values):\n    return values[len(values) // 2] if values else None\n"


@dataclass(frozen=True)
class Running:
    """A server listening on loopback."""

    url: str
    server: uvicorn.Server

    def client(self, token: str | None = None) -> EnvClient:
        return EnvClient(self.url, token=token)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"


@contextmanager
def running(
    tasks: Sequence[Task],
    sandbox: PoolSandbox,
    *,
    token: str | None = None,
    limits: ServerLimits | None = None,
    pass_rates: dict[str, float] | None = None,
) -> Iterator[Running]:
    """The server of ``tasks`` on a free loopback port, stopped at the end."""
    server = build_server(
        tasks,
        sandbox,
        host="127.0.0.1",
        port=0,
        token=token,
        limits=limits,
        pass_rates=pass_rates,
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive(), "the server stopped while starting"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Running(url=f"http://127.0.0.1:{port}", server=server)
    finally:
        server.should_exit = True
        thread.join(timeout=20)


@pytest.fixture(scope="session")
def median_tasks() -> list[Task]:
    return [
        make_median_task("median-1"),
        make_median_task("median-2", tags=("stats",)),
        make_secret_task(),
    ]


@pytest.fixture
def server(pool: PoolSandbox, median_tasks: list[Task]) -> Iterator[Running]:
    with running(median_tasks, pool) as live:
        yield live


SECRET = "zebra-4815162342"  # noqa: S105 - an expected value, not a password
"""An expected value no response may ever show."""


def make_secret_task(task_id: str = "secret-1") -> Task:
    """A code task whose expected outputs are distinctive strings, to look for in responses."""
    from assay.families.code.config import Case, cases_json  # noqa: PLC0415
    from assay.tasks import Limits, TaskSpec  # noqa: PLC0415

    cases = [Case(id=f"case-{n}", args=[n], expected=f"{SECRET}-{n}") for n in range(3)]
    reference = f"def tag(n):\n    return '{SECRET}-' + str(n)\n".encode()
    return Task(
        spec=TaskSpec(
            id=task_id,
            family="code",
            config={"function": "tag"},
            limits=Limits(timeout_s=5, memory_mb=256),
        ),
        prompt="Write `tag(n)` in solution.py: the tag of record n.\n",
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": reference}},
    )


__all__ = ["REFERENCE", "SECRET", "WRONG", "Running", "make_secret_task", "running"]
