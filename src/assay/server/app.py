"""The environment server's ASGI application: the HTTP API, OpenEnv's WebSocket, the guards.

Every refused is a JSON :class:`Problem` with the right status: 401 without the token, 403
(when there is no token) for a web page of another site or a ``Host`` that is not loopback, 404
for a session that is not (or no longer) open, 413 past the body limit, 400 for a body that is
not JSON, 422 for JSON of the wrong shape, 503 past the cap on sessions. Nothing a client sends
makes a 500. The blocking work (tool calls in the sandbox, verification) runs on worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import re
from collections.abc import AsyncIterator, Callable
from typing import TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from assay.server.models import (
    CreateSession,
    Health,
    Problem,
    TaskList,
    ToolCallRequest,
    first_problem,
)
from assay.server.openapi import openapi
from assay.server.openenv import openenv_session
from assay.server.sessions import RefusedError, Session, SessionManager, decode_json

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
TOKEN_PATH = "/token/"  # noqa: S105 - a path prefix, not a password
"""WebSocket clients that send no headers carry the token in the path: ``/token/<T>/ws``."""


def create_app(manager: SessionManager, *, token: str | None = None) -> Starlette:
    """The application over ``manager``'s sessions; with ``token``, every request needs it (an
    empty one is none, as :func:`~assay.server.check_binding` takes it: the description says so)."""
    api = _Api(manager, secured=bool(token))
    routes = [
        Route("/health", api.health, methods=["GET"]),
        Route("/openapi.json", api.openapi, methods=["GET"]),
        Route("/tasks", api.tasks, methods=["GET"]),
        Route("/sessions", api.create, methods=["POST"]),
        Route("/sessions/{session_id}", api.session, methods=["GET", "DELETE"]),
        Route("/sessions/{session_id}/reset", api.reset, methods=["POST"]),
        Route("/sessions/{session_id}/step", api.step, methods=["POST"]),
        Route("/sessions/{session_id}/submit", api.submit, methods=["POST"]),
        WebSocketRoute("/ws", api.websocket),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            RefusedError: _refused,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        lifespan=api.lifespan,
    )
    app.add_middleware(_TokenGuard, token=token)
    return app


class _Api:
    """The endpoints, over one session manager."""

    def __init__(self, manager: SessionManager, *, secured: bool) -> None:
        self.manager = manager
        self.secured = secured

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        """Reclaim idle sessions while the server runs; close every session when it stops."""
        reaper = asyncio.create_task(self._reap())
        try:
            yield
        finally:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper
            await run_in_threadpool(self.manager.close_all)

    async def _reap(self) -> None:
        interval = min(5.0, max(0.05, self.manager.limits.idle_timeout_s / 4))
        while True:
            await asyncio.sleep(interval)
            await run_in_threadpool(self.manager.reap)

    async def health(self, _request: Request) -> Response:
        manager = self.manager
        return _json(
            Health(status="ok", sessions=len(manager), max_sessions=manager.limits.max_sessions)
        )

    async def openapi(self, _request: Request) -> Response:
        return JSONResponse(openapi(secured=self.secured))

    async def tasks(self, _request: Request) -> Response:
        return _json(TaskList(tasks=tuple(self.manager.task_infos())))

    async def create(self, request: Request) -> Response:
        asked = await self._model(request, CreateSession)
        task = self.manager.choose(asked)
        session = self.manager.open()
        try:
            observation = await self._call(session, lambda: session.reset(task))
        except BaseException:
            await run_in_threadpool(self.manager.discard, session)
            raise
        if await request.is_disconnected():  # gave up waiting: nobody will ever know its id
            await run_in_threadpool(self.manager.discard, session)
        return _json(observation, status=201)

    async def session(self, request: Request) -> Response:
        """GET: where the session stands; DELETE: close it (one route, so that a 405 names
        both methods in its Allow header)."""
        if request.method == "DELETE":
            await run_in_threadpool(self.manager.close, request.path_params["session_id"])
            return Response(status_code=204)
        return _json(self._session(request).state())

    async def reset(self, request: Request) -> Response:
        session = self._session(request)
        async with self._turn(session):
            body = await _body(request, self.manager.limits.max_body_bytes)
            if body.strip():
                task = self.manager.choose(_parse(body, CreateSession))
            elif session.episode is not None:
                task = session.episode.task
            else:
                raise RefusedError(
                    422, "invalid", "give task_id or sample to start the first episode"
                )
            return _json(await run_in_threadpool(session.reset, task))

    async def step(self, request: Request) -> Response:
        session = self._session(request)
        async with self._turn(session):
            call = await self._model(request, ToolCallRequest)
            result = await run_in_threadpool(session.step, call.tool, call.arguments)
            return _json(result)

    async def submit(self, request: Request) -> Response:
        session = self._session(request)
        async with self._turn(session):
            await _body(request, self.manager.limits.max_body_bytes)
            return _json(await run_in_threadpool(session.submit))

    async def websocket(self, websocket: WebSocket) -> None:
        await openenv_session(websocket, self.manager, self._call)

    def _session(self, request: Request) -> Session:
        return self.manager.get(request.path_params["session_id"])

    async def _model(self, request: Request, model: type[M]) -> M:
        return _parse(await _body(request, self.manager.limits.max_body_bytes), model)

    async def _call(self, session: Session, work: Callable[[], T]) -> T:
        """Run ``work`` on a worker thread in the session's turn (see :meth:`_turn`)."""
        async with self._turn(session):
            return await run_in_threadpool(work)

    @contextlib.asynccontextmanager
    async def _turn(self, session: Session) -> AsyncIterator[None]:
        """The session's turn, the session marked busy (not reclaimed) meanwhile. Calls piled
        on one session wait here, on the event loop: they take no worker thread, which every
        session shares, and a request's body is read only once its turn has come, so that a
        pile of them stays in their sockets instead of in the server's memory."""
        self.manager.touch(session, +1)
        try:
            async with session.turn:
                yield
        finally:
            self.manager.touch(session, -1)


async def _body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) as soon as it is known to pass ``limit`` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise RefusedError(413, "too_large", f"the body holds more than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise RefusedError(413, "too_large", f"the body holds more than {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # nobody reads the answer, but no traceback is logged for it
        message = "the client went away before the body ended"
        raise RefusedError(400, "disconnected", message) from None
    return b"".join(chunks)


def _parse(body: bytes, model: type[M]) -> M:
    """``body`` as ``model``: 400 when it is not JSON, 422 when it has the wrong shape."""
    data = decode_json(body, "the body")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RefusedError(422, "invalid", first_problem(exc, "(the body)")) from None


def _json(model: BaseModel, status: int = 200) -> Response:
    return Response(model.model_dump_json(), status_code=status, media_type="application/json")


def _problem(status: int, code: str, message: str) -> Response:
    return _json(Problem(error=message, code=code), status=status)


async def _refused(_request: Request, exc: Exception) -> Response:
    refused = (
        exc if isinstance(exc, RefusedError) else RefusedError(500, "internal", "internal error")
    )
    return _problem(refused.status, refused.code, refused.message)


async def _http_error(_request: Request, exc: Exception) -> Response:
    if not isinstance(exc, HTTPException):
        return _problem(500, "internal", "internal error")
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    response = _problem(exc.status_code, code, str(exc.detail))
    response.headers.update(exc.headers or {})  # 405 names the allowed methods in Allow
    return response


async def _internal_error(_request: Request, exc: Exception) -> Response:
    return _problem(500, "internal", f"internal error: {type(exc).__name__}")


class _TokenGuard:
    """Every HTTP request needs ``Authorization: Bearer <token>``; a WebSocket may carry it in
    that header or in its path (``/token/<token>/ws``), since some clients send no headers.
    Tokens are compared in constant time.

    Without a token configured, a request from a web page of another site is refused (403): a
    browser sends its page's ``Origin``, and without this any page the user opened could reach
    the loopback server (a WebSocket is not held back by the browser's same-origin rule) and run
    code in the sandbox. Clients that are not browsers send no ``Origin``, and pass.

    Nor, without a token, is a request whose ``Host`` header names anything but loopback
    (``localhost``, 127.0.0.0/8, ``[::1]``, with any port): a page of ``evil.example`` whose
    name was rebound to 127.0.0.1 sends same-origin requests, with no ``Origin`` or its own,
    and the ``Host`` it was loaded from, ``evil.example:PORT``, which it cannot change. A server
    without a token binds only to loopback (:func:`~assay.server.check_binding`), so the
    address it was bound to is always one of these names; a client reaching it through another
    name (an alias in ``/etc/hosts``) is refused too, and connects through 127.0.0.1 or
    ``localhost`` instead, or the server is given a token. A request with no ``Host`` at all
    (HTTP/1.0) passes: every browser sends one."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token.encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        carried = None
        if scope["type"] == "websocket" and path.startswith(TOKEN_PATH):
            # the last part is the route: a token may hold slashes (base64 does)
            carried, _, rest = path.removeprefix(TOKEN_PATH).rpartition("/")
            scope = {**scope, "path": f"/{rest}"}
        if self.token is None and not _local_host(scope):
            message = (
                "the Host header names neither localhost, 127.0.0.1 nor [::1]: a web page whose "
                "name was rebound to this machine may not use this server; connect through "
                "127.0.0.1 or localhost, or serve with a token"
            )
            refused = _problem(403, "forbidden_host", message)
            await _refuse(scope, receive, send, refused, "forbidden host")
            return
        if self.token is None and not _local_origin(scope):
            message = "a web page of another site may not use this server (its Origin header)"
            refused = _problem(403, "forbidden_origin", message)
            await _refuse(scope, receive, send, refused, "forbidden origin")
            return
        if self.token is None or _valid(self.token, scope, carried):
            await self.app(scope, receive, send)
            return
        response = _problem(401, "unauthorized", "this server needs Authorization: Bearer <token>")
        response.headers["WWW-Authenticate"] = "Bearer"
        await _refuse(scope, receive, send, response, "unauthorized")


async def _refuse(
    scope: Scope, receive: Receive, send: Send, response: Response, reason: str
) -> None:
    """Answer with ``response``; a WebSocket's handshake is refused (policy violation)."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect; closing before accepting refuses the handshake
        await send({"type": "websocket.close", "code": 1008, "reason": reason})
        return
    await response(scope, receive, send)


def _local_origin(scope: Scope) -> bool:
    """Whether the request names no ``Origin``, or one on this machine (a page the server's
    own user serves on loopback)."""
    origins = [value for name, value in scope.get("headers", []) if name == b"origin"]
    if not origins:
        return True
    for origin in origins:
        try:
            host = urlsplit(origin.decode("latin-1")).hostname
        except ValueError:
            return False
        if host is None or not _loopback_name(host):
            return False
    return True


def _local_host(scope: Scope) -> bool:
    """Whether the request's ``Host`` names loopback (a name with an optional port, an IPv6
    address in brackets), or it sends none; several ``Host`` headers are refused."""
    hosts = [value for name, value in scope.get("headers", []) if name == b"host"]
    if not hosts:
        return True
    if len(hosts) > 1:
        return False
    named = _HOST.fullmatch(hosts[0].decode("latin-1"))
    return named is not None and _loopback_name((named["v6"] or named["name"]).lower())


_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::[0-9]{1,5})?")


def _loopback_name(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _valid(token: bytes, scope: Scope, carried: str | None) -> bool:
    """Whether the request carries ``token`` (in its path, or as a bearer token)."""
    offered = [carried.encode()] if carried is not None else []
    for name, value in scope.get("headers", []):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            offered.append(value[7:].strip())
    return any(hmac.compare_digest(candidate, token) for candidate in offered)


__all__ = ["TOKEN_PATH", "create_app"]
