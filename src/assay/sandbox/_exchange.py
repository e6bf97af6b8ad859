"""The host's side of one job's conversation with a pool worker: length-prefixed JSON frames
on the control socket (with descriptors attached), and the job's pipes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import select
import socket
import struct
import time
from collections.abc import Sequence
from typing import Any

from assay.errors import SandboxError
from assay.sandbox._process import READ_CHUNK, CappedOutput

HEADER = struct.Struct("!I")
DRAIN_EVERY_S = 0.02
PIPE_BYTES = 1 << 20


class WorkerFailedError(SandboxError):
    """The worker broke down (died, hung, or could not clean up); it must be recycled."""


class WorkerGoneError(WorkerFailedError):
    """The worker was already gone when a job was handed to it; the job never started."""


def send(sock: socket.socket, payload: bytes, fds: Sequence[int] = ()) -> None:
    """One frame, with ``fds`` attached to its first byte. A single send where it fits, so the
    worker wakes once per job."""
    framed = HEADER.pack(len(payload)) + payload
    if fds:
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{len(fds)}i", *fds))]
        sent = sock.sendmsg([framed], ancillary)
        if sent < len(framed):
            sock.sendall(framed[sent:])
    else:
        sock.sendall(framed)


class Exchange:
    """One job's I/O with the worker, in the calling thread: feed the payload and stdin, drain
    stdout and stderr (keeping at most ``cap`` bytes of each), and read the worker's reply.

    Output pipes are enlarged and drained every ``DRAIN_EVERY_S`` rather than on every write:
    a job that prints line by line would otherwise wake this thread once per line.
    """

    def __init__(
        self, sock: socket.socket, writes: dict[int, bytes], reads: tuple[int, ...], cap: int
    ) -> None:
        self._sock = sock
        self._writes = {fd: memoryview(data) for fd, data in writes.items()}
        self.outputs = [Captured(fd, cap) for fd in reads]
        self._reply = b""

    def run(self, timeout: float) -> dict[str, Any]:
        """Until the reply is in, and then what the outputs hold; raises
        :class:`WorkerFailedError`.

        The worker replies once every process of the job is gone, so what the job wrote is in
        the pipes by then; the end of file may still be far off, and is not waited for: a
        descriptor the job sent over a Unix socket of its own, and left in flight, holds its
        pipe open until the kernel next collects such sockets, which on a quiet host may be
        never (a job once made its own ``fail`` an ``error`` that way)."""
        deadline = time.monotonic() + timeout
        poller = select.poll()  # a few descriptors, one job: no epoll instance to set up
        try:
            for fd in self._writes:
                os.set_blocking(fd, False)
                poller.register(fd, select.POLLOUT)
            for output in self.outputs:
                os.set_blocking(output.fd, False)
                with contextlib.suppress(OSError):  # a bigger pipe, where the host allows
                    fcntl.fcntl(output.fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
            poller.register(self._sock, select.POLLIN)
            while self._pending():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise WorkerFailedError("the worker did not answer in time")
                wait_ms = math.ceil(min(remaining, DRAIN_EVERY_S) * 1000)
                for fd, events in poller.poll(wait_ms):
                    self._handle(poller, fd, events)
                for output in self.outputs:
                    output.drain()
            return self._decoded()
        finally:
            for fd in list(self._writes):
                os.close(fd)
            for output in self.outputs:
                os.close(output.fd)

    def _pending(self) -> bool:
        return self._decoded_or_none() is None

    def _handle(self, poller: select.poll, fd: int, events: int) -> None:
        if fd == self._sock.fileno():
            chunk = self._sock.recv(65536)
            if not chunk:
                raise WorkerFailedError("the worker died")
            self._reply += chunk
            return
        view = self._writes[fd]
        try:
            view = view[os.write(fd, view[:65536]) :]
        except OSError:  # the job closed its end; what it did not read it does not get
            view = view[:0]
        self._writes[fd] = view
        if not view or events & (select.POLLERR | select.POLLHUP):
            poller.unregister(fd)
            os.close(fd)
            del self._writes[fd]

    def _decoded_or_none(self) -> dict[str, Any] | None:
        if len(self._reply) < HEADER.size:
            return None
        size = HEADER.size + HEADER.unpack(self._reply[: HEADER.size])[0]
        if len(self._reply) < size:
            return None
        decoded: dict[str, Any] = json.loads(self._reply[HEADER.size : size])
        return decoded

    def _decoded(self) -> dict[str, Any]:
        decoded = self._decoded_or_none()
        if decoded is None:
            raise WorkerFailedError("the worker's reply was cut short")
        return decoded


class Captured(CappedOutput):
    """Output of one non-blocking pipe, drained on demand."""

    def __init__(self, fd: int, cap: int) -> None:
        super().__init__(cap)
        self.fd = fd
        self.closed = False

    def drain(self) -> None:
        """Read all that is there now; notes the end of file."""
        while not self.closed:
            try:
                chunk = os.read(self.fd, READ_CHUNK)
            except BlockingIOError:
                return
            if chunk:
                self.add(chunk)
            else:
                self.closed = True
