"""The warm pool: real isolation at the cost of a fork.

Long-lived workers ("zygotes"), each inside its own bubblewrap sandbox (own PID, network, IPC, UTS
and mount namespaces, read-only system, cleared environment, dying with the pool) with the
modules verification needs already imported. Each job forks a child that gets fresh private
``/workspace`` and ``/tmp`` mounts, its own session, resource limits, an unprivileged uid of its
own slot, no new privileges and the seccomp filter. After each job every process it left is
killed; a worker is recycled after ``jobs_per_worker`` jobs (no job's code ever runs in the worker
itself; a new one costs about 50 ms of CPU) or after anything abnormal. One cap,
``max_workers``, bounds the sandboxes alive at once; the pool grows on demand within it and
shrinks workers idle for longer than ``idle_timeout_s``.

A worker's mounts are fixed when it starts, so each serves one Python environment (the standard
library, or that and the packages a run names): a job goes to an idle worker of its environment,
and when none is idle and no slot is free, the longest-idle worker of another one gives up its
slot.

A job may also ask for conditions: environment variables its interpreter must start under
(``PYTHONHASHSEED``, ``TZ``, ``LC_ALL``: the audit's flaky check). A fork keeps its parent's
hash seed, so such jobs go to workers started under those conditions, which every job they fork
inherits; up to :data:`CONDITIONED_SLOTS` of them live beside the cap's own, one for each set of
conditions and Python environment, so that the audit's runs under its conditions and its plain
runs do not take each other's workers (a worker started for every such job would cost more than
the job).

``python -I -S -c CODE`` commands take the fast path (the code runs in the forked child, no new
interpreter); any other command is executed inside the child, under the same isolation.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from assay.errors import SandboxError, SandboxUnavailableError
from assay.sandbox._exchange import WorkerFailedError, WorkerGoneError
from assay.sandbox._process import check_command
from assay.sandbox._pyenv import STANDARD_LIBRARY, Exposure, resolve
from assay.sandbox._seccomp import split_program
from assay.sandbox._uids import POOL_UIDS, UidLease, lease
from assay.sandbox._userns import SHARED_ID, host_identity
from assay.sandbox._worker import Worker
from assay.sandbox.bubblewrap import INSTALL_HINT, host_notes, system_view
from assay.sandbox.conditions import check_conditions
from assay.sandbox.protocol import PACKAGES_DIR, ExecResult
from assay.tasks.spec import Limits

CONDITIONED_SLOTS = 4
"""Workers under conditions (see the module docstring) alive at once, beyond ``max_workers``."""
DEFAULT_CAP = 64
"""Sandboxes alive at once, one-shot jobs and sessions together; workers start on demand."""
MAX_CAP = POOL_UIDS.size
"""Each pool leases a block of this many uids, one per slot, that no other pool on the host
holds while it lives."""
_FAST_FLAGS = frozenset({"-I", "-S"})
"""Flags a command must give to take the fast path: the worker's own interpreter is isolated
and without ``site``. A ``python -c`` without them finds what the worker lacks (its working
directory first on ``sys.path``, the builtins ``site`` adds, such as ``exit``): it is executed."""
_PYTHON_FLAGS = _FAST_FLAGS | {"-E", "-s"}
"""Flags a fast-path command may give: ``-E`` and ``-s`` are part of ``-I``. Not ``-u``: the
fast path's output is buffered; nor ``-B``: the worker's ``-I`` ignores the jobs'
PYTHONDONTWRITEBYTECODE, so its jobs write the bytecode of what they import."""
PRELOADED = ("sqlite3", "argparse", "csv", "datetime", "decimal", "importlib")
"""Standard-library modules the families' harnesses load, and those the repo family's projects
import most (a command line, CSV files, dates, money), that each worker imports once, before it
forks its first job (besides those its own code needs), so that no job pays for them. Not
``threading``: once imported, its hook runs in every process forked after (each job, each run
of a batch), a third of a millisecond and a hundred pages copied each."""


def preload_modules(environment: Exposure) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a worker of ``environment`` imports before serving: :data:`PRELOADED` and the
    top-level modules of the packages the run named (not their requirements), and where they
    are. A job still imports what it uses, and finds it loaded; ``sys.path`` is what it was."""
    declared = tuple(sorted(environment.declared_modules))
    return (*PRELOADED, *declared), (PACKAGES_DIR,) if declared else ()


class PoolSandbox:
    """Warm, isolated Python workers behind the :class:`assay.sandbox.Sandbox` protocol.

    ``trusted_code`` lists harness code (project code, never secret) that workers compile once
    at start; a ``python -c`` job whose code is one of them skips compiling. Other code is
    compiled in the job's own process, so nothing of one job stays in the worker for the next.
    """

    name = "pool"
    takes_conditions = True
    """:meth:`run` takes ``conditions`` (see :class:`assay.sandbox.conditions.WithEnvironment`)."""

    def __init__(
        self,
        *,
        max_workers: int | None = None,
        jobs_per_worker: int = 2000,
        idle_timeout_s: float = 60.0,
        bwrap: str | None = None,
        trusted_code: Sequence[str] = (),
    ) -> None:
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailableError(INSTALL_HINT)
        self.max_workers = max_workers or DEFAULT_CAP
        if not 1 <= self.max_workers <= MAX_CAP:
            raise SandboxError(f"max_workers must be between 1 and {MAX_CAP}")
        self.jobs_per_worker = jobs_per_worker
        self.idle_timeout_s = idle_timeout_s
        self._bwrap = found
        self._python = os.path.realpath(sys.executable)
        self._python_name = Path(self._python).name
        self._system = system_view(Path(os.path.realpath(sys.base_prefix)))
        self._seccomp = split_program()
        self._trusted = {hashlib.sha256(code.encode()).hexdigest(): code for code in trusted_code}
        self._trusted_digests = {code: digest for digest, code in self._trusted.items()}
        self.identity = host_identity(found)
        self._notes = (*host_notes(self._seccomp is not None), *self.identity.notes)
        self._uids: UidLease | None = None
        if self.identity.kind != "shared":  # there every job runs as the worker's own uid
            self._uids = lease(self.identity.uids)
        self._idle: list[Worker] = []
        self._busy = 0
        self._free_slots = list(range(self.max_workers))
        # Slots of workers under conditions, beyond the cap's (none where the cap takes every
        # uid of the block: such workers then take the cap's slots like any other).
        self._free_conditioned = list(
            range(self.max_workers, min(MAX_CAP, self.max_workers + CONDITIONED_SLOTS))
        )
        self._conditioned = bool(self._free_conditioned)
        self._slots: dict[int, int] = {}
        self._keys: dict[int, _Key] = {}
        self._alive: dict[_Key, int] = {}  # workers alive (idle or busy) by what they serve
        self._lock = threading.Condition()
        self._closed = False
        self.recycled = 0

    @property
    def notes(self) -> tuple[str, ...]:
        """Protections this host cannot give (no seccomp filter, no writable cgroup)."""
        return self._notes

    @property
    def python(self) -> str:
        """The host's Python interpreter, mounted read-only at the same path in every worker."""
        return self._python

    def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes = b"",
        packages: Sequence[str] = (),
        sockets: bool = True,
        conditions: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run ``command`` in a fresh job on a warm worker; see :class:`assay.sandbox.Sandbox`.
        With ``conditions``, on a worker started under them (see the module docstring)."""
        meta = self._meta(command)
        check_conditions(conditions or {})
        key = (resolve(packages), tuple(sorted((conditions or {}).items())))
        for _ in range(3):
            with self._worker(key) as worker:
                try:
                    return worker.run(
                        meta,
                        dict(files or {}),
                        limits or Limits(),
                        stdin,
                        self._notes,
                        sockets=sockets,
                    )
                except WorkerGoneError:
                    continue  # the job never started; give it to a fresh worker
        raise SandboxError("the pool could not keep a worker alive for three attempts")

    def session(self, packages: Sequence[str] = ()) -> PoolSession:
        """A sandbox of its own for a multi-turn episode: its ``/workspace`` and ``/tmp`` stay
        from one command to the next until it is closed. It holds one worker (counted against
        the cap) for its lifetime; an idle session costs that worker's memory and no CPU. Its
        ``packages`` (see :meth:`run`) are fixed when it opens.
        """
        environment = resolve(packages)
        return PoolSession(self, self._acquire((environment, ())), environment)

    def idle_worker_memory_mb(self) -> float:
        """Average proportional memory (PSS) of an idle worker, all its processes together."""
        with self._lock:
            workers = list(self._idle)
        if not workers:
            return 0.0
        return sum(_pss_mb(w.pids) for w in workers) / len(workers)

    def worker_cpu_seconds(self) -> float | None:
        """CPU time used so far by the idle workers and every job they ran (from their cgroups),
        or None without cgroups. Busy and retired workers are not counted."""
        with self._lock:
            workers = list(self._idle)
        figures = [w.groups.total.cpu_seconds() if w.groups else None for w in workers]
        if not figures or any(f is None for f in figures):
            return None
        return sum(f for f in figures if f is not None)

    def warm(self, count: int | None = None) -> None:
        """Start idle workers ahead of demand: ``count`` of them (default: one per CPU)."""
        wanted = min(count or os.cpu_count() or 2, self.max_workers)
        started = []
        with contextlib.ExitStack() as stack:
            for _ in range(wanted):
                started.append(stack.enter_context(self._worker((STANDARD_LIBRARY, ()))))

    @property
    def size(self) -> int:
        """Workers alive now, idle or busy."""
        with self._lock:
            return len(self._idle) + self._busy

    def close(self) -> None:
        """Stop every idle worker; busy ones stop when their job returns."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            self._retire(worker)
        with self._lock:
            if self._busy == 0 and self._uids is not None:
                self._uids.release()

    def __enter__(self) -> PoolSandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __deepcopy__(self, _memo: dict[int, object]) -> PoolSandbox:
        """The pool itself: it is a shared resource, like a connection (Gymnasium's ``make``
        deep-copies the arguments it passes on)."""
        return self

    @contextlib.contextmanager
    def _worker(self, key: _Key) -> Iterator[Worker]:
        worker = self._acquire(key)
        try:
            yield worker
        except WorkerFailedError:
            worker.healthy = False
            raise
        finally:
            self._release(worker)

    def _acquire(self, key: _Key) -> Worker:
        environment, conditions = key
        apart = bool(conditions) and self._conditioned  # on a slot beyond the cap's
        with self._lock:
            while True:
                if self._closed:
                    raise SandboxError("the pool is closed")
                self._shrink()
                idle = self._idle_of(key)
                if idle is not None:
                    self._busy += 1
                    return idle
                free = self._free_conditioned if apart else self._free_slots
                if apart and self._alive.get(key):
                    pass  # one worker a set of conditions (and environment): wait for it
                elif free:
                    slot = free.pop()
                    self._busy += 1
                    self._alive[key] = self._alive.get(key, 0) + 1
                    break
                else:  # all of other keys: the longest idle of the same slots gives its up
                    extra = self._extra
                    holders = [w for w in self._idle if (self._slots[id(w)] in extra) == apart]
                    if holders:
                        self._idle.remove(holders[0])
                        threading.Thread(
                            target=self._retire, args=(holders[0],), daemon=True
                        ).start()
                self._lock.wait()
        try:
            worker = Worker(
                self._bwrap,
                [*self._system, *environment.mount_args()],
                self._python,
                SHARED_ID if self._uids is None else self._uids.uid(slot),
                seccomp=self._seccomp,
                identity=self.identity,
                trusted_code=self._trusted,
                preload=preload_modules(environment),
                conditions=dict(conditions),
            )
        except BaseException:
            with self._lock:
                self._busy -= 1
                self._free_slot(slot, key)
                self._lock.notify_all()
            raise
        with self._lock:
            self._slots[id(worker)] = slot
            self._keys[id(worker)] = key
        return worker

    @property
    def _extra(self) -> range:
        """The slots of workers under conditions."""
        return range(self.max_workers, self.max_workers + CONDITIONED_SLOTS)

    def _free_slot(self, slot: int, key: _Key) -> None:
        """Give ``slot`` back, from a worker of ``key`` (called with the lock held)."""
        (self._free_conditioned if slot in self._extra else self._free_slots).append(slot)
        self._alive[key] -= 1
        if not self._alive[key]:
            del self._alive[key]

    def _idle_of(self, key: _Key) -> Worker | None:
        """The most recently idle live worker of ``key``, taken from the idle list (called with
        the lock held); dead ones met on the way are retired."""
        for index in range(len(self._idle) - 1, -1, -1):
            worker = self._idle[index]
            held = self._keys[id(worker)]
            if held[1] != key[1] or (held[0] is not key[0] and held[0] != key[0]):
                continue
            del self._idle[index]
            if worker.alive():
                return worker
            self.recycled += 1
            threading.Thread(target=self._retire, args=(worker,), daemon=True).start()
        return None

    def _release(self, worker: Worker) -> None:
        retire = not worker.healthy or not worker.alive() or worker.jobs >= self.jobs_per_worker
        with self._lock:
            self._busy -= 1
            keep = not (retire or self._closed)
            if keep:
                self._idle.append(worker)
            self.recycled += retire
            self._lock.notify_all()
        if not keep:
            self._retire(worker)
        with self._lock:
            if self._closed and self._busy == 0 and self._uids is not None:
                self._uids.release()  # its uids' processes are all gone

    def _retire(self, worker: Worker) -> None:
        worker.close()
        with self._lock:
            key = self._keys.pop(id(worker))
            self._free_slot(self._slots.pop(id(worker)), key)
            self._lock.notify_all()

    def _shrink(self) -> None:
        """Retire workers idle for too long (called with the lock held)."""
        now = time.monotonic()
        stale = [w for w in self._idle if now - w.idle_since > self.idle_timeout_s]
        for worker in stale:
            self._idle.remove(worker)
            threading.Thread(target=self._retire, args=(worker,), daemon=True).start()

    def _meta(self, command: Sequence[str]) -> dict[str, object]:
        check_command(command)
        code = self._python_code(command)
        digest = self._trusted_digests.get(code) if code is not None else None
        return {
            "command": list(command),
            "python_code": None if digest else code,
            "trusted_code": digest,
        }

    def _python_code(self, command: Sequence[str]) -> str | None:
        """The code of a ``python -I -S -c CODE`` command, which takes the fast path."""
        name = command[0].rpartition("/")[2]  # per job: a string split, not a Path
        if command[0] != self._python and name not in ("python", "python3", self._python_name):
            return None
        if "-c" not in command:
            return None
        index = list(command).index("-c")
        if index + 1 >= len(command) or not _FAST_FLAGS <= set(command[1:index]) <= _PYTHON_FLAGS:
            return None
        return command[index + 1]


_Conditions = tuple[tuple[str, str], ...]
"""A job's conditions, as sorted (name, value) pairs; () for none."""
_Key = tuple[Exposure, _Conditions]
"""What a worker serves: its Python environment and its conditions."""


class PoolSession:
    """A long-lived sandbox on one pool worker; see :meth:`PoolSandbox.session`.

    Implements :class:`assay.sandbox.Sandbox`. Files persist between commands; processes do
    not (each command's leftovers are killed when it ends).
    """

    name = "pool-session"

    def __init__(self, pool: PoolSandbox, worker: Worker, environment: Exposure) -> None:
        self._pool = pool
        self._worker: Worker | None = worker
        self._environment = environment
        self._token = secrets.token_hex(8)
        self.commands = 0

    @property
    def python(self) -> str:
        """The interpreter inside the session."""
        return self._pool.python

    @property
    def notes(self) -> tuple[str, ...]:
        """Protections this host cannot give."""
        return self._pool.notes

    def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes = b"",
        packages: Sequence[str] = (),
        sockets: bool = True,
    ) -> ExecResult:
        """Run ``command`` in the session; ``files`` are added to its ``/workspace`` first.
        ``packages`` must be those the session was opened with (or none named)."""
        if self._worker is None:
            raise SandboxError("the session is closed")
        if packages and resolve(packages) != self._environment:
            raise SandboxError("a session's packages are fixed when it opens: open another")
        meta = self._pool._meta(command)
        try:
            result = self._worker.run(
                meta,
                dict(files or {}),
                limits or Limits(),
                stdin,
                self.notes,
                session=self._token,
                sockets=sockets,
            )
        except WorkerFailedError as exc:
            self._worker.healthy = False
            self.close()
            raise SandboxError(f"the session's sandbox failed and is gone: {exc}") from None
        self.commands += 1
        return result

    def memory_mb(self) -> float:
        """Proportional memory (PSS) of the session's worker, all its processes together."""
        return 0.0 if self._worker is None else _pss_mb(self._worker.pids)

    def close(self) -> None:
        """Give the worker back, with this session's files unmounted (their memory was charged
        to the group of the worker's jobs): its next job, of another session or none, starts
        from fresh scratch, and nothing of this session's files is left for it."""
        worker, self._worker = self._worker, None
        if worker is not None:
            if worker.healthy:  # a failed one is retired, its files with it
                try:
                    worker.end_session()
                except WorkerFailedError:
                    worker.healthy = False
            self._pool._release(worker)

    def __enter__(self) -> PoolSession:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _pss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
    return total / 1024
