"""A real OpenAI-compatible HTTP server on loopback, scripted per test.

It serves ``/v1/chat/completions`` and ``/v1/models`` with the standard library's HTTP server, so
the policy under test talks HTTP through the ``openai`` package exactly as it would to vLLM. Each
chat request takes the next scripted action; when the script runs out, the last action repeats.
The probe a run sends before its episodes (:data:`PROBE_PROMPT`) is answered apart, by
``probe_answer``, and kept in ``probes``, so that a script plays to episodes only. A server set
with ``tools_refused`` answers every request offering tools (probe or not) with a 400 of that
message, as vLLM does when started without ``--enable-auto-tool-choice``.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from assay.policies.openai_chat import PROBE_PROMPT

VLLM_NO_TOOLS = (
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
)
"""What vLLM answers (400) to a request with tools when started without tool calling."""


@dataclass(frozen=True)
class Reply:
    """A completion: text and/or tool calls (name, raw argument text)."""

    content: str | None = None
    tool_calls: tuple[tuple[str, str], ...] = ()
    model: str = "served-model-v1"
    prompt_tokens: int = 100
    completion_tokens: int = 20
    delay_s: float = 0.0
    refusal: str | None = None


@dataclass(frozen=True)
class Status:
    """An HTTP error status with an OpenAI-style error body."""

    code: int
    message: str = "scripted failure"
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Raw:
    """A 200 answer with this body, verbatim (for malformed answers)."""

    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Trickle:
    """A well-formed answer sent one byte every ``pause_s``, so that no single read waits long."""

    reply: Reply
    pause_s: float = 0.1


@dataclass(frozen=True)
class Drop:
    """The connection closed without an answer."""


@dataclass(frozen=True)
class Wire:
    """These bytes written to the connection as they are (no status line or headers of the
    server's own), then the connection closed: for answers that are not HTTP."""

    data: bytes


Action = Reply | Status | Raw | Trickle | Drop | Wire


def call(name: str, **arguments: object) -> tuple[str, str]:
    """A well-formed tool call for a Reply."""
    return (name, json.dumps(arguments))


@dataclass
class ModelServer:
    """The server's script and what it was asked."""

    base_url: str
    models: list[str] = field(default_factory=lambda: ["served-model-v1"])
    models_answer: Raw | Wire | None = None
    """When set, what ``/v1/models`` answers instead of the list of ``models``."""
    script: list[Action] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    tools_refused: str | None = None
    """When set, every request with tools is answered 400 with this message."""
    parses_arguments: bool = False
    """When set, a request whose conversation holds a tool call with arguments that are no JSON
    object is answered 400, as vLLM's older releases did when rendering the chat template."""
    probe_answer: Action | None = None
    """What a run's probe is answered; None: a short well-formed reply."""
    probes: list[dict[str, Any]] = field(default_factory=list)
    """The probes asked, in order (not in ``requests``)."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """The headers of each chat request, in order."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def play(self, *actions: Action) -> None:
        """Answer the next chat requests with ``actions``, in order."""
        with self._lock:
            self.script = list(actions)
            self.requests.clear()

    def answer(self, body: dict[str, Any]) -> Action:
        """The action for one chat request: a refusal of its tools, the probe's answer, or
        the next of the script."""
        messages = body.get("messages") or [{}]
        if messages[-1].get("content") == PROBE_PROMPT:
            with self._lock:
                self.probes.append(body)
            if self.tools_refused is not None and body.get("tools"):
                return Status(400, self.tools_refused)
            return self.probe_answer or Reply(content="ready")
        if self.tools_refused is not None and body.get("tools"):
            with self._lock:
                self.requests.append(body)
            return Status(400, self.tools_refused)
        unparsed = self.parses_arguments and _unparsed_arguments(messages)
        if unparsed:
            with self._lock:
                self.requests.append(body)
            return Status(400, unparsed)
        return self.next_action(body)

    def next_action(self, body: dict[str, Any]) -> Action:
        with self._lock:
            self.requests.append(body)
            if not self.script:
                return Status(500, "the test gave no script")
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]


def _unparsed_arguments(messages: list[dict[str, Any]]) -> str | None:
    """The error of the first tool call in ``messages`` whose arguments are no JSON object."""
    for message in messages:
        for sent in message.get("tool_calls") or ():
            try:
                value = json.loads(sent["function"]["arguments"])
            except ValueError as exc:
                return str(exc)
            if not isinstance(value, dict):
                return "tool call arguments must be an object"
    return None


def _completion(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.refusal is not None:
        message["refusal"] = reply.refusal
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(reply.tool_calls)
        ]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: object) -> None:
            """Quiet."""

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                self._send(404, {"error": {"message": "not found"}})
                return
            answer = server.models_answer
            if isinstance(answer, Wire):
                self._wire(answer.data)
                return
            if answer is not None:
                self._send_bytes(200, answer.body, answer.headers, answer.content_type)
                return
            data = [{"id": m, "object": "model", "owned_by": "test"} for m in server.models]
            self._send(200, {"object": "list", "data": data})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": "not found"}})
                return
            server.headers.append({name.lower(): value for name, value in self.headers.items()})
            action = server.answer(body)
            if isinstance(action, Status):
                error = {"error": {"message": action.message, "type": "test", "code": None}}
                self._send(action.code, error, action.headers)
            elif isinstance(action, Raw):
                self._send_bytes(200, action.body, action.headers, action.content_type)
            elif isinstance(action, Trickle):
                self._trickle(json.dumps(_completion(action.reply)).encode(), action.pause_s)
            elif isinstance(action, Drop):
                self.close_connection = True
            elif isinstance(action, Wire):
                self._wire(action.data)
            else:
                time.sleep(action.delay_s)
                self._send(200, _completion(action))

        def _wire(self, data: bytes) -> None:
            self.close_connection = True
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def _send(self, code: int, data: object, headers: tuple[tuple[str, str], ...] = ()) -> None:
            self._send_bytes(code, json.dumps(data).encode(), headers)

        def _trickle(self, payload: bytes, pause_s: float) -> None:
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                for byte in payload:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(pause_s)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up

        def _send_bytes(
            self,
            code: int,
            payload: bytes,
            headers: tuple[tuple[str, str], ...] = (),
            content_type: str = "application/json",
        ) -> None:
            try:
                self.send_response(code)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout under test)

    return Handler


Served = TypeVar("Served", bound="ModelServer")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # many clients connecting at once are queued, not refused


def serve(kind: type[Served] = ModelServer) -> Iterator[Served]:
    """Start a server (``kind``: ModelServer or a subclass) on a free loopback port; stop it
    when the generator is closed."""
    httpd = _Server(("127.0.0.1", 0), _handler(kind(base_url="")))
    host, port = httpd.server_address[:2]
    state = kind(base_url=f"http://{host!s}:{port}/v1")
    httpd.RequestHandlerClass = _handler(state)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
