"""Refusals: the token, the session cap, the idle timeout, unknown ids, large and bad bodies."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assay.client import EnvServerError
from assay.errors import InputError
from assay.sandbox import PoolSandbox
from assay.server import ServerLimits, check_binding, is_loopback
from assay.tasks import Task, save_task
from tests.conftest import make_median_task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox
TOKEN = "correct-horse-battery"  # noqa: S105 - the test's token


def test_with_a_token_every_request_needs_it(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    with running(median_tasks, pool, token=TOKEN) as live:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            for method, path in (("GET", "/health"), ("POST", "/sessions"), ("GET", "/tasks")):
                answer = httpx.request(method, f"{live.url}{path}", headers=headers)
                assert answer.status_code == 401, (headers, path)
                assert answer.json()["code"] == "unauthorized"
        with pytest.raises(EnvServerError) as refused, live.client("wrong") as client:
            client.health()
        assert refused.value.status == 401
        with live.client(TOKEN) as client, client.session("median-1") as session:
            assert client.health().sessions == 1
            assert session.step("read_file", {"path": "solution.py"}).done is False


def test_serving_a_public_address_without_a_token_is_refused(
    tmp_path: Path, run_cli: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = "0.0.0.0"  # noqa: S104 - the address being refused
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback(public)
    with pytest.raises(InputError, match="without a token"):
        check_binding(public, None)
    check_binding(public, TOKEN)  # with a token it may
    monkeypatch.delenv("ASSAY_TOKEN", raising=False)
    tasks = tmp_path / "tasks"
    save_task(make_median_task(), tasks)
    result = run_cli("serve", "--env-only", "--tasks", str(tasks), "--host", public)  # type: ignore[operator]
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: host: refusing to serve 0.0.0.0 without a token")


def test_past_the_cap_a_new_session_is_refused(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    with running(median_tasks, pool, limits=ServerLimits(max_sessions=2)) as live:
        client = live.client()
        first, _second = client.session("median-1"), client.session("median-2")
        with pytest.raises(EnvServerError) as refused:
            client.session("median-1")
        assert refused.value.status == 503
        assert refused.value.code == "capacity"
        assert "cap" in refused.value.message
        first.close()
        client.session("median-1")  # a slot is free again
        client.close()


def test_an_idle_session_is_reclaimed(pool: PoolSandbox, median_tasks: list[Task]) -> None:
    limits = ServerLimits(idle_timeout_s=0.4)
    with running(median_tasks, pool, limits=limits) as live, live.client() as client:
        idle = client.session("median-1")
        busy = client.session("median-1")
        deadline = time.monotonic() + 10
        while client.health().sessions > 1:
            busy.step("write_file", {"path": "a.txt", "content": "still here"})
            assert time.monotonic() < deadline, "the idle session was never reclaimed"
            time.sleep(0.1)
        with pytest.raises(EnvServerError) as gone:
            idle.step("read_file", {"path": "solution.py"})
        assert gone.value.status == 404
        assert busy.step("read_file", {"path": "a.txt"}).output == "still here"


def test_a_reclaimed_session_releases_its_episode(pool: PoolSandbox) -> None:
    from assay.server import SessionManager  # noqa: PLC0415

    now = [0.0]
    manager = SessionManager(
        [make_median_task()], pool, limits=ServerLimits(idle_timeout_s=5), clock=lambda: now[0]
    )
    session = manager.open()
    session.reset(make_median_task())
    released: list[bool] = []
    assert session.episode is not None
    session.episode.toolset.close = lambda: released.append(True)  # type: ignore[attr-defined]
    now[0] = 4.0
    assert manager.reap() == []
    now[0] = 9.5
    assert manager.reap() == [session.id]
    assert released == [True]
    assert len(manager) == 0


@pytest.fixture
def live(pool: PoolSandbox, median_tasks: list[Task]) -> Iterator[str]:
    limits = ServerLimits(max_body_bytes=64 * 1024)
    with running(median_tasks, pool, limits=limits) as server:
        yield server.url


def test_another_sessions_id_is_refused(live: str) -> None:
    with httpx.Client(base_url=live) as http:
        mine = http.post("/sessions", json={"task_id": "median-1"}).json()["session_id"]
        closed = http.post("/sessions", json={"task_id": "median-1"}).json()["session_id"]
        assert http.delete(f"/sessions/{closed}").status_code == 204
        for sid in (closed, "x" * 32, mine[:-1], "../" + mine):
            for method, path in (
                ("GET", ""),
                ("POST", "/step"),
                ("POST", "/submit"),
                ("POST", "/reset"),
                ("DELETE", ""),
            ):
                body = {"tool": "read_file", "arguments": {"path": "solution.py"}}
                answer = http.request(method, f"/sessions/{sid}{path}", json=body)
                assert answer.status_code == 404, (sid, method, path)
        assert http.get(f"/sessions/{mine}").status_code == 200


def test_an_oversized_body_is_refused(live: str) -> None:
    big = {"tool": "write_file", "arguments": {"path": "a.txt", "content": "x" * 100_000}}
    with httpx.Client(base_url=live) as http:
        sid = http.post("/sessions", json={"task_id": "median-1"}).json()["session_id"]
        answer = http.post(f"/sessions/{sid}/step", json=big)
        assert answer.status_code == 413
        assert answer.json()["code"] == "too_large"

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
            yield b'{"task_id": "'
            for _ in range(100):
                yield b"a" * 1024
            yield b'"}'

        assert http.post("/sessions", content=chunks()).status_code == 413
        assert http.get(f"/sessions/{sid}").json()["steps"] == 0


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/sessions", b"{not json", 400),
        ("/sessions", b"", 400),
        ("/sessions", b"[1, 2]", 422),
        ("/sessions", b'{"task_id": "median-1", "sample": {}}', 422),
        ("/sessions", b'{"sample": {"weights": {"code": -1}}}', 422),
        ("/sessions", b'{"task_id": "no-such-task"}', 404),
        ("/sessions", b"\xff\xfe", 400),
        ("/sessions", b"[" * 100_000, 413),
        ("/sessions", b"[" * 10_000 + b"]" * 10_000, 400),
        ("STEP", b"{bad", 400),
        ("STEP", b'{"tool": "run", "arguments": "ls"}', 422),
        ("STEP", b'{"arguments": {}}', 422),
        ("STEP", b'{"tool": "run", "arguments": {}, "extra": 1}', 422),
    ],
)
def test_malformed_requests_are_refused_without_a_500(
    live: str, path: str, body: bytes, status: int
) -> None:
    with httpx.Client(base_url=live) as http:
        if path == "STEP":
            sid = http.post("/sessions", json={"task_id": "median-1"}).json()["session_id"]
            path = f"/sessions/{sid}/step"
        answer = http.post(path, content=body, headers={"Content-Type": "application/json"})
        assert answer.status_code == status, answer.text
        assert answer.json()["code"]


def test_unknown_routes_and_methods_answer_with_a_problem(live: str) -> None:
    assert httpx.get(f"{live}/nowhere").status_code == 404
    assert httpx.get(f"{live}/nowhere").json()["code"] == "not_found"
    assert httpx.put(f"{live}/sessions").status_code == 405


def test_an_episode_past_its_sandbox_cpu_budget_ends_as_a_fail(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    limits = ServerLimits(max_sandbox_cpu_s=0.01)
    with (
        running(median_tasks, pool, limits=limits) as live,
        live.client() as client,
        client.session("median-1") as session,
    ):
        burn = session.step("run", {"command": "python -c 'sum(range(3 * 10**6))'"})
        assert burn.done
        assert "sandbox CPU budget spent" in burn.output
        assert burn.verdict is not None
        assert burn.verdict.status == "fail"
        assert burn.reward == 0.0
        assert session.step("run", {"command": "echo again"}).ok is False
