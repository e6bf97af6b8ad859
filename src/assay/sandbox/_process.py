"""Starting a process under limits, capturing bounded output, and killing its whole tree."""

from __future__ import annotations

import contextlib
import os
import resource
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from assay.errors import SandboxError
from assay.sandbox._cgroups import JobGroup
from assay.sandbox._results import address_space_bytes
from assay.sandbox._userns import Identity, popen
from assay.tasks.spec import Limits

READ_CHUNK = 65536


def options_fd(options: Sequence[str]) -> int:
    """A descriptor holding bubblewrap's options for ``bwrap --args FD``.

    bubblewrap's init is the first process in a sandbox's PID namespace and keeps bubblewrap's
    command line; where it runs as the job's own uid (no subordinate ids), the job can read that
    line in ``/proc/1/cmdline``. Passed this way, the line is ``bwrap --args N`` and the host's
    paths, the mounts and the files' names stay out of the job's sight. The caller closes it.

    Each option ends at a NUL byte, so one that holds a NUL would be read as several: raises
    :class:`SandboxError` for it (a file named ``x\\0--share-net`` once gave its job the
    host's network).
    """
    for option in options:
        if "\0" in option:
            raise SandboxError(f"a sandbox option holds a NUL byte: {option[:200]!r}")
    fd = os.memfd_create("assay-bwrap-args")
    # A file's name read from a file system that is not UTF-8 keeps its bytes as surrogates.
    os.write(fd, b"".join(os.fsencode(option) + b"\0" for option in options))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def check_command(command: Sequence[str]) -> None:
    """Raise :class:`SandboxError` for a command no process can be started with: an empty one,
    a string (a sequence of one-letter arguments), or one with an argument that holds a NUL
    byte (the kernel ends each argument at one) or a lone surrogate (no bytes to pass it as;
    one that stands for a byte, as ``os.fsdecode`` makes them, is that byte)."""
    if isinstance(command, str):
        raise SandboxError(
            f"the command is a string ({command[:200]!r}): give it as a list of arguments, "
            "for example ['sh', '-c', 'echo hi']"
        )
    if not command:
        raise SandboxError("no command to run")
    for index, argument in enumerate(command):
        if "\0" in argument:
            raise SandboxError(
                f"command argument {index} holds a NUL byte ({argument[:200]!r}): "
                "pass such data in a file or on stdin"
            )
        try:
            os.fsencode(argument)
        except UnicodeEncodeError:
            raise SandboxError(
                f"command argument {index} holds a lone surrogate ({argument[:200]!r}): "
                "pass text that is UTF-8, or such data in a file or on stdin"
            ) from None


NAME_MAX = 255
"""Bytes in one part of a path, on every Linux file system."""
PATH_MAX = 4096
"""Bytes in a whole path, its last NUL included."""


def check_files(files: Mapping[str, bytes], limits: Limits) -> None:
    """Raise :class:`SandboxError` for files that cannot all be written in the workspace: a
    name outside it, holding a NUL byte or a lone surrogate (no bytes to name a file by),
    naming a directory (``""``, ``"."``, ``"d/"``, ``"d/."``), with a part longer than
    :data:`NAME_MAX` bytes or longer than :data:`PATH_MAX` in the workspace, or also the
    directory of another; a file over ``limits.max_file_mb``; more files than
    ``limits.max_files``. Either backend would fail the job for them, each its own way. (A
    name read from a file system that is not UTF-8, with its bytes as surrogates, is a name.)"""
    paths: dict[PurePosixPath, str] = {}
    for name, data in files.items():
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts:
            raise SandboxError(f"file path escapes the workspace: {name[:200]!r}")
        if "\0" in name:
            raise SandboxError(f"file name {name[:200]!r} holds a NUL byte: rename the file")
        if not relative.parts or name.endswith(("/", "/.")):
            raise SandboxError(
                f"file name {name[:200]!r} names a directory, not a file: give the file's path"
            )
        _check_length(name, relative)
        if len(data) > limits.max_file_mb * 2**20:
            raise SandboxError(
                f"file {name[:200]!r} is larger than limits.max_file_mb "
                f"({limits.max_file_mb} MiB): raise the limit or shrink the file"
            )
        paths[relative] = name
    if len(paths) > limits.max_files:
        raise SandboxError(
            f"{len(paths)} files are more than limits.max_files ({limits.max_files}): "
            "raise the limit or send fewer files"
        )
    for relative, name in paths.items():
        for parent in relative.parents[:-1]:
            if parent in paths:
                raise SandboxError(
                    f"file {paths[parent][:200]!r} is also the directory of {name[:200]!r}: "
                    "rename one of them"
                )


def _check_length(name: str, relative: PurePosixPath) -> None:
    """Raise :class:`SandboxError` for a name no file system takes: not bytes, or too long."""
    try:
        encoded = os.fsencode(name)
    except UnicodeEncodeError:
        raise SandboxError(
            f"file name {name[:200]!r} holds a lone surrogate, which no file name can: "
            "rename the file"
        ) from None
    if any(len(os.fsencode(part)) > NAME_MAX for part in relative.parts):
        raise SandboxError(
            f"file name {name[:200]!r} has a part longer than {NAME_MAX} bytes: rename the file"
        )
    if len(f"{WORKSPACE}/".encode()) + len(encoded) >= PATH_MAX:
        raise SandboxError(
            f"file name {name[:200]!r} is longer than {PATH_MAX - 1} bytes under {WORKSPACE}: "
            "rename the file"
        )


WORKSPACE = "/workspace"
"""Where every backend writes a job's files."""


@dataclass(frozen=True)
class Finished:
    """The raw outcome of one process run, before a backend turns it into an ExecResult."""

    status: int
    timed_out: bool
    wall_s: float
    cpu_s: float
    max_rss_mb: float
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    cpu_exceeded: bool = False

    @property
    def exit_code(self) -> int | None:
        return os.waitstatus_to_exitcode(self.status) if os.WIFEXITED(self.status) else None

    @property
    def signal(self) -> int | None:
        return os.WTERMSIG(self.status) if os.WIFSIGNALED(self.status) else None


def run_limited(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    limits: Limits,
    stdin: bytes,
    group: JobGroup | None,
    pass_fds: Sequence[int] = (),
    identity: Identity | None = None,
) -> Finished:
    """Run ``argv`` with per-process rlimits, inside ``group`` if given, killed at the deadline
    or, with a group, as soon as all its processes together pass the CPU limit. Started in a
    user namespace where ``identity`` needs one (see :func:`assay.sandbox._userns.popen`);
    without root, RLIMIT_NPROC is left to the command to set inside its namespace (set here it
    would count every process of the user).

    Then the whole process group is killed, and every process left in ``group``.
    """
    output_cap = limits.max_output_kb * 1024
    started = time.monotonic()
    root = identity is None or identity.kind == "root"
    proc = popen(
        list(argv),
        identity,
        _limiter(limits, group, process_limit=root),
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        close_fds=True,
        pass_fds=tuple(pass_fds),
    )
    streams = [proc.stdout, proc.stderr]
    readers = [CappedReader(stream.fileno(), output_cap) for stream in streams if stream]
    _feed_stdin(proc, stdin)
    watch = _Watch(proc.pid, group, limits)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        watch.stop()
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    _kill_tree(proc.pid, group)
    stopped = [reader.finish(timeout=5) for reader in readers]
    for stream in streams:
        if stream is not None and all(stopped):
            stream.close()
    return Finished(
        status=status,
        timed_out=watch.timed_out,
        cpu_exceeded=watch.cpu_exceeded,
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        max_rss_mb=usage.ru_maxrss / 1024,
        stdout=readers[0].output.data,
        stderr=readers[1].output.data,
        stdout_truncated=readers[0].output.truncated,
        stderr_truncated=readers[1].output.truncated,
    )


MAX_OPEN_FILES = 256
"""Open descriptors per job process, on every backend."""
CORE_LIMIT = (1, 1)
"""RLIMIT_CORE of every job process: no core file (the kernel writes none under a page), and
no core piped to the host's handler either (a ``|program`` core pattern ignores the limit but
for exactly 1). The seccomp filter keeps a job from changing it."""


def _limiter(
    limits: Limits, group: JobGroup | None, *, process_limit: bool = True
) -> Callable[[], None]:
    """The function run in the child between fork and exec: join cgroups, set rlimits."""
    procs_files = group.procs_files() if group else []
    memory = address_space_bytes(limits.memory_mb, grouped=group is not None)
    cpu = max(1, int(limits.cpu_s + 0.999))
    file_size = limits.max_file_mb * 2**20
    settings: list[tuple[int, tuple[int, int]]] = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_FSIZE, (file_size, file_size)),
        (resource.RLIMIT_CORE, CORE_LIMIT),
        (resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES)),
    ]
    if process_limit:
        settings.append((resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes)))

    def limit() -> None:
        pid = str(os.getpid()).encode()
        for path in procs_files:
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, pid)
            os.close(fd)
        for which, value in settings:
            resource.setrlimit(which, value)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    return limit


class _Watch(threading.Thread):
    """Stops a job at its deadline, or when its group's CPU time passes the limit (checked
    every ``CPU_POLL_S``): RLIMIT_CPU counts one process, and a job can have many."""

    def __init__(self, pid: int, group: JobGroup | None, limits: Limits) -> None:
        super().__init__(daemon=True)
        self._pid = pid
        self._group = group
        self._limits = limits
        self._done = threading.Event()
        self.timed_out = self.cpu_exceeded = False
        self.start()

    def run(self) -> None:
        deadline = time.monotonic() + self._limits.timeout_s
        poll = CPU_POLL_S if self._group is not None else self._limits.timeout_s
        while not self._done.wait(max(0.0, min(poll, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                self.timed_out = True
            elif (used := self._cpu()) is not None and used > self._limits.cpu_s:
                self.cpu_exceeded = True
            else:
                continue
            _kill_tree(self._pid, self._group)
            return

    def _cpu(self) -> float | None:
        return None if self._group is None else self._group.cpu_seconds()

    def stop(self) -> None:
        """The job ended by itself: stop watching."""
        self._done.set()
        self.join()


CPU_POLL_S = 0.02


def _kill_tree(pid: int, group: JobGroup | None) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if group is not None:
        group.kill_all()


def _feed_stdin(proc: subprocess.Popen[bytes], data: bytes) -> None:
    stream = proc.stdin
    if stream is None:
        return

    def feed() -> None:
        with contextlib.suppress(OSError):
            stream.write(data)
        with contextlib.suppress(OSError):
            stream.close()

    if len(data) <= 4096:
        feed()
    else:
        threading.Thread(target=feed, daemon=True).start()


class CappedOutput:
    """The first ``cap`` bytes of a stream, and whether more arrived."""

    def __init__(self, cap: int) -> None:
        self._cap = cap
        self._chunks: list[bytes] = []
        self._size = 0
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        """Keep what fits of ``chunk``."""
        room = self._cap - self._size
        if len(chunk) > room:
            self.truncated = True
            chunk = chunk[: max(room, 0)]
        if chunk:
            self._chunks.append(chunk)
            self._size += len(chunk)

    @property
    def data(self) -> bytes:
        """What was kept."""
        return b"".join(self._chunks)


class CappedReader(threading.Thread):
    """Drains one pipe descriptor into a :class:`CappedOutput`, in a thread of its own, until
    the end of the pipe or :meth:`finish`.

    The caller owns the descriptor and closes it once :meth:`finish` says the thread stopped.
    """

    def __init__(self, fd: int, cap: int) -> None:
        super().__init__(daemon=True)
        self._fd = fd
        self._stop_r, self._stop_w = os.pipe()
        self.output = CappedOutput(cap)
        self.start()

    def run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._stop_r, select.POLLIN)
        with contextlib.suppress(OSError):
            while True:
                if self._fd in [fd for fd, _events in poller.poll()]:
                    chunk = os.read(self._fd, READ_CHUNK)
                    if not chunk:
                        return
                    self.output.add(chunk)
                    continue
                os.set_blocking(self._fd, False)  # finished: what the pipe holds, no more
                while chunk := os.read(self._fd, READ_CHUNK):
                    self.output.add(chunk)
                return

    def finish(self, timeout: float) -> bool:
        """Take what the pipe holds and stop, once no process of the command is left to write
        more: the end of the pipe may be far off all the same, since a descriptor the command
        sent over a Unix socket of its own, and left in flight, holds the pipe open until the
        kernel next collects such sockets (on a quiet host, maybe never). Whether the thread
        stopped within ``timeout``."""
        os.write(self._stop_w, b"x")
        self.join(timeout)
        if self.is_alive():
            return False
        os.close(self._stop_r)
        os.close(self._stop_w)
        return True
