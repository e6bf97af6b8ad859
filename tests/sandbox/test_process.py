"""Starting a command under limits and capturing its output (the bubblewrap backend's, and the
local one's)."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from assay.errors import SandboxError
from assay.sandbox._process import options_fd, run_limited
from assay.tasks import Limits

HANDS_OVER = """
import socket, sys
client = socket.socket(socket.AF_UNIX)
client.connect(sys.argv[1])
socket.send_fds(client, [b"x"], [1, 2])
print("wrong answer", flush=True)
"""


def test_output_is_taken_once_the_command_is_gone_whoever_holds_its_pipes(
    tmp_path: Path,
) -> None:
    """A job's descriptor of its own output pipe, sent over a Unix socket and left in flight,
    outlives every process of the job until the kernel next collects such sockets (when any
    process of the host closes one). The host waited for the end of the pipe 5 s a stream,
    and left a thread and a descriptor behind for each. Here this test process takes the
    descriptors, so that they are held for sure."""
    address = str(tmp_path / "socket")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address)
    listener.listen(1)
    held: list[int] = []

    def hold() -> None:
        connection, _ = listener.accept()
        held.extend(socket.recv_fds(connection, 1, 4)[1])
        connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    started = time.monotonic()
    try:
        finished = run_limited(
            [sys.executable, "-I", "-S", "-c", HANDS_OVER, address],
            cwd=tmp_path,
            env={},
            limits=Limits(timeout_s=10, memory_mb=256),
            stdin=b"",
            group=None,
        )
        elapsed = time.monotonic() - started
    finally:
        holder.join(timeout=10)
        listener.close()
        for fd in held:
            os.close(fd)
    assert len(held) == 2
    assert finished.exit_code == 0
    assert finished.stdout == b"wrong answer\n"
    assert elapsed < 2, elapsed


def test_no_option_can_pass_for_several() -> None:
    """bubblewrap reads the options NUL-separated: one that holds a NUL would be read as
    several (``--share-net`` gave a job the host's network)."""
    with pytest.raises(SandboxError, match="NUL byte"):
        options_fd(["--dir", "/workspace/x\0--share-net"])
    fd = options_fd(["--dir", "/workspace/x"])
    try:
        assert os.read(fd, 100) == b"--dir\0/workspace/x\0"
    finally:
        os.close(fd)
