"""Where judges are asked: the API key goes only to the endpoint the operator configured, never
to a base_url a task's rubric names elsewhere (auditing a task set must not hand the key to its
author), and a URL no request can be sent to is one line naming where it came from."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assay.errors import InputError, TaskFormatError
from assay.families.code import CodeFamily
from assay.families.code.rubric import task_rubric
from assay.judges import API_KEY_ENV, BASE_URL_ENV, JudgeSpec, ModelJudge
from assay.judges.prompt import nonce_of, score_text
from assay.sandbox import LocalSandbox
from tests.conftest import REFERENCE, make_median_task


class _Recorder(ThreadingHTTPServer):
    daemon_threads = True
    keys: list[str]
    status: int


@pytest.fixture
def recorder() -> Iterator[_Recorder]:
    """A loopback chat-completions endpoint that keeps each request's Authorization header
    and answers 7 (or ``status``, when it is not 200)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            """Quiet."""

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            server.keys.append(self.headers.get("authorization", ""))
            content = score_text(7, nonce_of(body["messages"]) or "?")
            answer = {"choices": [{"message": {"role": "assistant", "content": content}}]}
            payload = json.dumps(answer if server.status == 200 else {"error": {}}).encode()
            self.send_response(server.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = _Recorder(("127.0.0.1", 0), Handler)
    server.keys, server.status = [], 200
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: _Recorder) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def _grade(base_url: str | None) -> float | None:
    spec = JudgeSpec(model="judge", question="Is it sorted?", base_url=base_url, retries=0)
    return ModelJudge(spec).grade(make_median_task(), REFERENCE.decode()).score


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_KEY_ENV, "judge-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "openai-secret")
    monkeypatch.delenv(BASE_URL_ENV, raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.mark.usefixtures("keys")
def test_a_rubrics_own_endpoint_gets_no_key(recorder: _Recorder) -> None:
    assert _grade(_url(recorder)) == 0.7  # judged all the same: local servers need no key
    assert recorder.keys == ["Bearer EMPTY"]


@pytest.mark.usefixtures("keys")
def test_the_configured_endpoint_gets_the_key(
    recorder: _Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BASE_URL_ENV, _url(recorder))
    assert _grade(None) == 0.7
    assert _grade(_url(recorder).replace("/v1", "/v1/")) == 0.7  # the same origin, named again
    assert recorder.keys == ["Bearer judge-secret"] * 2
    monkeypatch.delenv(API_KEY_ENV)
    assert _grade(None) == 0.7
    assert recorder.keys[-1] == "Bearer openai-secret"


@pytest.mark.usefixtures("keys")
def test_an_endpoint_refusing_the_missing_key_says_why(recorder: _Recorder) -> None:
    recorder.status = 401
    spec = JudgeSpec(model="judge", question="Is it sorted?", base_url=_url(recorder), retries=0)
    graded = ModelJudge(spec).grade(make_median_task(), REFERENCE.decode())
    assert graded.unreachable
    assert f"no API key is sent to {_url(recorder)}: set {BASE_URL_ENV}" in graded.record.note


@pytest.mark.parametrize(
    "url",
    [
        "http://x/\\n",  # a control character: the HTTP client refuses to send it
        "http://[::1/v1",  # a bracket left open
        "https://127.0.0.1:99999/v1",  # no such port
        "http:///v1",  # no host
        "http://\\u00e9\\u200b.example/v1",  # not a host name IDNA can encode
    ],
)
def test_a_rubric_url_no_request_can_be_sent_to_is_one_line(url: str) -> None:
    rubric = (
        '[[criteria]]\nname = "doc"\nkind = "judge"\nmodel = "m"\nquestion = "q?"\n'
        f'base_url = "{url}"\n'
    )
    task = make_median_task()
    task = task.model_copy(update={"hidden": {**task.hidden, "rubric.toml": rubric.encode()}})
    with pytest.raises(TaskFormatError) as caught:
        task_rubric(task)
    message = str(caught.value)
    assert message.startswith("median-1/hidden/rubric.toml: criteria[0].base_url: ")
    assert "is not a URL a request can be sent to (an http:// or https:// URL" in message
    with pytest.raises(TaskFormatError):  # never an internal error out of the HTTP client
        CodeFamily().verify(task, {"solution.py": REFERENCE}, LocalSandbox())


def test_a_configured_url_no_request_can_be_sent_to_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(BASE_URL_ENV, "http://judge:8000/v1\n")
    with pytest.raises(InputError) as caught:
        ModelJudge(JudgeSpec(model="judge", question="Is it sorted?"))
    assert str(caught.value).startswith(
        f"{BASE_URL_ENV}: 'http://judge:8000/v1\\n' is not a URL a request can be sent to (set "
    )
    # a rubric naming its own endpoint does not need the configured one
    spec = JudgeSpec(model="judge", question="Is it sorted?", base_url="http://127.0.0.1:9/v1")
    assert not ModelJudge(spec).keyed
