"""The environment server: assay's tasks as sessions over HTTP, and over OpenEnv's WebSocket.

:func:`create_app` builds the ASGI application over a :class:`SessionManager`; :func:`serve`
runs it with uvicorn, as ``assay serve --env-only`` does. It binds to loopback by default and
refuses a non-loopback address without a token. The Python client is :mod:`assay.client`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping, Sequence
from typing import Any

import uvicorn

from assay.errors import InputError
from assay.sandbox.protocol import Sandbox
from assay.server.app import TOKEN_PATH, create_app
from assay.server.models import AgentVerdict, CreateSession, SamplingSpec, StepResult
from assay.server.openapi import openapi
from assay.server.sampling import current_pass_rates, draw
from assay.server.sessions import RefusedError, ServerLimits, Session, SessionManager, offered
from assay.tasks.model import Task


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    """Refuse to serve a non-loopback address without a token (:class:`InputError`)."""
    if not token and not is_loopback(host):
        raise InputError(
            f"refusing to serve {host} without a token: anyone who can reach it could run code",
            field="host",
            fix="set --token or ASSAY_TOKEN, or bind to 127.0.0.1",
        )


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (0: a free port), ready to hand to the server.

    Raises :class:`InputError` when the address cannot be bound (in use, not this machine's).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio turns Nagle's algorithm off only on connections whose
    # socket says TCP, and with it on, every answer on a kept-alive connection waited ~40 ms
    # for the client's delayed acknowledgement of its headers before its body went out.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)  # connections wait in the backlog until the server accepts them
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            field="host/port",
            fix="choose another --port, or an address of this machine",
        ) from None
    return sock


def build_server(
    tasks: Sequence[Task],
    sandbox: Sandbox,
    *,
    host: str = "127.0.0.1",
    port: int = 8400,
    token: str | None = None,
    limits: ServerLimits | None = None,
    pass_rates: Mapping[str, float] | None = None,
) -> uvicorn.Server:
    """The server of ``tasks``, ready to run (``port`` 0: any free port).

    Raises :class:`InputError` for a non-loopback ``host`` without a ``token``.
    """
    check_binding(host, token)
    limits = limits or ServerLimits()
    manager = SessionManager(tasks, sandbox, limits=limits, pass_rates=pass_rates)
    config = uvicorn.Config(
        create_app(manager, token=token),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # a WebSocket's path may carry the token
        ws_max_size=limits.max_body_bytes,
        lifespan="on",
    )
    return uvicorn.Server(config)


def serve(tasks: Sequence[Task], sandbox: Sandbox, **options: Any) -> None:
    """Serve ``tasks`` until interrupted; the options are :func:`build_server`'s."""
    server = build_server(tasks, sandbox, **options)
    server.run(sockets=[listen(server.config.host, server.config.port)])


__all__ = [
    "TOKEN_PATH",
    "AgentVerdict",
    "CreateSession",
    "RefusedError",
    "SamplingSpec",
    "ServerLimits",
    "Session",
    "SessionManager",
    "StepResult",
    "build_server",
    "check_binding",
    "create_app",
    "current_pass_rates",
    "draw",
    "is_loopback",
    "listen",
    "offered",
    "openapi",
    "serve",
]
