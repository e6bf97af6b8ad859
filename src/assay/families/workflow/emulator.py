"""Emulated clouds: one moto server process per episode or verification.

A warm parent (see :mod:`assay.families.workflow._emulator_process`) imports moto once; each
:class:`Emulator` is a process forked from it that serves the AWS API on a Unix socket in a
directory of its own, and is killed by :meth:`Emulator.close`. moto's backends are global to a
process, so two emulators never share state; the parsing of requests that agent code chose
happens in the emulator's process, never in assay's.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import IO, Any

from assay.errors import SandboxError
from assay.families.workflow import _transport
from assay.families.workflow._emulator_process import (
    BIRTHS_PATH,
    COUNT_PATH,
    MAX_QUEUE_BYTES,
    MESSAGES_PATH,
)

SOCKET_NAME = "aws.sock"
"""Name of the socket in an emulator's directory."""
START_TIMEOUT_S = 60.0
_UTIME = 11
"""Index of utime (stime follows) in /proc/PID/stat after the command's closing parenthesis."""
MAX_ANSWER_BYTES = 2**20
"""Largest answer of the emulator to the trusted side's own questions."""
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Emulator:
    """One running emulator: its socket, its process, clients to it."""

    def __init__(
        self, factory: EmulatorFactory, directory: Path, pid: int, start_s: float, token: str
    ) -> None:
        self.directory = directory
        """Directory holding only the socket; it is what a sandbox gets bound in."""
        self.pid = pid
        self.start_s = start_s
        """Seconds from the fork to the first accepted connection being possible."""
        self._factory = factory
        self._token = token
        self._clients: dict[str, Any] = {}
        self._closed = False

    @property
    def socket_path(self) -> Path:
        """The Unix socket the emulator serves on."""
        return self.directory / SOCKET_NAME

    def client(self, service: str) -> Any:
        """A boto3 client of ``service`` for this emulator (trusted side), made once."""
        if service not in self._clients:
            self._clients[service] = _transport.client(service, self.socket_path)
        return self._clients[service]

    def cpu_s(self) -> float:
        """CPU seconds the emulator's process has used so far (all its threads, user and
        system), from ``/proc``; 0.0 where that cannot be read (the process is gone, or the
        system has no ``/proc``). Never raises."""
        try:
            text = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:
            return 0.0
        fields = text.rsplit(")", 1)[-1].split()
        try:
            ticks = int(fields[_UTIME]) + int(fields[_UTIME + 1])
        except (IndexError, ValueError):
            return 0.0
        return ticks / _CLOCK_TICKS

    def requests_served(self) -> int:
        """How many requests the emulator has served (the trusted side's own included)."""
        text = self._trusted(COUNT_PATH, 64)
        if not text.isdigit():
            raise SandboxError(f"the emulator did not tell its request count: {text[:60]}")
        return int(text)

    def births(self) -> dict[str, str]:
        """When each bucket, queue, table and log group was made, to the microsecond, by its
        criterion's name (``bucket:NAME``...): what the APIs tell is to the second (a bucket's
        ``CreationDate``) or the millisecond. Raises :class:`SandboxError` when the emulator
        does not tell."""
        text = self._trusted(BIRTHS_PATH, MAX_ANSWER_BYTES)
        try:
            found = json.loads(text)
        except ValueError:
            found = None
        if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
            raise SandboxError(
                f"the emulator did not tell when its resources were made: {text[:60]}"
            )
        return found

    def queue_messages(self, account: str, queue: str) -> dict[str, Any]:
        """What the queue ``queue`` of ``account`` holds, read without receiving it: the
        emulator's answer at :data:`MESSAGES_PATH`, ``{"messages": [...]}`` or
        ``{"too_large": REASON}``. Raises :class:`SandboxError` when the emulator does not
        tell."""
        query = urllib.parse.urlencode({"account": account, "queue": queue})
        text = self._trusted(f"{MESSAGES_PATH}?{query}", MAX_QUEUE_BYTES + MAX_ANSWER_BYTES)
        try:
            found = json.loads(text)
        except ValueError:
            found = None
        if not isinstance(found, dict) or not (
            isinstance(found.get("messages"), list) or isinstance(found.get("too_large"), str)
        ):
            raise SandboxError(f"the emulator did not tell what {queue} holds: {text[:60]}")
        return found

    def _trusted(self, path: str, limit: int) -> str:
        """The emulator's answer at ``path``, which only the holder of its token gets."""
        connection = http.client.HTTPConnection("localhost", timeout=_transport.TIMEOUT_S)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(_transport.TIMEOUT_S)
            sock.connect(str(self.socket_path))
            connection.sock = sock
            connection.request("GET", path, headers={"X-Assay-Token": self._token})
            answer = connection.getresponse()
            data = answer.read(limit + 1)
        except (OSError, http.client.HTTPException) as exc:
            raise SandboxError(f"the emulator did not answer: {exc}") from exc
        finally:
            connection.close()
        text = data[:limit].decode(errors="replace")
        if answer.status != 200 or len(data) > limit:
            raise SandboxError(f"the emulator did not answer {path}: {text[:60]}")
        return text

    def close(self) -> None:
        """Kill the emulator and remove its directory. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for made in self._clients.values():
            made.close()
        try:
            self._factory.stop(self.pid)
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class EmulatorFactory:
    """The warm parent process and the emulators forked from it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> Emulator:
        """A fresh, empty emulator. Raises :class:`SandboxError` when it cannot start."""
        directory = Path(tempfile.mkdtemp(prefix="assay-emulator-"))
        directory.chmod(0o755)
        try:
            token = secrets.token_hex(16)
            answer = self._ask(
                {"op": "start", "socket": str(directory / SOCKET_NAME), "token": token}
            )
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        if "pid" not in answer:
            shutil.rmtree(directory, ignore_errors=True)
            raise SandboxError(f"the emulator did not start: {answer.get('error', answer)}")
        return Emulator(self, directory, int(answer["pid"]), float(answer["start_s"]), token)

    def stop(self, pid: int) -> None:
        """Kill and reap the emulator ``pid``; nothing when the warm parent is gone, since its
        emulators died with it (and starting another to stop none would take seconds)."""
        with contextlib.suppress(SandboxError):
            self._ask({"op": "stop", "pid": pid}, start=False)

    def close(self) -> None:
        """End the warm parent, and with it every emulator still running. Idempotent."""
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            _end(process)

    def _ask(self, command: dict[str, Any], *, start: bool = True) -> dict[str, Any]:
        """The warm parent's answer to ``command``, starting the parent first unless
        ``start`` is false (then an empty answer when it is not running)."""
        with self._lock:
            if not start and (self._process is None or self._process.poll() is not None):
                return {}
            process = self._running()
            stdin, stdout = _pipes(process)
            try:
                stdin.write(json.dumps(command) + "\n")
                stdin.flush()
                line = stdout.readline()
            except OSError as exc:
                self._process = None
                _end(process)
                raise SandboxError(f"the emulators' parent failed: {exc}") from exc
            if not line:
                self._process = None
                _end(process)
                raise SandboxError("the emulators' parent exited")
            answer: dict[str, Any] = json.loads(line)
            return answer

    def _running(self) -> subprocess.Popen[str]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        if self._process is not None:  # it died: reap it and close its pipes
            _end(self._process)
            self._process = None
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "assay.families.workflow._emulator_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        _, stdout = _pipes(process)
        line = stdout.readline()
        if not line or not json.loads(line).get("ready"):
            _end(process)
            raise SandboxError("the emulators' parent did not start (is moto[server] installed?)")
        self.warm_s = time.monotonic() - started
        self._process = process
        return process


def _pipes(process: subprocess.Popen[str]) -> tuple[IO[str], IO[str]]:
    if process.stdin is None or process.stdout is None:  # pragma: no cover - always piped
        raise SandboxError("the emulators' parent has no pipes")
    return process.stdin, process.stdout


def _end(process: subprocess.Popen[str]) -> None:
    """Close the warm parent's input, which ends it at once, and reap it (killing it if it
    lingers); close its pipes."""
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    with contextlib.suppress(OSError):
        if process.stdout is not None:
            process.stdout.close()


_shared: EmulatorFactory | None = None
_shared_lock = threading.Lock()


def emulators() -> EmulatorFactory:
    """The process's emulator factory; its warm parent starts on first use and is ended when
    the interpreter exits."""
    global _shared  # noqa: PLW0603 - one warm parent per process
    with _shared_lock:
        if _shared is None:
            _shared = EmulatorFactory()
            atexit.register(_close_at_exit, _shared, os.getpid())
        return _shared


def _close_at_exit(factory: EmulatorFactory, owner: int) -> None:
    """Close ``factory`` in the process that made it (a forked child exiting must leave its
    parent's warm parent alone)."""
    if os.getpid() == owner:
        factory.close()
