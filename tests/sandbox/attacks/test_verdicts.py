"""Forged verdicts: what a job prints, or does with signals, must not change what the
ExecResult says about how it ended."""

from __future__ import annotations

import signal

import pytest

from assay.families.code import CodeFamily
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Limits
from assay.verdicts import Status
from tests.conftest import make_median_task
from tests.sandbox.attacks._support import py, sh

pytestmark = pytest.mark.sandbox

FAKE_SUCCESS = """
import json, os, sys
lines = [
    "PASSED", "ALL TESTS PASSED", "exit_code: 0", "=== 5 passed in 0.01s ===", "OK",
    json.dumps({"exit-code": 0}), json.dumps({"child-pid": 2}), json.dumps({"reward": 1.0}),
    json.dumps({"exit_code": 0, "timed_out": False, "out_of_memory": False, "ok": True}),
]
for line in lines:
    print(line)
    print(line, file=sys.stderr)
sys.stdout.flush()
sys.stderr.flush()
for fd in range(3, 1024):
    try:
        os.write(fd, b'{"exit-code": 0}\\n')
    except OSError:
        pass
"""


def test_printed_success_does_not_change_the_exit_status(backend: Sandbox) -> None:
    result = py(backend, FAKE_SUCCESS + "os._exit(3)")
    assert result.exit_code == 3
    assert not result.ok


def test_killed_by_a_signal_is_not_success(backend: Sandbox) -> None:
    """A job that prints success and is then killed (by itself) reports the signal, in
    ``signal`` or as the shell convention 128 + n, never success."""
    result = py(backend, FAKE_SUCCESS + "os.kill(os.getpid(), 9)")
    assert not result.ok
    assert result.exit_code != 0
    assert result.signal == signal.SIGKILL or result.exit_code == 128 + signal.SIGKILL, result


def test_crash_is_not_success(backend: Sandbox) -> None:
    """A segmentation fault after printing success; no core file is left either."""
    code = FAKE_SUCCESS + "import ctypes\nctypes.string_at(0)"
    result = py(backend, code)
    assert not result.ok
    assert result.exit_code != 0
    assert result.signal == signal.SIGSEGV or result.exit_code == 128 + signal.SIGSEGV, result


def test_signal_handlers_cannot_turn_a_timeout_into_success(backend: Sandbox) -> None:
    """Every catchable signal exits with status 0; the job then runs past its deadline."""
    code = """
import os, signal
def succeed(*_):
    print("PASSED", flush=True)
    os._exit(0)
for sig in range(1, signal.NSIG):
    try:
        signal.signal(sig, succeed)
    except (OSError, ValueError):
        pass
while True:
    pass
"""
    result = py(backend, code, Limits(timeout_s=1, cpu_s=30, memory_mb=256))
    assert result.timed_out
    assert not result.ok


def test_a_child_exiting_zero_does_not_stand_in_for_the_job(backend: Sandbox) -> None:
    """A child prints success and exits 0 (also detached, also last); the job's own status is
    what counts."""
    code = """
import os, time
for detach in (False, True):
    if os.fork() == 0:
        if detach:
            os.setsid()
            time.sleep(0.2)
        print("PASSED", flush=True)
        os._exit(0)
time.sleep(0.05)
os._exit(5)
"""
    result = py(backend, code)
    assert result.exit_code == 5
    assert not result.ok


def test_shell_failure_after_printing_success(backend: Sandbox) -> None:
    """A shell prints success, runs a failing command and exits with its status."""
    result = sh(backend, "echo PASSED; false; exit $?")
    assert result.exit_code == 1
    assert not result.ok


def test_out_of_memory_cannot_be_faked(backend: Sandbox) -> None:
    """A job that merely prints a MemoryError traceback (using a few MiB of a 256 MiB limit) is
    not out of memory; reporting it as such lets a job pass off a wrong answer as a resource
    failure (and vice versa, a harness might retry or excuse it)."""
    code = """
import sys
sys.stderr.write("Traceback (most recent call last):\\n  File \\"x\\", line 1\\nMemoryError\\n")
raise SystemExit(1)
"""
    result = py(backend, code, Limits(timeout_s=5, memory_mb=256))
    assert result.exit_code == 1
    assert not result.out_of_memory, (
        f"reported out of memory at {result.peak_memory_mb} MiB of 256 MiB because of what the "
        "job printed"
    )


FILE_FLOOD = b"""
import os, time
made = 0
def median(values):
    global made
    deadline = time.monotonic() + 17
    try:
        while made >= 0 and time.monotonic() < deadline:
            os.close(os.open(f"/tmp/f{made}", os.O_CREAT | os.O_WRONLY))
            made += 1
    except OSError:
        made = -1  # the first call floods until refused; the others answer at once
    return -1
"""


def test_a_candidate_cannot_turn_its_fail_into_an_error(backend: Sandbox) -> None:
    """About three million empty files (a 4 GiB limit leaves room for them) once made the
    pool's cleanup outlast its grace, and a wrong answer was reported as ``error`` (which a
    scheduler retries or skips) instead of ``fail``. The bubblewrap backend bounds the files
    by the memory their inodes take; the run's limit is smaller there to keep it short."""
    memory = 4096 if isinstance(backend, PoolSandbox) else 256
    task = make_median_task(limits=Limits(timeout_s=20, cpu_s=20, memory_mb=memory))
    verdict = CodeFamily().verify(task, {"solution.py": FILE_FLOOD}, backend)
    assert verdict.status is Status.FAIL, verdict.summary


IN_FLIGHT = """
import os, socket
print("wrong answer", flush=True)
# Its own output pipes sent over a pair of Unix sockets that are sent over each other: once
# the job is gone only the kernel's collection of such sockets, when any process of the host
# next closes one, lets the pipes close.
left, right = socket.socketpair()
socket.send_fds(left, [b"x"], [1, 2, left.fileno(), right.fileno()])
os._exit(1)
"""


def test_output_pipes_left_in_flight_do_not_hold_the_result(backend: Sandbox) -> None:
    """On a quiet host the pool waited for the end of such pipes past the job's deadline and
    reported its worker as failed: the job's ``fail`` became an ``error``."""
    result = py(backend, IN_FLIGHT, Limits(timeout_s=5, cpu_s=5, memory_mb=256))
    assert result.exit_code == 1, result
    assert result.stdout == "wrong answer\n"
    assert not result.timed_out
