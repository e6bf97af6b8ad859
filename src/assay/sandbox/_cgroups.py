"""Per-job control groups: memory and process limits over a whole job, where the host allows.

Both cgroup v1 (separate ``memory`` and ``pids`` hierarchies) and v2 (one unified hierarchy) are
supported. Where neither is writable, :func:`open_job_group` returns ``None`` and the caller notes
that only per-process limits hold.

Root makes its groups at the top of each hierarchy; another user inside the group it runs in,
where that group is handed to it (see :class:`Layout`).

Every group is named ``<kind>-<pid of the assay process>-<its PID namespace>-<random>`` under
``assay/``: when an assay process dies without removing its groups, the next one to open a group
in the same PID namespace removes them (:func:`remove_stale_groups`), and a test can tell its
own groups from another process's. A process in another PID namespace (a container sharing the
host's cgroup hierarchy) cannot tell whether their owner lives, so it leaves them alone.
On cgroup v1, TCP socket buffers are charged to the group only once its
``memory.kmem.tcp.limit_in_bytes`` is set, and then apart from its memory limit:
:meth:`JobGroup.set_limits` sets them a limit of a quarter of the memory limit, so that a job
holds at most 1.25 times its limit in all, and the peak it reports includes them. (cgroup v2
charges them to the memory limit itself.)
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from assay._namespaces import pid_namespace

ROOT = Path("/sys/fs/cgroup")
PARENT = "assay"
OWNED = re.compile(r"^(?:job|worker|host)-(\d+)-(?:(\d+)-)?[0-9a-f]+$")
"""Names of the groups assay makes: the process id of the assay process, the inode of its PID
namespace (absent from the names of older versions) and a random part."""
TCP_SHARE = 4
"""On cgroup v1, TCP buffers may take this fraction (1/4) of the memory limit on top of it."""
_V1_TCP = ("memory.kmem.tcp.limit_in_bytes", "memory.kmem.tcp.max_usage_in_bytes")
_swept = False
_sweep_lock = threading.Lock()


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

    @property
    def cpu_file(self) -> Path | None:
        """The file whose figure :meth:`cpu_seconds` reads (nanoseconds on v1, ``cpu.stat``'s
        ``usage_usec`` on v2)."""
        if self.cpu is None:
            return None
        return self.cpu / ("cpuacct.usage" if self.version == 1 else "cpu.stat")

    def procs_files(self) -> list[bytes]:
        """Paths (as bytes, ready for a forked child) of every ``cgroup.procs`` to join."""
        return [os.fsencode(d / "cgroup.procs") for d in self.dirs]

    def usage_mb(self) -> float | None:
        """Memory the group uses now, MiB."""
        value = _read_int(self.usage_file)
        return None if value is None else value / 2**20

    def peak_memory_mb(self) -> float | None:
        """Peak memory of the whole job, MiB, TCP socket buffers included on v1 (where the
        kernel counts them apart)."""
        try:
            value = int(self._peak.read().strip())
        except (OSError, ValueError):
            return None
        if self.version == 1:
            with contextlib.suppress(OSError, ValueError):
                value += int(self._tcp_peak.read().strip())
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
        """Change the group's memory and process limits (for the next job of a reused group).
        Raises ``OSError`` when the kernel does not take the memory limit."""
        if self.version == 1:
            limit = str(memory_mb * 2**20)
            path = self.memory / "memory.limit_in_bytes"
            swap = self.memory / "memory.memsw.limit_in_bytes"
            # memsw must stay >= the memory limit, so order the writes by direction.
            growing = (_read_int(path) or 0) < memory_mb * 2**20
            if not growing:
                _lower_v1(path, limit)
            with contextlib.suppress(OSError):  # there only where swap is accounted
                swap.write_text(limit)
            if growing:
                path.write_text(limit)
            with contextlib.suppress(OSError):  # charges TCP buffers to the group from now on
                tcp = memory_mb * 2**20 // TCP_SHARE
                (self.memory / _V1_TCP[0]).write_text(str(tcp))
        else:
            (self.memory / "memory.max").write_text(str(memory_mb * 2**20))
        (self.pids / "pids.max").write_text(str(max_processes))

    @property
    def usage_file(self) -> Path:
        """The file of the memory the group uses now, bytes."""
        return self.memory / ("memory.usage_in_bytes" if self.version == 1 else "memory.current")

    @property
    def reclaim_file(self) -> Path:
        """The file that makes the kernel reclaim the group's memory: on v1 all it can (any
        write), on v2 the number of bytes written."""
        return self.memory / ("memory.force_empty" if self.version == 1 else "memory.reclaim")

    def peak_descriptors(self) -> list[int]:
        """New descriptors of the files :meth:`peak_memory_mb` reads (and, on v1, of the TCP
        buffers' peak), for a worker to start each job's peak afresh by writing to them: each
        is the same open file as this group's own, since cgroup v2 resets a peak for reads
        through the file that was written to."""
        found = []
        for file in [self._peak, self._tcp_peak] if self.version == 1 else [self._peak]:
            with contextlib.suppress(OSError):  # a file this kernel does not have
                found.append(os.dup(file.descriptor()))
        return found

    # Read or written around every job of a pool worker: kept open.
    @cached_property
    def _peak(self) -> _KeptFile:
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        return _KeptFile(self.memory / name)

    @cached_property
    def _tcp_peak(self) -> _KeptFile:
        return _KeptFile(self.memory / _V1_TCP[1])

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
        for kept in ("_peak", "_tcp_peak", "_oom"):
            if kept in self.__dict__:
                self.__dict__.pop(kept).close()
        self.kill_all()
        for directory in self.dirs:
            if not _remove_tree(directory):
                _leftovers.add(directory)

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

    def descriptor(self) -> int:
        return self._open()

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
    remove_stale_groups()
    name = group_name(kind)
    found = layout()
    if found is None:
        return None
    with contextlib.suppress(OSError):
        if found.version == 1:
            return _open_v1(found, name, memory_mb, max_processes)
        return _open_v2(found, name, memory_mb, max_processes)
    return None


def group_name(kind: str) -> str:
    """A new group's name: see :data:`OWNED`."""
    return f"{kind}-{os.getpid()}-{pid_namespace()}-{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class Layout:
    """Where this process makes its groups: ``assay/`` under each base directory.

    Root makes them at the top of each hierarchy. Another user makes them inside the group it
    runs in, where that group is handed to it (writable), as systemd delegates a subtree to a
    user's services (cgroup v2) or an administrator hands one over (v1).
    """

    version: int
    bases: dict[str, Path]
    """Base directory per controller: ``memory``, ``pids`` and, where there is one, ``cpu``
    (``cpuacct`` on v1); on v2 all three are the same directory."""

    def parents(self) -> list[Path]:
        """The ``assay`` directories that hold the groups."""
        return sorted({base / PARENT for base in self.bases.values()})


@functools.cache
def layout() -> Layout | None:
    """Where this process can make job groups, or None where it cannot (no writable cgroup).
    Found once per process."""
    try:
        return _find_layout()
    except OSError:
        return None


def _find_layout() -> Layout | None:
    if os.geteuid() == 0:
        top = {"memory": ROOT / "memory", "pids": ROOT / "pids", "cpu": ROOT / "cpuacct"}
    else:
        top = {c: ROOT / c / _own_group(c) for c in ("memory", "pids", "cpuacct")}
        top["cpu"] = top.pop("cpuacct")
    if _writable(top["memory"]) and _writable(top["pids"]):
        bases = {c: d for c, d in top.items() if c != "cpu" or _writable(d)}
        return Layout(1, bases)
    unified = _unified_base()
    if unified is None:
        return None
    return Layout(2, {"memory": unified, "pids": unified, "cpu": unified})


def _own_group(controller: str | None) -> str:
    """The group this process is in, relative to the hierarchy's root: the one holding
    ``controller`` (v1), or the unified hierarchy's (``None``)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            number, controllers, path = line.split(":", 2)
            names = controllers.split(",")
            if (controller is None and number == "0") or (controller and controller in names):
                return path.lstrip("/")
    return ""


def remove_stale_groups() -> list[Path]:
    """Remove the groups that dead assay processes of this PID namespace left (their owner's
    process id is gone), killing anything still in them; once per process. Returns what was
    removed. The process ids of another namespace mean nothing here: judged by them, every
    living process's groups would look stale and be torn down under its running jobs."""
    global _swept  # noqa: PLW0603 - one sweep per process
    with _sweep_lock:
        if _swept:
            return []
        _swept = True
    found = layout()
    here = str(pid_namespace())
    removed = []
    for parent in found.parents() if found else []:
        with contextlib.suppress(OSError):
            for group in parent.iterdir():
                match = OWNED.match(group.name)
                if not match or match.group(2) not in (None, here):
                    continue
                if group.is_dir() and not _alive(int(match.group(1))):
                    if not _remove_tree(group):
                        _leftovers.add(group)
                    removed.append(group)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_tree(directory: Path, tries: int = 50) -> bool:
    """Kill what is in a group and its subgroups, then remove them, deepest first; whether
    the group is gone after ``tries`` attempts 5 ms apart."""
    with contextlib.suppress(OSError):
        for child in directory.iterdir():
            if child.is_dir():
                _remove_tree(child, tries)
    for _ in range(tries):
        try:
            pids = [int(p) for p in (directory / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            directory.rmdir()
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.005)  # still dying
        else:
            return True
    return False


class _Leftovers:
    """Groups that could not be removed when their job ended, because a killed process was
    still exiting (a process that frees much memory or a large private file system can take
    seconds on a loaded host). One background thread keeps killing what is in them and removing
    them, for up to :data:`LEFTOVER_PATIENCE_S`; what it gives up on is left to the next assay
    process's sweep (:func:`remove_stale_groups`), as after a crash."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[Path, float] = {}
        self._thread: threading.Thread | None = None

    def add(self, directory: Path) -> None:
        with self._lock:
            self._waiting.setdefault(directory, time.monotonic() + LEFTOVER_PATIENCE_S)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._reap, name="assay-cgroup-reaper", daemon=True
                )
                self._thread.start()

    def waiting(self) -> list[Path]:
        """The groups still to remove."""
        with self._lock:
            return sorted(self._waiting)

    def _reap(self) -> None:
        pause = 0.02
        while True:
            time.sleep(pause)
            pause = min(pause * 2, 1.0)
            with self._lock:
                due = dict(self._waiting)
            for directory, deadline in due.items():
                if _remove_tree(directory, tries=1) or time.monotonic() > deadline:
                    with self._lock:
                        self._waiting.pop(directory, None)
            with self._lock:
                if not self._waiting:
                    self._thread = None
                    return


LEFTOVER_PATIENCE_S = 300.0
"""How long a group that outlived its job is retried before it is left for the next sweep."""
_leftovers = _Leftovers()


def open_child_group(parent: JobGroup, name: str, memory_mb: int, max_processes: int) -> JobGroup:
    """A group inside ``parent``, called ``name``, with its own limits (which count within the
    parent's). Raises ``OSError`` when the host refuses."""
    if parent.version == 2:
        (parent.memory / "cgroup.subtree_control").write_text("+memory +pids")
    dirs = tuple(_mkdir(directory / name) for directory in parent.dirs)
    by_parent = dict(zip(parent.dirs, dirs, strict=True))
    group = JobGroup(
        version=parent.version,
        dirs=dirs,
        memory=by_parent[parent.memory],
        pids=by_parent[parent.pids],
        cpu=None if parent.cpu is None else by_parent[parent.cpu],
    )
    group.set_limits(memory_mb, max_processes)
    return group


def _open_v1(found: Layout, name: str, memory_mb: int, max_processes: int) -> JobGroup:
    memory = _mkdir(found.bases["memory"] / PARENT / name)
    pids = _mkdir(found.bases["pids"] / PARENT / name)
    cpu = _mkdir(found.bases["cpu"] / PARENT / name) if "cpu" in found.bases else None
    dirs = (memory, pids) if cpu is None else (memory, pids, cpu)
    group = JobGroup(version=1, dirs=dirs, memory=memory, pids=pids, cpu=cpu)
    group.set_limits(memory_mb, max_processes)
    return group


def _open_v2(found: Layout, name: str, memory_mb: int, max_processes: int) -> JobGroup:
    job = _mkdir(found.bases["memory"] / PARENT / name)
    with contextlib.suppress(OSError):
        (job / "memory.swap.max").write_text("0")
    group = JobGroup(version=2, dirs=(job,), memory=job, pids=job, cpu=job)
    group.set_limits(memory_mb, max_processes)
    return group


def _unified_base() -> Path | None:
    """The unified hierarchy's directory to make groups in, with the memory and pids
    controllers passed down to ``assay/`` under it; None where there is none this process may
    write. For a user other than root that is the group it runs in (a delegated one): the
    kernel passes controllers down only from groups that hold no process, so this process first
    moves itself into a leaf of its own, ``assay/host-<pid>-<random>``."""
    for top in (ROOT, ROOT / "unified"):
        if not (top / "cgroup.controllers").exists():
            continue
        base = top if os.geteuid() == 0 else top / _own_group(None)
        controllers = (base / "cgroup.controllers").read_text().split()
        if not ({"memory", "pids"} <= set(controllers) and _writable(base)):
            return None
        parent = _mkdir(base / PARENT)
        if base != top:
            leaf = _mkdir(parent / group_name("host"))
            (leaf / "cgroup.procs").write_text(str(os.getpid()))
            (base / "cgroup.subtree_control").write_text("+memory +pids")
        (parent / "cgroup.subtree_control").write_text("+memory +pids")
        return base
    return None


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


LOWER_WAIT_S = 5.0
"""How long a cgroup v1 memory limit may wait for the group's memory to come under it."""


def _lower_v1(path: Path, limit: str) -> None:
    """Lower a cgroup v1 memory limit. The kernel refuses (``EBUSY``) a limit under what the
    group holds and cannot reclaim, as a pool worker's group holds its last job's scratch
    until the worker has unmounted it, a moment after the job's end: wait for that, rather
    than leave the next job the larger limit. Raises ``OSError`` when it does not come."""
    deadline = time.monotonic() + LOWER_WAIT_S
    while True:
        try:
            path.write_text(limit)
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                raise
        else:
            return
        time.sleep(0.002)


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None
