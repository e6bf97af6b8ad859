"""SDK clients of the trusted side that reach one emulator over its Unix socket.

botocore sends through its ``before-send`` event when a handler answers it: the handler here
speaks HTTP/1.1 on the emulator's socket (one kept-alive connection a thread), so no TCP port is
ever opened for an emulator.
"""

from __future__ import annotations

import http.client
import io
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3  # type: ignore[import-untyped]
from botocore.awsrequest import AWSPreparedRequest, AWSResponse  # type: ignore[import-untyped]
from botocore.config import Config  # type: ignore[import-untyped]

from assay.families.workflow._emulator_process import REGION

ENDPOINT = "http://localhost"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
TIMEOUT_S = 30.0
_CONFIG = Config(
    region_name=REGION,
    s3={"addressing_style": "path"},
    retries={"max_attempts": 2, "mode": "standard"},
)
_session_lock = threading.Lock()
_session: boto3.Session | None = None


class _Connection(http.client.HTTPConnection):
    """HTTP/1.1 over a Unix socket."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = str(path)

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


class _Body(io.BytesIO):
    """A response body already read, as botocore reads raw bodies (``read`` and ``stream``)."""

    def stream(self, amt: int = 2**16, decode_content: bool = True) -> Iterator[bytes]:
        while chunk := self.read(amt):
            yield chunk


class UnixSender:
    """Sends botocore's requests to the emulator at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def __call__(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        url = urlsplit(request.url)
        target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        body = request.body
        if hasattr(body, "read"):
            body = body.read()
        for attempt in range(2):
            connection = self._connection(fresh=attempt > 0)
            try:
                connection.request(request.method, target, body=body, headers=dict(request.headers))
                answer = connection.getresponse()
                data = answer.read()
            except (ConnectionError, http.client.HTTPException):
                connection.close()
                if attempt:
                    raise
                continue
            return AWSResponse(request.url, answer.status, dict(answer.getheaders()), _Body(data))
        raise ConnectionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _connection(self, *, fresh: bool) -> _Connection:
        current: _Connection | None = getattr(self._local, "connection", None)
        if current is None or fresh:
            if current is not None:
                current.close()
            current = _Connection(self.path, TIMEOUT_S)
            self._local.connection = current
        return current


def client(service: str, path: Path) -> Any:
    """A boto3 client of ``service`` whose requests go to the emulator listening at ``path``."""
    global _session  # noqa: PLW0603 - one session, so service models load once per process
    with _session_lock:
        if _session is None:
            _session = boto3.Session(region_name=REGION, **CREDENTIALS)
        made = _session.client(service, endpoint_url=ENDPOINT, config=_CONFIG)
    made.meta.events.register_first("before-send", UnixSender(path))
    return made
