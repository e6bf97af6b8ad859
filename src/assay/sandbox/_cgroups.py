"""Per-job control groups: memory and process limits over a whole job, where the host allows.

Both cgroup v1 (separate ``memory`` and ``pids`` hierarchies) and v2 (one unified hierarchy) are
supported. Where neither is writable, :func:`open_job_group` returns ``None`` and the caller notes
that only per-process limits hold.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PARENT = "assay"


@dataclass(frozen=True)
class JobGroup:
    """The cgroup directories holding one job, and the files to read its figures from."""

    version: int
    dirs: tuple[Path, ...]
    memory: Path
    pids: Path
    cpu: Path | None

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process of the job, seconds."""
        if self.cpu is None:
            return None
        if self.version == 1:
            value = _read_int(self.cpu / "cpuacct.usage")
            return None if value is None else value / 1e9
        with contextlib.suppress(OSError, ValueError):
            for line in (self.cpu / "cpu.stat").read_text().splitlines():
                key, _, number = line.partition(" ")
                if key == "usage_usec":
                    return int(number) / 1e6
        return None

    def procs_files(self) -> list[bytes]:
        """Paths (as bytes, ready for a forked child) of every ``cgroup.procs`` to join."""
        return [os.fsencode(d / "cgroup.procs") for d in self.dirs]

    def usage_mb(self) -> float | None:
        """Memory the group uses now, MiB."""
        name = "memory.usage_in_bytes" if self.version == 1 else "memory.current"
        value = _read_int(self.memory / name)
        return None if value is None else value / 2**20

    def peak_memory_mb(self) -> float | None:
        """Peak memory of the whole job, MiB."""
        try:
            value = int(self._peak.read().strip())
        except (OSError, ValueError):
            return None
        return value / 2**20

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the job for memory."""
        return self.oom_kills() > 0

    def oom_kills(self) -> int:
        """How many processes the kernel has killed in this group for memory."""
        with contextlib.suppress(OSError, ValueError):
            for line in self._oom.read().splitlines():
                key, _, value = line.partition(b" ")
                if key == b"oom_kill":
                    return int(value)
        return 0

    def set_limits(self, memory_mb: int, max_processes: int) -> None:
        """Change the group's memory and process limits (for the next job of a reused group)."""
        if self.version == 1:
            limit = str(memory_mb * 2**20)
            path = self.memory / "memory.limit_in_bytes"
            swap = self.memory / "memory.memsw.limit_in_bytes"
            # memsw must stay >= the memory limit, so order the writes by direction.
            growing = (_read_int(path) or 0) < memory_mb * 2**20
            order = (swap, path) if growing else (path, swap)
            for target in order:
                with contextlib.suppress(OSError):
                    target.write_text(limit)
        else:
            (self.memory / "memory.max").write_text(str(memory_mb * 2**20))
        (self.pids / "pids.max").write_text(str(max_processes))

    def reset_peak(self) -> None:
        """Start measuring peak memory afresh, where the kernel allows it."""
        with contextlib.suppress(OSError):
            self._peak.write(b"0")

    # Read or written around every job of a pool worker: kept open.
    @cached_property
    def _peak(self) -> _KeptFile:
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        return _KeptFile(self.memory / name)

    @cached_property
    def _oom(self) -> _KeptFile:
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        return _KeptFile(self.memory / name)

    def kill_all(self) -> None:
        """Kill every process still in the job."""
        for _ in range(50):
            pids = self._pids()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def close(self) -> None:
        """Kill whatever is left of the job and remove its cgroups."""
        for kept in ("_peak", "_oom"):
            if kept in self.__dict__:
                self.__dict__.pop(kept).close()
        self.kill_all()
        for directory in self.dirs:
            with contextlib.suppress(OSError):
                directory.rmdir()

    def _pids(self) -> list[int]:
        found: set[int] = set()
        for directory in self.dirs:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (directory / "cgroup.procs").read_text().split())
        return sorted(found)


class _KeptFile:
    """A cgroup file opened once and read again from offset 0, where the kernel writes it
    afresh; opened for writing too where that is allowed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def read(self) -> bytes:
        return os.pread(self._open(), 4096, 0)

    def write(self, data: bytes) -> None:
        os.pwrite(self._open(), data, 0)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open(self) -> int:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
            except PermissionError:  # read-only here: writes then fail as OSError
                self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        return self._fd


def open_job_group(memory_mb: int, max_processes: int, kind: str = "job") -> JobGroup | None:
    """Create the cgroups of one job (or one pool worker: ``kind="worker"``) with its limits
    set, or ``None`` where that is not possible.
    """
    name = f"{kind}-{uuid.uuid4().hex[:12]}"
    with contextlib.suppress(OSError):
        if _writable(ROOT / "memory") and _writable(ROOT / "pids"):
            return _open_v1(name, memory_mb, max_processes)
        unified = _unified_root()
        if unified is not None:
            return _open_v2(unified, name, memory_mb, max_processes)
    return None


def _open_v1(name: str, memory_mb: int, max_processes: int) -> JobGroup:
    memory = _mkdir(ROOT / "memory" / PARENT / name)
    pids = _mkdir(ROOT / "pids" / PARENT / name)
    limit = str(memory_mb * 2**20)
    (memory / "memory.limit_in_bytes").write_text(limit)
    with contextlib.suppress(OSError):  # swap accounting may be off
        (memory / "memory.memsw.limit_in_bytes").write_text(limit)
    (pids / "pids.max").write_text(str(max_processes))
    cpu = _mkdir(ROOT / "cpuacct" / PARENT / name) if _writable(ROOT / "cpuacct") else None
    dirs = (memory, pids) if cpu is None else (memory, pids, cpu)
    return JobGroup(version=1, dirs=dirs, memory=memory, pids=pids, cpu=cpu)


def _open_v2(unified: Path, name: str, memory_mb: int, max_processes: int) -> JobGroup:
    parent = _mkdir(unified / PARENT)
    (parent / "cgroup.subtree_control").write_text("+memory +pids")
    job = _mkdir(parent / name)
    (job / "memory.max").write_text(str(memory_mb * 2**20))
    with contextlib.suppress(OSError):
        (job / "memory.swap.max").write_text("0")
    (job / "pids.max").write_text(str(max_processes))
    return JobGroup(version=2, dirs=(job,), memory=job, pids=job, cpu=job)


def _unified_root() -> Path | None:
    for candidate in (ROOT, ROOT / "unified"):
        controllers = candidate / "cgroup.controllers"
        if controllers.exists() and {"memory", "pids"} <= set(controllers.read_text().split()):
            return candidate if _writable(candidate) else None
    return None


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None
