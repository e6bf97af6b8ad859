"""How a job starts, whatever its host: signals at their defaults, no core dump by any route,
and a command no process can be started with refused with one line."""

from __future__ import annotations

import ctypes
import fcntl
import os
import secrets
import signal
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from assay.errors import SandboxError
from assay.sandbox import BubblewrapSandbox, LocalSandbox, PoolSandbox, Sandbox
from assay.tasks import Limits

FAST = Limits(timeout_s=10, memory_mb=256)
FRESH_PYTHON_IGNORES = (1 << (signal.SIGPIPE - 1)) | (1 << (signal.SIGXFSZ - 1))
"""What a fresh CPython ignores: SIGPIPE and SIGXFSZ, and nothing else."""
GLIBC_OWN = 32
"""A signal the C library keeps for itself (SIGCANCEL): Python's ``signal`` module cannot set
it, yet a host can hold it ignored (a runtime that is not the C library's)."""
SANDBOXES: dict[str, Callable[[], Sandbox]] = {
    "bubblewrap": BubblewrapSandbox,
    "local": LocalSandbox,
    "pool": lambda: PoolSandbox(max_workers=1),
}


def _kernel_sigaction(number: int, handler: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    action = ctypes.create_string_buffer(struct.pack("=4Q", handler, 0, 0, 0))
    assert libc.syscall(13, number, action, None, 8) == 0, ctypes.get_errno()  # rt_sigaction


@contextmanager
def host_holding_signals() -> Iterator[None]:
    """This process as a host started under ``nohup`` by a runner that ignores signal 32, with
    SIGUSR2 blocked in this thread; as it was, afterwards."""
    hangup = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    _kernel_sigaction(GLIBC_OWN, 1)  # SIG_IGN
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        _kernel_sigaction(GLIBC_OWN, 0)  # SIG_DFL
        signal.signal(signal.SIGHUP, hangup)


def _masks(text: str) -> dict[str, int]:
    fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
    return {name: int(fields[name], 16) for name in ("SigIgn", "SigBlk")}


STATUS = "print(open('/proc/self/status').read())"


@pytest.mark.parametrize("backend", sorted(SANDBOXES))
def test_a_job_holds_no_signal_its_host_ignored_or_blocked(backend: str) -> None:
    """An ignored or blocked signal survives ``execve``: a host started under ``nohup`` gave
    every job SIGHUP ignored, on every backend (for the pool, through its worker). Executed
    commands start with no signal ignored or blocked, Python code with what a fresh
    interpreter ignores."""
    with host_holding_signals():
        sandbox = SANDBOXES[backend]()
        try:
            executed = sandbox.run(["cat", "/proc/self/status"], limits=FAST)
            python = sandbox.run([sandbox.python, "-I", "-S", "-c", STATUS], limits=FAST)
        finally:
            sandbox.close()
    assert executed.exit_code == 0, executed
    assert python.exit_code == 0, python
    assert _masks(executed.stdout) == {"SigIgn": 0, "SigBlk": 0}
    assert _masks(python.stdout) == {"SigIgn": FRESH_PYTHON_IGNORES, "SigBlk": 0}


def test_a_missing_command_still_says_so_when_signals_are_reset(
    bubblewrap: BubblewrapSandbox,
) -> None:
    with host_holding_signals():
        result = bubblewrap.run(["no-such-command"], limits=FAST)
    assert result.exit_code == 127, result
    assert result.stderr == "no-such-command: command not found\n"


@pytest.mark.parametrize("backend", ["bubblewrap", "pool", "local"])
@pytest.mark.parametrize(
    "command",
    [["echo", "a\0b"], ["e\0cho", "a"], ["PYTHON", "-I", "-S", "-c", "print(1)\0"]],
    ids=["argument", "program", "python-code"],
)
def test_a_nul_byte_in_the_command_is_one_clear_error(
    backend: str, command: list[str], request: pytest.FixtureRequest
) -> None:
    """The kernel ends each argument at a NUL byte: bubblewrap's backend raised Python's raw
    ``ValueError``, the pool's reported a traceback as the job's own output."""
    sandbox: Sandbox = LocalSandbox() if backend == "local" else request.getfixturevalue(backend)
    command = [sandbox.python if part == "PYTHON" else part for part in command]
    with pytest.raises(SandboxError, match=r"^command argument \d holds a NUL byte .*stdin$"):
        sandbox.run(command, limits=FAST)


@pytest.mark.parametrize("backend", ["bubblewrap", "pool", "local"])
@pytest.mark.parametrize(
    "command",
    [["echo", "a\ud800"], ["PYTHON", "-I", "-S", "-c", "print('\udfff')"]],
    ids=["argument", "python-code"],
)
def test_a_lone_surrogate_in_the_command_is_one_clear_error(
    backend: str, command: list[str], request: pytest.FixtureRequest
) -> None:
    """No bytes stand for a lone surrogate: bubblewrap's backend raised Python's raw
    ``UnicodeEncodeError``, the pool reported a traceback as the job's own output (status 126)
    or, on its fast path, as the program's failure (status 1)."""
    sandbox: Sandbox = LocalSandbox() if backend == "local" else request.getfixturevalue(backend)
    command = [sandbox.python if part == "PYTHON" else part for part in command]
    with pytest.raises(SandboxError, match=r"^command argument \d holds a lone surrogate .*stdin$"):
        sandbox.run(command, limits=FAST)
    # one that stands for a byte (os.fsdecode's) is that byte
    code = "import os, sys; print(os.fsencode(sys.argv[1]))"
    argument = os.fsdecode(b"caf\xe9")
    result = sandbox.run([sandbox.python, "-I", "-S", "-c", code, argument], limits=FAST)
    assert result.stdout == "b'caf\\xe9'\n", result


def test_a_command_given_as_a_string_is_one_clear_error(sandbox: Sandbox) -> None:
    """A string is a sequence of one-letter arguments: ``run("echo hi")`` ran ``e``."""
    with pytest.raises(SandboxError, match=r"^the command is a string \('echo hi'\): give "):
        sandbox.run("echo hi", limits=FAST)


CORE_ATTEMPTS = """
import resource
print("limit", *resource.getrlimit(resource.RLIMIT_CORE))
for value in ((0, 0), (0, 1), (1, 1), (4096, 4096), (-1, -1)):
    try:
        resource.setrlimit(resource.RLIMIT_CORE, value)
        print("CHANGED", value)
    except (OSError, ValueError):
        pass
    try:
        resource.prlimit(0, resource.RLIMIT_CORE, value)
        print("CHANGED", value)
    except (OSError, ValueError):
        pass
print("read", *resource.prlimit(0, resource.RLIMIT_CORE))
"""


def test_a_job_cannot_change_its_core_limit(sandbox: Sandbox) -> None:
    """Under a core pattern that pipes to a program, the kernel starts that program, outside
    the job's limits, for a crash under any core limit but 1: a limit of 0 stopped no such
    dump, and a job could lower 1 to 0."""
    result = sandbox.run([sandbox.python, "-I", "-S", "-c", CORE_ATTEMPTS], limits=FAST)
    assert result.exit_code == 0, result
    assert result.stdout.splitlines() == ["limit 1 1", "read 1 1"]


PATTERN_LOCK = "/tmp/assay-core-pattern.lock"  # noqa: S108 - shared by every run of the suite
CRASH = """
import os, signal, sys
with open("/proc/self/comm", "w") as comm:
    comm.write(sys.argv[1])
os.kill(os.getpid(), signal.SIGSEGV)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may set the host's core pattern")
def test_a_crash_starts_no_core_handler_on_the_host(sandbox: Sandbox, tmp_path: Path) -> None:
    """A crashing job under a piped core pattern ran the host's handler as root. The pattern
    is the host's own for the length of one job, and put back whatever happens."""
    marker = tmp_path / "dumped"
    handler = tmp_path / "handler"
    handler.write_text(f'#!/bin/sh\necho "$1" >> {marker}\ncat > /dev/null\n')
    handler.chmod(0o755)
    token = "crash" + secrets.token_hex(4)  # the comm of this job's crash, and no other
    # Not the fast path: executing Python resets it to dumpable, as any command would.
    command = [sandbox.python, "-c", CRASH, token]
    sandbox.run(["true"], limits=FAST)  # a warm worker, outside the window
    pattern = Path("/proc/sys/kernel/core_pattern")
    # One test at a time sets the host's pattern (two workers of the suite may reach this at
    # once): each restores what it found, so interleaved ones would leave another's in place.
    with Path(PATTERN_LOCK).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = pattern.read_bytes()
        try:
            pattern.write_text(f"|{handler} %e")
            result = sandbox.run(command, limits=FAST)
        finally:
            pattern.write_bytes(saved)
    crashed = 128 + signal.SIGSEGV  # as bubblewrap's init reports its child's end
    assert result.signal == signal.SIGSEGV or result.exit_code == crashed, result
    time.sleep(0.5)  # the kernel starts the handler as the job dies
    assert token not in (marker.read_text() if marker.exists() else "").split()


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({"": b"x"}, "names a directory"),
        ({".": b"x"}, "names a directory"),
        ({"d/": b"x"}, "names a directory"),
        ({"x": b"1", "x/y": b"2"}, "is also the directory of 'x/y'"),
        ({"big": b"x" * (2 << 20)}, r"larger than limits\.max_file_mb \(1 MiB\)"),
        ({f"f{i}": b"" for i in range(65)}, r"more than limits\.max_files \(64\)"),
        ({"d/.": b"x"}, "names a directory"),
        ({"d/" + "n" * 256: b"x"}, "has a part longer than 255 bytes"),
        ({"d" * 200 + "/" + ("e" * 200 + "/") * 20 + "f": b"x"}, "longer than 4095 bytes"),
        ({"\ud800.py": b"x"}, "holds a lone surrogate"),
    ],
    ids=[
        "empty",
        "dot",
        "trailing-slash",
        "file-and-directory",
        "too-large",
        "too-many",
        "dot-last",
        "long-part",
        "long-path",
        "lone-surrogate",
    ],
)
def test_files_no_backend_can_write_are_one_clear_error(
    sandbox: Sandbox, files: dict[str, bytes], problem: str
) -> None:
    """Such files failed the job, as its own output: bubblewrap's error with status 1, the
    pool's traceback with status 126 (and ``d/`` and ``d/.`` were a file on one backend only;
    a lone surrogate was a UnicodeEncodeError from bubblewrap's)."""
    limits = FAST.model_copy(update={"max_file_mb": 1, "max_files": 64})
    with pytest.raises(SandboxError, match=f"{problem}.*: (give|rename|raise) "):
        sandbox.run(["true"], files=files, limits=limits)
    assert sandbox.run(["true"], files={"f": b"x" * (1 << 20)}, limits=limits).exit_code == 0


def test_a_name_that_is_not_utf8_arrives_as_its_bytes(sandbox: Sandbox) -> None:
    """A file read from a file system that is not UTF-8 keeps its name's bytes as surrogates
    (``os.listdir``); bubblewrap's backend raised UnicodeEncodeError for it, the pool wrote it."""
    name = os.fsdecode(b"caf\xe9/men\xfc.txt")
    code = "import os; print(os.listdir(b'caf\\xe9'))"
    result = sandbox.run([sandbox.python, "-I", "-S", "-c", code], files={name: b"x"}, limits=FAST)
    assert result.ok, result
    assert result.stdout == "[b'men\\xfc.txt']\n"
