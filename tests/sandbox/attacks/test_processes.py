"""Processes: nothing a job starts outlives it, and a job can neither kill, stop, trace nor read
the processes around it, nor set the host's clock."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from assay.sandbox import Sandbox
from assay.tasks import Limits
from tests.sandbox.attacks._support import (
    TOKEN,
    assert_healthy,
    processes_with,
    py,
    sh,
)

pytestmark = pytest.mark.sandbox

SLACK_S = 3.0


@pytest.fixture
def host_victim() -> Iterator[subprocess.Popen[bytes]]:
    """An ordinary host process, owned by the test's user, for jobs to try to kill."""
    process = subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep(60)  # {TOKEN}-victim"],
        stdin=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_double_forked_daemons_do_not_outlive_the_job(backend: Sandbox) -> None:
    """Classic daemons (double fork, setsid, signals ignored, descriptors closed), a renamed
    sleep, and setsid/nohup from the shell; the job itself exits at once."""
    marker = f"{TOKEN}-daemon"
    code = f"""
import os, signal, subprocess, time
def daemonize(body):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for sig in range(1, signal.NSIG):
                try:
                    signal.signal(sig, signal.SIG_IGN)
                except (OSError, ValueError):
                    pass
            os.chdir("/")
            os.umask(0)
            for fd in range(3):
                os.close(fd)
            body()
        os._exit(0)
    os.wait()
def sleeper():
    time.sleep(60)
    os._exit(0)
def renamed_sleep():
    os.execv("/bin/sleep", ["{marker}-sleep", "60"])
daemonize(sleeper)
daemonize(renamed_sleep)
subprocess.Popen(
    ["sh", "-c", "setsid nohup sh -c 'sleep 31.4159; : {marker}' >/dev/null 2>&1 &"],
    start_new_session=True,
)
subprocess.Popen(["sh", "-c", "sleep 60 # {marker}"], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.3)
print("spawned", flush=True)
"""
    limits = Limits(timeout_s=5, memory_mb=256)
    started = time.monotonic()
    result = py(backend, code, limits)
    assert time.monotonic() - started < limits.timeout_s + SLACK_S
    assert "spawned" in result.stdout, result
    assert processes_with(marker) == []


def test_fork_walking_daemon_does_not_outlive_the_job(backend: Sandbox) -> None:
    """A daemon that forks and exits over and over has a new pid every few microseconds, so
    killing a list of pids never catches it; only killing the job as a whole does."""
    marker = f"{TOKEN}-walker"
    code = f"""
import os, time
# {marker}
end = time.monotonic() + 15  # a walker that escaped gives up by itself, eventually
for _ in range(4):
    if os.fork() == 0:
        os.setsid()
        while time.monotonic() < end:
            try:
                if os.fork() != 0:
                    os._exit(0)
            except OSError:
                time.sleep(0.001)
        os._exit(0)
time.sleep(0.5)
print("walking", flush=True)
"""
    limits = Limits(timeout_s=3, memory_mb=256, max_processes=32)
    result = py(backend, code, limits)
    assert "walking" in result.stdout, result
    assert processes_with(marker) == []
    assert_healthy(backend)


def test_killing_the_parent_init_and_everything(
    backend: Sandbox, host_victim: subprocess.Popen[bytes]
) -> None:
    """SIGKILL and SIGSTOP for the parent, pid 1, every process (-1), the parent's group, a
    host process by its host pid, and the test process itself (signal 0 only)."""
    code = f"""
import os, signal
targets = [
    ("victim", {host_victim.pid}, signal.SIGKILL),
    ("host-pytest", {os.getpid()}, 0),
    ("parent-stop", os.getppid(), signal.SIGSTOP),
    ("init-stop", 1, signal.SIGSTOP),
    ("parent", os.getppid(), signal.SIGKILL),
    ("init", 1, signal.SIGKILL),
]
for label, pid, sig in targets:
    try:
        os.kill(pid, sig)
        print("SIGNALLED", label, pid, flush=True)
    except OSError as exc:
        print("refused", label, pid, exc.errno, flush=True)
try:
    os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
    print("SIGNALLED parent-group", flush=True)
except OSError as exc:
    print("refused parent-group", exc.errno, flush=True)
try:
    os.kill(-1, signal.SIGKILL)
    print("SIGNALLED all", flush=True)
except OSError as exc:
    print("refused all", exc.errno, flush=True)
"""
    limits = Limits(timeout_s=3, memory_mb=256)
    started = time.monotonic()
    result = py(backend, code, limits)
    assert time.monotonic() - started < limits.timeout_s + SLACK_S
    assert host_victim.poll() is None, "a job killed a host process"
    assert "SIGNALLED victim" not in result.stdout
    assert "SIGNALLED host-pytest" not in result.stdout
    assert_healthy(backend)


def test_tracing_and_reading_the_parent(backend: Sandbox) -> None:
    """ptrace attach/seize, process_vm_readv, /proc/<pid>/mem and pidfd_getfd against the
    parent and pid 1: reading a worker's memory or stealing its descriptors.

    The system calls are refused outright by the seccomp filter. /proc/<pid>/mem is an ordinary
    file, so it counts only against processes that were not started for this very command (a
    sandbox's own init, whose argv holds the command, is part of the job)."""
    code = f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_DETACH = 16, 0x4206, 17
class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
targets = sorted({{os.getppid(), 1}} - {{os.getpid()}})
for pid in targets:
    for label, request in [("attach", PTRACE_ATTACH), ("seize", PTRACE_SEIZE)]:
        if libc.ptrace(request, pid, None, None) == 0:
            print("TRACED", label, pid, flush=True)
            if request == PTRACE_ATTACH:  # let it go again, so that a hole does no harm
                os.waitpid(pid, 0x40000000)  # __WALL
            libc.ptrace(PTRACE_DETACH, pid, None, None)
        else:
            print("refused", label, pid, ctypes.get_errno())
    buffer = ctypes.create_string_buffer(64)
    local = IOVec(ctypes.cast(buffer, ctypes.c_void_p), 64)
    try:
        start = int(open(f"/proc/{{pid}}/maps").readline().split("-")[0], 16)
    except (OSError, ValueError):
        start = 0x400000
    remote = IOVec(start, 64)
    got = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    print("READ-VM" if got > 0 else "refused", "process_vm_readv", pid, ctypes.get_errno())
    try:
        own = b"{TOKEN}" in open(f"/proc/{{pid}}/cmdline", "rb").read()
    except OSError:
        own = False
    try:
        with open(f"/proc/{{pid}}/mem", "rb") as mem:
            mem.seek(start)
            mem.read(64)
        print("read own init" if own else "READ-MEM", pid, flush=True)
    except OSError as exc:
        print("refused mem", pid, exc.errno)
    pidfd = libc.syscall(434, pid, 0)
    if pidfd >= 0:
        for target_fd in range(0, 16):
            stolen = libc.syscall(438, pidfd, target_fd, 0)
            if stolen >= 0:
                print("STOLE-FD", pid, target_fd, flush=True)
    else:
        print("refused pidfd_open", pid, ctypes.get_errno())
"""
    result = py(backend, code)
    assert result.exit_code == 0, result
    for verb in ("TRACED", "READ-VM", "READ-MEM", "STOLE-FD"):
        assert verb not in result.stdout
    assert_healthy(backend)


def test_setting_the_clock(backend: Sandbox) -> None:
    """clock_settime, settimeofday and clock_adjtime (each to the time it already is, so a hole
    does no harm) and `date -s`; the host clock is then checked for a jump."""
    code = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]
class Timeval(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("usec", ctypes.c_long)]
now = time.time_ns()
ts = Timespec(now // 10**9, now % 10**9)
for clock in (0, 7, 9):  # REALTIME, BOOTTIME, TAI
    if libc.clock_settime(clock, ctypes.byref(ts)) == 0:
        print("SET clock_settime", clock, flush=True)
    else:
        print("refused clock_settime", clock, ctypes.get_errno())
now = time.time_ns()
tv = Timeval(now // 10**9, (now % 10**9) // 1000)
if libc.settimeofday(ctypes.byref(tv), None) == 0:
    print("SET settimeofday", flush=True)
else:
    print("refused settimeofday", ctypes.get_errno())
timex = (ctypes.c_char * 256)()
ctypes.c_uint.from_buffer(timex, 0).value = 0x0100 | 0x2000  # ADJ_SETOFFSET | ADJ_NANO, by 0
if libc.clock_adjtime(0, timex) >= 0:
    print("SET clock_adjtime", flush=True)
else:
    print("refused clock_adjtime", ctypes.get_errno())
if libc.adjtimex(timex) >= 0:
    print("SET adjtimex", flush=True)
else:
    print("refused adjtimex", ctypes.get_errno())
"""
    wall_before, mono_before = time.time(), time.monotonic()
    result = py(backend, code)
    shell = sh(backend, 'date -s "@$(date +%s)" && echo SET date\nexit 0')
    drift = (time.time() - wall_before) - (time.monotonic() - mono_before)
    assert result.exit_code == 0, result
    assert "SET" not in result.stdout
    assert "SET" not in shell.stdout
    assert abs(drift) < 0.5, f"the host clock moved by {drift:.3f}s"
