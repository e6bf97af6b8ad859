"""A typed, synchronous client of the environment server (``assay serve --env-only``).

::

    from assay.client import EnvClient

    with EnvClient("http://127.0.0.1:8400", token=None) as client:
        with client.session(task_id="median-1") as session:
            session.step("write_file", {"path": "solution.py", "content": source})
            result = session.submit()
            print(result.verdict.status, result.reward)

Every answer is a record of :mod:`assay.server.models` (:class:`SamplingSpec` and
:class:`Curriculum` are re-exported here to ask for a drawn task); a refusal raises
:class:`EnvServerError` with the server's status, code and message, in one line. A request the
client can tell is wrong before sending it (a URL that is no http(s) URL, a token no header can
carry, an empty tool name) raises :class:`~assay.errors.InputError` instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from assay.errors import AssayError, InputError
from assay.server.models import (
    CreateSession,
    Curriculum,
    Health,
    Observation,
    Problem,
    SamplingSpec,
    SessionState,
    StepResult,
    TaskInfo,
    TaskList,
    ToolCallRequest,
    first_problem,
)

M = TypeVar("M", bound=BaseModel)


class EnvServerError(AssayError, RuntimeError):
    """The server refused a request, or could not be reached (``status`` 0)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}" if status else message)
        self.status = status
        self.code = code
        self.message = message


class EnvClient:
    """The server at ``base_url``; with ``token``, sent as ``Authorization: Bearer``."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout_s: float | None = 300.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        # bytes: a token the server takes may hold any Unicode, which httpx sends only as bytes
        headers = {b"Authorization": b"Bearer " + _checked_token(token).encode()} if token else {}
        self._http = httpx.Client(
            base_url=_checked_url(base_url),
            headers=headers,
            timeout=_checked_timeout(timeout_s),
            transport=transport,
        )

    def health(self) -> Health:
        """Whether the server is up, and how many sessions it holds."""
        return self._request("GET", "/health", Health)

    def tasks(self) -> list[TaskInfo]:
        """The tasks the server offers."""
        return list(self._request("GET", "/tasks", TaskList).tasks)

    def session(
        self, task_id: str | None = None, *, sample: SamplingSpec | None = None
    ) -> EnvSession:
        """A new session on ``task_id``, or on a task drawn by ``sample`` (any task when
        neither is given); close it with :meth:`EnvSession.close` or a ``with`` block."""
        if task_id is None and sample is None:
            sample = SamplingSpec()
        body = _built(CreateSession, task_id=task_id, sample=sample)
        observation = self._request("POST", "/sessions", Observation, body)
        return EnvSession(self, observation)

    def close(self) -> None:
        """Close the connections (sessions stay open on the server until closed or idle)."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _request(self, method: str, path: str, model: type[M], body: BaseModel | None = None) -> M:
        response = self._send(method, path, body)
        try:
            return model.model_validate_json(response.content)
        except ValidationError:
            raise EnvServerError(
                response.status_code, "bad_answer", f"the server's answer is not a {model.__name__}"
            ) from None

    def _send(self, method: str, path: str, body: BaseModel | None = None) -> httpx.Response:
        content = body.model_dump_json(exclude_none=True) if body is not None else None
        headers = {"Content-Type": "application/json"} if content is not None else {}
        try:
            response = self._http.request(method, path, content=content, headers=headers)
        except httpx.HTTPError as exc:
            said = str(exc) or type(exc).__name__
            message = f"no answer from {self._http.base_url}: {said}"
            raise EnvServerError(0, "unreachable", message) from None
        if response.is_success:
            return response
        try:
            problem = Problem.model_validate_json(response.content)
        except ValidationError:  # not the server's own answer: a proxy's page, or nothing
            said = " ".join(response.text[:2000].split())[:500] or response.reason_phrase
            problem = Problem(error=said or "(no body)", code="http_error")
        raise EnvServerError(response.status_code, problem.code, " ".join(problem.error.split()))


class EnvSession:
    """One session on the server: one episode at a time."""

    def __init__(self, client: EnvClient, observation: Observation) -> None:
        self._client = client
        self.id = observation.session_id
        self.observation = observation
        """The prompt and tools of the current episode."""

    @property
    def task_id(self) -> str:
        """The task of the current episode."""
        return self.observation.task_id

    def step(self, tool: str, arguments: Mapping[str, Any] | None = None) -> StepResult:
        """Run one tool call; after ``submit`` the result is done and holds the verdict."""
        body = _built(ToolCallRequest, tool=tool, arguments=_sendable(arguments))
        return self._client._request("POST", self._path("/step"), StepResult, body)

    def submit(self) -> StepResult:
        """Submit the work as it stands; the verdict, computed by the server."""
        return self._client._request("POST", self._path("/submit"), StepResult)

    def reset(
        self, task_id: str | None = None, *, sample: SamplingSpec | None = None
    ) -> Observation:
        """Start again: on the same task, or on ``task_id``, or on a task drawn by ``sample``."""
        body = None
        if task_id is not None or sample is not None:
            body = _built(CreateSession, task_id=task_id, sample=sample)
        path = self._path("/reset")
        self.observation = self._client._request("POST", path, Observation, body)
        return self.observation

    def state(self) -> SessionState:
        """Where the session stands."""
        return self._client._request("GET", self._path(""), SessionState)

    def close(self) -> None:
        """Close the session on the server; closing one already gone is not an error."""
        try:
            self._client._send("DELETE", self._path(""))
        except EnvServerError as exc:
            if exc.status != 404:
                raise

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _path(self, rest: str) -> str:
        return f"/sessions/{self.id}{rest}"


def _checked_url(base_url: str) -> str:
    """``base_url`` without its trailing slash; :class:`InputError` when it is no http(s) URL."""
    fix = "give the server's address, such as http://127.0.0.1:8400"
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as exc:
        raise InputError(f"{base_url!r} is not a URL ({exc})", field="base_url", fix=fix) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise InputError(f"{base_url!r} is not an http(s) URL", field="base_url", fix=fix)
    return base_url.rstrip("/")


def _checked_timeout(timeout_s: object) -> float | None:
    """``timeout_s``, or :class:`InputError` when it is no positive, finite number of seconds
    (None: wait as long as it takes). httpx would take it and fail at the first request, with
    its own error, or, for 0, report every server as unreachable."""
    if timeout_s is None:
        return None
    if (
        isinstance(timeout_s, bool)
        or not isinstance(timeout_s, int | float)
        or not 0 < timeout_s < math.inf
    ):
        raise InputError(
            f"{timeout_s!r:.100} is not a positive, finite number of seconds",
            field="timeout_s",
            fix="give the seconds to wait for an answer, such as 300, or None for no limit",
        )
    return float(timeout_s)


def _checked_token(token: str) -> str:
    """``token``, or :class:`InputError` (which does not repeat it, a secret) when no request
    could carry it as the server compares it."""
    if token != token.strip():
        problem = "starts or ends with whitespace, which the server strips"
    elif any(ord(character) < 32 or ord(character) == 127 for character in token):
        problem = "holds a control character, which no request can send"
    else:
        return token
    raise InputError(f"the token {problem}", field="token", fix="pass the server's token as set")


def _sendable(arguments: object) -> dict[str, Any]:
    """``arguments`` as the call sends them; :class:`InputError` for what JSON cannot carry as
    it is: something that is no mapping, NaN and Infinity (which pydantic would send as null),
    and any value that is not text, a number, a boolean, null, a list or a mapping (pydantic
    would send a set as a list and a path as text, or fail with its own error)."""
    fix = "send finite numbers, text, booleans, null, lists and objects"
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        problem = f"the arguments are {type(arguments).__name__}, not a mapping"
        raise InputError(problem, field="arguments", fix="pass them as a dict: {NAME: VALUE}")
    try:
        json.dumps(arguments, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"cannot be sent as JSON ({exc})", field="arguments", fix=fix) from None
    except RecursionError:
        raise InputError("cannot be sent as JSON: nested too deeply", field="arguments") from None
    return dict(arguments)


def _built(model: type[M], **fields: Any) -> M:
    """``model`` of ``fields``; :class:`InputError` naming the first wrong field otherwise."""
    try:
        return model(**fields)
    except ValidationError as exc:
        problem = first_problem(exc, "(the request)")
        raise InputError(problem, fix=f"see {model.__name__}") from None


__all__ = ["Curriculum", "EnvClient", "EnvServerError", "EnvSession", "SamplingSpec"]
