"""State between jobs: nothing one job leaves may be found by the next, and a job inherits no
open file from the machinery that started it. Several rounds run back to back on the same
backend, so a pool that reuses workers is caught as well as one that does not."""

from __future__ import annotations

import contextlib
import ctypes
import time
from pathlib import Path

import pytest

from assay.sandbox import Sandbox
from assay.tasks import Limits
from tests.sandbox.attacks._support import TOKEN, processes_with, py

pytestmark = pytest.mark.sandbox

ROUNDS = 4
IPC_KEY = 0x5EC1A77
SHARED_NAME = f"{TOKEN}-state"
ABSTRACT = f"\0{TOKEN}-state-socket"

PLANT = f"""
import ctypes, os, socket, sys, time
libc = ctypes.CDLL(None, use_errno=True)
for path in ["/workspace/{SHARED_NAME}", "/tmp/{SHARED_NAME}", "/dev/shm/{SHARED_NAME}",
             "/var/tmp/{SHARED_NAME}", os.path.expanduser("~/.{SHARED_NAME}"),
             "/workspace/.cache/{SHARED_NAME}", "/run/user/1000/{SHARED_NAME}"]:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write("planted")
        print("planted", path)
    except OSError as exc:
        print("could not plant", path, exc.errno)
IPC_CREAT = 0o1000
print("shmget", libc.shmget({IPC_KEY}, 4096, IPC_CREAT | 0o666), ctypes.get_errno())
print("msgget", libc.msgget({IPC_KEY}, IPC_CREAT | 0o666), ctypes.get_errno())
print("semget", libc.semget({IPC_KEY}, 1, IPC_CREAT | 0o666), ctypes.get_errno())
print("mq_open", libc.mq_open(b"/{SHARED_NAME}", os.O_CREAT | os.O_RDWR, 0o666, None))
sys.stdout.flush()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind({ABSTRACT!r})
            server.listen(8)
        except OSError:
            pass
        time.sleep(30)
    os._exit(0)
time.sleep(0.2)
"""

LOOK = f"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
for path in ["/workspace/{SHARED_NAME}", "/tmp/{SHARED_NAME}", "/dev/shm/{SHARED_NAME}",
             "/var/tmp/{SHARED_NAME}", os.path.expanduser("~/.{SHARED_NAME}"),
             "/workspace/.cache/{SHARED_NAME}", "/run/user/1000/{SHARED_NAME}"]:
    if os.path.exists(path):
        print("FOUND file", path, flush=True)
for label, value in [("shm", libc.shmget({IPC_KEY}, 0, 0)), ("msg", libc.msgget({IPC_KEY}, 0)),
                     ("sem", libc.semget({IPC_KEY}, 0, 0)),
                     ("mq", libc.mq_open(b"/{SHARED_NAME}", os.O_RDONLY))]:
    if value >= 0:
        print("FOUND", label, value, flush=True)
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    client.connect({ABSTRACT!r})
    print("FOUND socket", flush=True)
except OSError:
    pass
"""


def host_ipc_keys() -> list[str]:
    """System V objects with the attack's key in the host's IPC namespace."""
    key = f"{IPC_KEY}"
    found = []
    for kind in ("shm", "msg", "sem"):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]:
                if line.split() and line.split()[0] == key:
                    found.append(f"{kind}: {line}")
    return found


def host_files() -> list[Path]:
    """Planted files that reached a shared host directory."""
    shared = "/tmp /dev/shm /var/tmp /run/user/1000 /dev/mqueue"  # noqa: S108 - host dirs
    dirs = shared.split()
    return [path for directory in dirs for path in Path(directory).glob(f"*{SHARED_NAME}*")]


def remove_host_state() -> None:
    """Undo what a broken backend let the attack leave on the host."""
    for path in host_files():
        path.unlink()
    libc = ctypes.CDLL(None, use_errno=True)
    ipc_rmid = 0
    for get, control in [(libc.shmget, libc.shmctl), (libc.msgget, libc.msgctl)]:
        identifier = get(IPC_KEY, 0, 0)
        if identifier >= 0:
            control(identifier, ipc_rmid, None)
    semaphores = libc.semget(IPC_KEY, 0, 0)
    if semaphores >= 0:
        libc.semctl(semaphores, 0, ipc_rmid)


def test_nothing_survives_into_the_next_job(backend: Sandbox) -> None:
    """Files in the workspace, /tmp, /dev/shm and home; System V shared memory, message queues
    and semaphores and a POSIX queue under a fixed key; a daemon serving an abstract socket."""
    findings: list[str] = []
    try:
        for round_number in range(ROUNDS):
            planted = py(backend, PLANT)
            assert "shmget" in planted.stdout, planted
            looked = py(backend, LOOK)
            assert looked.exit_code == 0, looked
            findings += [
                f"round {round_number}: {line}"
                for line in looked.stdout.splitlines()
                if line.startswith("FOUND")
            ]
        on_host = host_ipc_keys() + [str(path) for path in host_files()]
    finally:
        remove_host_state()
    assert findings == []
    assert on_host == []
    assert processes_with(f"{TOKEN}-state") == []


def test_only_standard_descriptors_are_inherited(backend: Sandbox) -> None:
    """No descriptor beyond 0-2 (a status pipe, a seccomp pipe, a pool's control socket...), and
    0-2 lead nowhere on the host: no terminal, no host file."""
    code = """
import os, stat
opened = []
for fd in range(3, 1024):
    try:
        os.fstat(fd)
    except OSError:
        continue
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        target = "?"
    try:
        os.set_blocking(fd, False)
        data = os.read(fd, 4096)
    except OSError as exc:
        data = exc.errno
    opened.append((fd, target, data))
for fd, target, data in opened:
    print("INHERITED", fd, target, repr(data)[:200], flush=True)
listed = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
print("listed", listed)
for fd in range(3):
    mode = os.fstat(fd).st_mode
    target = os.readlink(f"/proc/self/fd/{fd}")
    print("std", fd, target, stat.S_ISREG(mode), os.isatty(fd))
    if os.isatty(fd) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode):
        print("HOST-STREAM", fd, target, flush=True)
"""
    for _ in range(2):
        result = py(backend, code)
        assert result.exit_code == 0, result
        assert "INHERITED" not in result.stdout
        assert "HOST-STREAM" not in result.stdout
        listed = next(line for line in result.stdout.splitlines() if line.startswith("listed"))
        # 0, 1, 2 and the descriptor os.listdir itself opened
        assert len(listed.removeprefix("listed ").strip("[]").split(",")) <= 4, listed


def test_a_job_started_right_after_a_timeout_is_clean(backend: Sandbox) -> None:
    """A job killed at its deadline in the middle of writing state; the next job, started at
    once, sees nothing of it and runs normally."""
    writer = f"""
import os, time
with open("/workspace/{SHARED_NAME}-partial", "w") as handle:
    handle.write("partial")
with open("/tmp/{SHARED_NAME}-partial", "w") as handle:
    handle.write("partial")
while True:
    time.sleep(0.01)
"""
    killed = py(backend, writer, Limits(timeout_s=1, memory_mb=256))
    assert killed.timed_out
    started = time.monotonic()
    looked = py(
        backend,
        f"""
import os
for path in ["/workspace/{SHARED_NAME}-partial", "/tmp/{SHARED_NAME}-partial"]:
    if os.path.exists(path):
        print("FOUND", path)
print("clean")
""",
    )
    assert time.monotonic() - started < 4
    assert looked.ok, looked
    assert "FOUND" not in looked.stdout
