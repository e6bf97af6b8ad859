"""The Python client's errors: one line each, a refusal as :class:`EnvServerError`, a mistake
it can see before sending as :class:`InputError`, and the call sent as it was asked."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from assay.client import EnvClient, EnvServerError, EnvSession, SamplingSpec
from assay.errors import InputError
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from tests.server.conftest import running

START = {"session_id": "s1", "task_id": "t", "family": "code@5", "messages": [], "tools": []}


def _client(answer: Callable[[httpx.Request], httpx.Response]) -> EnvClient:
    return EnvClient("http://127.0.0.1:8400", transport=httpx.MockTransport(answer))


def _nested(depth: int) -> list[object]:
    nested: list[object] = []
    for _ in range(depth):
        nested = [nested]
    return nested


def _session(sent: list[httpx.Request]) -> EnvSession:
    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if request.url.path == "/sessions":
            return httpx.Response(201, json=START)
        return httpx.Response(200, json={"output": "", "ok": True, "done": False})

    return _client(answer).session("t")


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (httpx.Response(502, text="<html>\n <h1>Bad gateway</h1>\n</html>\n"), "502 http_error: "),
        (httpx.Response(500), "500 http_error: Internal Server Error"),
        (httpx.Response(404, json={"error": "no\nsuch", "code": "x"}), "404 x: no such"),
    ],
)
def test_an_error_answer_is_one_line(answer: httpx.Response, message: str) -> None:
    with pytest.raises(EnvServerError) as refused, _client(lambda _: answer) as client:
        client.health()
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)
    assert refused.value.status == answer.status_code


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1", "base_url: 'http://[::1' is not a URL"),
        ("127.0.0.1:8400", "base_url: '127.0.0.1:8400' is not an http(s) URL"),
        ("ftp://example.org", "is not an http(s) URL"),
    ],
)
def test_a_url_that_is_no_http_url_is_bad_input(url: str, said: str) -> None:
    with pytest.raises(InputError) as wrong:
        EnvClient(url)
    assert said in str(wrong.value)
    assert "such as http://127.0.0.1:8400" in str(wrong.value)  # the fix
    assert "http://127.0.0.1:8400" in str(wrong.value)  # the fix shows one  # the fix shows one


@pytest.mark.parametrize("token", ["two\nlines", " padded", "tab\t"])
def test_a_token_no_header_can_carry_is_bad_input_without_repeating_it(token: str) -> None:
    with pytest.raises(InputError) as wrong:
        EnvClient("http://127.0.0.1:8400", token=token)
    assert str(wrong.value).startswith("token: the token ")
    assert token.strip() not in str(wrong.value)


def test_a_call_the_client_can_tell_is_wrong_is_one_line_of_bad_input() -> None:
    sent: list[httpx.Request] = []
    session = _session(sent)
    with pytest.raises(InputError) as empty:
        session.step("")
    assert str(empty.value).startswith("tool: String should have at least 1 character")
    for number in (float("nan"), float("inf")):
        with pytest.raises(InputError) as infinite:
            session.step("run", {"command": "echo", "n": number})  # sent as null before
        assert str(infinite.value).startswith("arguments: cannot be sent as JSON")
    with pytest.raises(InputError) as both:
        session.reset("t", sample=SamplingSpec())
    assert str(both.value).startswith("(the request): give exactly one of task_id and sample")
    assert [request.url.path for request in sent] == ["/sessions"]  # none of them was sent
    session.step("run", {"command": "echo", "n": 1.5})
    assert json.loads(sent[-1].content)["arguments"] == {"command": "echo", "n": 1.5}


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"path": object()}, "arguments: cannot be sent as JSON (Object of type object is not"),
        ({"path": b"\xff"}, "arguments: cannot be sent as JSON (Object of type bytes is not"),
        ({"path": {"a", "b"}}, "arguments: cannot be sent as JSON (Object of type set is not"),
        ({"path": Path("a.py")}, "arguments: cannot be sent as JSON (Object of type PosixPath"),
        ("solution.py", "arguments: the arguments are str, not a mapping"),
        ([("path", "a.py")], "arguments: the arguments are list, not a mapping"),
        ({"path": _nested(100_000)}, "arguments: cannot be sent as JSON: nested too deeply"),
    ],
)
def test_arguments_json_cannot_carry_are_bad_input_not_sent_as_something_else(
    arguments: object, said: str
) -> None:
    """A value JSON has no room for raised pydantic's own error, or was sent as another value
    (a set as a list, a Path as text); arguments that are no mapping raised a ValueError, or
    were read as pairs."""
    sent: list[httpx.Request] = []
    session = _session(sent)
    with pytest.raises(InputError) as wrong:
        session.step("read_file", arguments)  # type: ignore[arg-type]
    assert str(wrong.value).startswith(said)
    assert "\n" not in str(wrong.value)
    assert [request.url.path for request in sent] == ["/sessions"]


@pytest.mark.parametrize("timeout", [-1, 0, math.nan, math.inf, "10", True])
def test_a_timeout_that_is_no_time_to_wait_is_bad_input(timeout: object) -> None:
    """httpx took these and failed at the first request with its own ValueError, TypeError or
    OverflowError, or (0) called every server unreachable."""
    with pytest.raises(InputError) as wrong:
        EnvClient("http://127.0.0.1:8400", timeout_s=timeout)  # type: ignore[arg-type]
    assert str(wrong.value).startswith(f"timeout_s: {timeout!r} is not a positive, finite number")


def test_a_timeout_of_none_waits_as_long_as_it_takes() -> None:
    seen: list[object] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(200, json={"status": "ok", "sessions": 0, "max_sessions": 1})

    transport = httpx.MockTransport(answer)
    with EnvClient("http://127.0.0.1:8400", timeout_s=None, transport=transport) as client:
        client.health()
    assert seen == [{"connect": None, "read": None, "write": None, "pool": None}]


def test_a_server_that_is_down_is_named(unused_port: int) -> None:
    with pytest.raises(EnvServerError) as down, EnvClient(f"http://127.0.0.1:{unused_port}") as c:
        c.health()
    assert (down.value.status, down.value.code) == (0, "unreachable")
    assert str(down.value).startswith(f"no answer from http://127.0.0.1:{unused_port}")


@pytest.fixture
def unused_port() -> int:
    import socket  # noqa: PLC0415

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.sandbox
def test_a_token_beyond_ascii_is_sent_as_the_server_takes_it(
    pool: PoolSandbox, median_tasks: list[Task]
) -> None:
    token = "pässwörd-€-1"  # noqa: S105 - the test's token; `assay serve --token` takes it
    with running(median_tasks, pool, token=token) as live:
        with live.client(token) as client:
            assert client.health().status == "ok"
        with pytest.raises(EnvServerError) as wrong, live.client("pässwörd-€-2") as client:
            client.health()
        assert wrong.value.status == 401
