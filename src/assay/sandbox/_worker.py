"""One warm worker of the pool, seen from the host: its bubblewrap sandbox, control socket and
cgroup, and the running of one job on it.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import marshal
import os
import queue
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

from assay.errors import SandboxError
from assay.sandbox._cgroups import JobGroup, open_child_group, open_job_group
from assay.sandbox._exchange import (
    PIPE_BYTES,
    Captured,
    Exchange,
    WorkerFailedError,
    WorkerGoneError,
    send,
)
from assay.sandbox._fresh_start import prefix
from assay.sandbox._process import MAX_OPEN_FILES, check_files, options_fd
from assay.sandbox._results import JobEnd, address_space_bytes, exec_result
from assay.sandbox._userns import Identity, popen
from assay.sandbox.protocol import ExecResult
from assay.tasks.spec import Limits

_DEFAULT_PIPE_BYTES = 65536
"""What a Linux pipe holds unless enlarged."""

ZYGOTE = package_files("assay.sandbox").joinpath("_zygote.py").read_text(encoding="utf-8")
START_TIMEOUT_S = 15.0
REPLY_GRACE_S = 5.0
BASELINE_SLACK_MB = 8
"""Allowance above the worker's own measured memory, in the group over the worker and its job."""
MAIN_MEMORY_MB = 65536
"""The worker's own group is bounded by the group over it, not by a limit of its own."""
MAIN_PROCESSES = 8
"""bubblewrap, the zygote, and each job's first process until it moves into the job's group."""
_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_NET_ADMIN")
"""The worker's own: mounting each job's scratch and resetting the PID counter, becoming the
job's uid, killing what it left, and bringing up loopback in each new network namespace it
makes for the jobs (its own namespaces only: the worker is in none of the host's)."""
_SHARED_CAPABILITIES = ("CAP_SETPCAP", "CAP_SETFCAP")
"""Where jobs keep the worker's uid (``shared`` identity): dropping every capability of a job
for good (its bounding set and securebits), and mapping the worker's uid in the namespace each
job makes for itself (the kernel asks for CAP_SETFCAP to map a namespace's root)."""


class Worker:
    """A zygote in its own sandbox, serving one job at a time."""

    def __init__(
        self,
        bwrap: str,
        system_args: list[str],
        python: str,
        uid: int,
        *,
        seccomp: tuple[bytes, bytes, bytes] | None,
        identity: Identity,
        trusted_code: Mapping[str, str] | None = None,
        preload: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
        conditions: Mapping[str, str] | None = None,
    ) -> None:
        self.uid = uid
        self.python = python
        self.jobs = 0
        self.healthy = True
        self._group_limits: tuple[int, int] | None = None
        self._oom_kills = 0
        self.idle_since = time.monotonic()
        self.groups = WorkerGroups.open()
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock = host_end
        inherited, job_cgroup = self.groups.descriptors() if self.groups else ([], {})
        hidden = options_fd(_bwrap_args(system_args, python, identity, conditions or {}))
        # Under conditions the interpreter honours its PYTHON* variables (the hash seed among
        # them), which are all ours: -I without ignoring the environment is -s -P.
        flags = ["-s", "-P"] if conditions else ["-I"]
        # Through the fresh start: the worker, and every job it forks, holds no signal ignored
        # or blocked because this process does.
        argv = [bwrap, "--args", str(hidden), "--", *prefix(python)]
        argv += [python, *flags, "-S", "-c", ZYGOTE]
        argv.append(str(worker_end.fileno()))
        procs = self.groups.main.procs_files() if self.groups else []
        try:
            self._proc = _spawn(
                argv,
                identity,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(worker_end.fileno(), hidden, *inherited),
                start_new_session=True,
                before=lambda: _join(procs),
            )
        finally:
            worker_end.close()
            os.close(hidden)
            for fd in inherited:
                os.close(fd)
        try:
            # the worker's part, then each job's part: with sockets, and without
            for part in seccomp or (b"", b"", b""):
                send(self._sock, part)
            settings = {
                "uid": uid,
                "max_open_files": MAX_OPEN_FILES,
                "trusted_code": dict(trusted_code or {}),
                "preload": list(preload[0]),
                "preload_path": list(preload[1]),
                "job_cgroup": job_cgroup,
            }
            send(self._sock, marshal.dumps(settings))
            reply = Exchange(self._sock, writes={}, reads=(), cap=0).run(START_TIMEOUT_S)
        except (OSError, WorkerFailedError) as exc:
            self.close()
            raise SandboxError(f"the pool could not start a worker: {exc}") from None
        self.zygote_pid = int(reply.get("ready", 0))
        # The group over the worker and its job allows the job's limit and what the worker
        # itself uses; the job's own group is held to the job's limit.
        usage = self.groups.main.usage_mb() if self.groups else None
        self._baseline_mb = int(usage or 0) + BASELINE_SLACK_MB

    @property
    def pids(self) -> list[int]:
        """Host PIDs of the worker's processes (bubblewrap and the zygote)."""
        found = [self._proc.pid]
        with contextlib.suppress(OSError):
            children = Path(f"/proc/{self._proc.pid}/task/{self._proc.pid}/children").read_text()
            for child in children.split():
                found.append(int(child))
                with contextlib.suppress(OSError):
                    found += [
                        int(p)
                        for p in Path(f"/proc/{child}/task/{child}/children").read_text().split()
                    ]
        return found

    def alive(self) -> bool:
        """Whether the worker's sandbox is still running."""
        return self._proc.poll() is None

    def run(
        self,
        meta: Mapping[str, object],
        files: Mapping[str, bytes],
        limits: Limits,
        stdin: bytes,
        notes: tuple[str, ...],
        *,
        session: str | None = None,
        sockets: bool = True,
    ) -> ExecResult:
        """Run one job and report it. Jobs of one ``session`` share their /workspace and /tmp;
        any other job starts from fresh, empty ones. A job without ``sockets`` can open none, and
        leaves the worker's network namespace to the next job: it could not change it. Sets
        :attr:`healthy` to False when the worker could not clean up after the job. Raises
        :class:`WorkerFailedError` when it does not answer or dies.
        """
        check_files(files, limits)
        payload = _payload(meta, files)
        self.jobs += 1
        if self.groups is not None:
            wanted = (limits.memory_mb, limits.max_processes)
            if wanted != self._group_limits:  # cgroup writes are not free: only on change
                self._group_limits = None  # until the kernel has taken them all
                try:
                    self.groups.set_limits(*wanted, baseline_mb=self._baseline_mb)
                except OSError as exc:  # the job never started: a fresh worker takes it
                    self.healthy = False
                    raise WorkerGoneError(f"the worker's limits could not be set: {exc}") from None
                self._group_limits = wanted
        pipes = [os.pipe() for _ in range(4)]
        (payload_r, payload_w), (stdin_r, stdin_w), (out_r, out_w), (err_r, err_w) = pipes
        header = {
            "address_space": address_space_bytes(limits.memory_mb, grouped=self.groups is not None),
            "limits": _plain_limits(limits),
            "disk_mb": limits.memory_mb,
            "max_files": limits.max_files,
            "session": session,
            "sockets": sockets,
        }
        for fd, data in ((payload_w, payload), (stdin_w, stdin)):
            _fit_pipe(fd, len(data))
        # What fits in the pipes goes in before the job starts, so that the job never waits.
        writes = {payload_w: _prefill(payload_w, payload), stdin_w: _prefill(stdin_w, stdin)}
        for fd in [fd for fd, rest in writes.items() if not rest]:
            os.close(fd)
            del writes[fd]
        try:
            send(self._sock, marshal.dumps(header), [payload_r, stdin_r, out_w, err_w])
        except OSError as exc:
            for fd in (*writes, out_r, err_r):
                os.close(fd)
            raise WorkerGoneError(f"worker unreachable: {exc}") from None
        finally:
            for fd in (payload_r, stdin_r, out_w, err_w):
                os.close(fd)
        exchange = Exchange(
            self._sock,
            writes=writes,
            reads=(out_r, err_r),
            cap=limits.max_output_kb * 1024,
        )
        reply = exchange.run(limits.timeout_s + REPLY_GRACE_S)
        oom: bool | None = None
        if self.groups is not None:
            kills = self.groups.job.oom_kills()
            oom, self._oom_kills = kills > self._oom_kills, kills
        self.healthy = bool(reply.get("clean")) and self.alive()
        self.idle_since = time.monotonic()
        return _result(reply, exchange.outputs, oom, self.peak_memory_mb(), notes)

    def end_session(self) -> None:
        """Unmount the scratch of the session that ran last, at once: what it holds stays
        charged to the job's group until then, and the next job's lower memory limit would
        wait for it. Raises :class:`WorkerFailedError` when the worker does not answer."""
        try:
            send(self._sock, marshal.dumps({"end_session": True}))
        except OSError as exc:
            raise WorkerGoneError(f"worker unreachable: {exc}") from None
        Exchange(self._sock, writes={}, reads=(), cap=0).run(REPLY_GRACE_S)

    def peak_memory_mb(self) -> float | None:
        """Peak memory of the last job, all its processes together."""
        return self.groups.job.peak_memory_mb() if self.groups else None

    def close(self) -> None:
        """Stop the worker and everything in it."""
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        if self.groups is not None:
            self.groups.close()


_spawn_requests: queue.SimpleQueue[tuple[Callable[[], subprocess.Popen[bytes]], Future[Any]]] = (
    queue.SimpleQueue()
)
_spawner_lock = threading.Lock()
_spawner: threading.Thread | None = None


def _spawn(argv: list[str], identity: Identity, **kwargs: Any) -> subprocess.Popen[bytes]:
    """Start a worker from one long-lived thread, in a user namespace where ``identity`` needs
    one made outside bubblewrap.

    bubblewrap's --die-with-parent follows the *thread* that started it, so a worker started
    from a short-lived caller thread would be killed when that thread ends.
    """
    global _spawner  # noqa: PLW0603 - one spawner thread per process
    with _spawner_lock:
        if _spawner is None or not _spawner.is_alive():
            _spawner = threading.Thread(
                target=_serve_spawns, name="assay-pool-spawner", daemon=True
            )
            _spawner.start()
    done: Future[subprocess.Popen[bytes]] = Future()
    _spawn_requests.put((lambda: popen(argv, identity, **kwargs), done))
    return done.result()


def _serve_spawns() -> None:
    while True:
        start, done = _spawn_requests.get()
        try:
            done.set_result(start())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which re-raises
            done.set_exception(exc)


def _bwrap_args(
    system_args: list[str], python: str, identity: Identity, conditions: Mapping[str, str]
) -> list[str]:
    caps: list[str] = []
    shared = _SHARED_CAPABILITIES if identity.kind == "shared" else ()
    for cap in (*_CAPABILITIES, *shared):
        caps += ["--cap-add", cap]
    return [
        *identity.bwrap_args(),
        "--unshare-pid",
        # The zygote is the namespace's init: no job can signal it (the kernel drops a signal
        # to init from inside its namespace unless init handles it), whatever uid it runs as.
        "--as-pid-1",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        *caps,
        "--clearenv",
        *[
            arg
            for name, value in (job_env(python) | dict(conditions)).items()
            for arg in ("--setenv", name, value)
        ],
        # Bind every symbol at load, in the worker, not on first call in each job (a
        # copy-on-write fault per page written); the worker drops it from its environment.
        "--setenv",
        "LD_BIND_NOW",
        "1",
        *system_args,
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",  # noqa: S108 - the worker's own; each job mounts a fresh one
        "--dir",
        "/workspace",
        "--remount-ro",
        "/",
        "--remount-ro",
        "/dev",
        "--chdir",
        "/",
    ]


def job_env(python: str) -> dict[str, str]:
    """The environment of every job; the worker itself starts with it, so jobs inherit it."""
    return {
        "PATH": f"{Path(python).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/workspace",
        "TMPDIR": "/tmp",  # noqa: S108 - a fresh private tmpfs per job
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _join(procs_files: list[bytes]) -> None:
    """In the worker's first process, before exec: join its cgroups."""
    pid = str(os.getpid()).encode()
    for path in procs_files:
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, pid)
        os.close(fd)


@functools.lru_cache(maxsize=64)
def _plain_limits(limits: Limits) -> dict[str, Any]:
    return limits.model_dump()


def _fit_pipe(fd: int, size: int) -> None:
    """Enlarge the pipe to take ``size`` bytes (up to :data:`PIPE_BYTES`) where the host allows:
    a payload that goes in at once saves the job and the host a wake-up per 64 KiB."""
    if size > _DEFAULT_PIPE_BYTES:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, min(size, PIPE_BYTES))


def _prefill(fd: int, data: bytes) -> bytes:
    """Write what the pipe takes without blocking; return the rest."""
    os.set_blocking(fd, False)
    try:
        return data[os.write(fd, data) :] if data else data
    except BlockingIOError:
        return data


def _payload(meta: Mapping[str, object], files: Mapping[str, bytes]) -> bytes:
    names = sorted(files)
    encoded = marshal.dumps({**meta, "files": [(name, len(files[name])) for name in names]})
    return len(encoded).to_bytes(8, "big") + encoded + b"".join(files[name] for name in names)


def _result(
    reply: dict[str, Any],
    readers: list[Captured],
    oom: bool | None,
    peak: float | None,
    notes: tuple[str, ...],
) -> ExecResult:
    end = JobEnd(
        status=int(reply["status"]),
        timed_out=bool(reply["timed_out"]),
        wall_s=float(reply["wall_s"]),
        cpu_s=float(reply["cpu_s"]),
        peak_memory_mb=peak,
        oom_killed=oom,
        stdout=readers[0].data,
        stderr=readers[1].data,
        stdout_truncated=readers[0].truncated,
        stderr_truncated=readers[1].truncated,
        cpu_exceeded=bool(reply.get("cpu_exceeded")),
    )
    return exec_result(end, notes)


@dataclass(frozen=True)
class WorkerGroups:
    """The cgroups of one worker: ``total`` over everything, holding ``main`` (bubblewrap and
    the zygote) and ``job`` (each job in turn: its CPU time, peak memory and process count are
    the job's alone)."""

    total: JobGroup
    main: JobGroup
    job: JobGroup

    @classmethod
    def open(cls) -> WorkerGroups | None:
        """The groups of a new worker, or None where the host has no writable cgroup."""
        total = open_job_group(512, 64, kind="worker")
        if total is None:
            return None
        try:
            main = open_child_group(total, "main", MAIN_MEMORY_MB, MAIN_PROCESSES)
            job = open_child_group(total, "job", 256, 64)
        except OSError:
            total.close()
            return None
        return cls(total=total, main=main, job=job)

    def descriptors(self) -> tuple[list[int], dict[str, object]]:
        """Descriptors for the worker to inherit (the job group's ``cgroup.procs`` files, to
        move each job's first process in; its CPU usage, to stop a job that passes its CPU
        limit; its memory usage, the file that reclaims it and its peaks, to give each job a
        group in which nothing an earlier job left is charged, and a peak of its own), and the
        settings that tell the worker which is which."""
        procs = [os.open(path, os.O_WRONLY | os.O_CLOEXEC) for path in self.job.procs_files()]
        cpu_file = self.job.cpu_file
        cpu = None if cpu_file is None else os.open(cpu_file, os.O_RDONLY | os.O_CLOEXEC)
        usage = os.open(self.job.usage_file, os.O_RDONLY | os.O_CLOEXEC)
        reclaim = None
        with contextlib.suppress(OSError):  # a kernel without it: no job's peak is lowered
            reclaim = os.open(self.job.reclaim_file, os.O_WRONLY | os.O_CLOEXEC)
        peaks = self.job.peak_descriptors()
        inherited = [*procs, *([] if cpu is None else [cpu]), usage, *peaks]
        inherited += [] if reclaim is None else [reclaim]
        settings: dict[str, object] = {
            "procs": procs,
            "cpu": cpu,
            "version": self.job.version,
            "memory": {"usage": usage, "reclaim": reclaim, "peaks": peaks},
        }
        return inherited, settings

    def set_limits(self, memory_mb: int, max_processes: int, *, baseline_mb: int) -> None:
        """The job's limits for its group, and room for the worker's own use above them."""
        self.total.set_limits(memory_mb + baseline_mb, max_processes + MAIN_PROCESSES)
        self.job.set_limits(memory_mb, max_processes)

    def close(self) -> None:
        """Kill what is left in the groups and remove them."""
        self.total.close()
