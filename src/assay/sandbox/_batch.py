"""The batch harness: several runs of one Python program in one sandbox job. Stdlib only;
passed to ``python -I -S -c`` by :func:`assay.sandbox.batch.run_many`.

It reads a JSON spec from stdin: the program's source (and its code as the host compiled it,
taken where this interpreter is the host's version) and arguments, a nonce, and the runs,
each with its files, its stdin and its own wall-time, CPU-time and output limits. For each run,
in order, it empties the working directory (and ``/tmp`` where the job has its own, at
``/workspace``), writes the run's files, and forks a child that runs the program exactly as a
warm worker runs ``python -I -S -c`` in a job: its stdin, stdout and stderr are pipes of its own,
no other descriptor is open, it has a session of its own and the run's CPU limit. This process
reads the run's output (the first bytes up to the limit), stops it at its deadline or when its
processes together pass its CPU time, and then kills every process the run left: it is their
subreaper, so nothing the run started outlives it (and what those it had not reaped used counts
once they are: a run whose processes passed its CPU time that way is reported as stopped for
it). It then writes one line for the run, ``<nonce>{json}``, to its own stdout, which no run can
reach: no run has the descriptor, and this process is not dumpable, so ``/proc/<pid>/fd`` and
its memory are closed to them; and it frees what the run left in flight
(:func:`_collect_in_flight`). A last line ``<nonce>{"done": n}`` ends the batch.

It is the job that carries the sandbox's isolation; between runs of one batch there are only
the measures above. So a batch is for programs of one origin that do not attack each other (the
audit's runs of a task's own solutions and of its own reward hacks), never for an agent's.
Anything a run does to this process (kill it, stop it) ends the batch early; the caller runs
what has no line alone.

With an ``entry`` in the spec (the name of a function the program defines, which is what it
calls when run as ``__main__``), the program's definitions run once in this process, before the
runs, and each run calls that function: a run's process would otherwise make every object of
them again, and pay for each page of this process that it touches doing so.
"""

import base64
import builtins
import ctypes
import gc
import json
import marshal
import os
import resource
import select
import signal
import sys
import time
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 4, 36
_POLL_S = 0.02
_IN_FLIGHT_S = 1.0
"""How long the kernel may take to free what a run left in flight (:func:`_collect_in_flight`)
before the batch ends, and the runs after it go in a new one."""
_CHUNK = 1 << 16
_TICK = os.sysconf("SC_CLK_TCK")
_CPUS = os.cpu_count() or 1
_SELF = os.getpid()
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
_SIGPIPE: "list[Any]" = []
"""SIGPIPE's disposition as this process found it."""
_PRCTL: "list[Any]" = []
"""The C library's prctl, looked up once."""
_LIBC: "list[Any]" = []
"""The C library, for the runs' CPU timers (:func:`_arm_cpu_timer`)."""
_CLOCK_PROCESS_CPUTIME_ID, _SIGEV_SIGNAL = 2, 0


class _Sigevent(ctypes.Structure):
    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("rest", ctypes.c_int * 12),  # the union of what other notifications take: 64 bytes
    ]


class _Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("interval", _Timespec), ("value", _Timespec)]


def _main() -> None:
    spec = json.loads(_read_all(0))
    out = os.dup(1)
    nonce = spec["nonce"]
    _LIBC.append(ctypes.CDLL(None, use_errno=True))
    _PRCTL.append(_LIBC[0].prctl)
    _PRCTL[0](_PR_SET_DUMPABLE, 0, 0, 0, 0)
    _PRCTL[0](_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # A run that closes its stdin unread must not kill this process through SIGPIPE; each run
    # gets the disposition this process was given (a fresh interpreter ignores it).
    _SIGPIPE.append(signal.signal(signal.SIGPIPE, signal.SIG_IGN))
    code = _program(spec)
    if spec.get("entry"):
        code = _defined(code, spec["entry"])
    argv = ["-c", *spec["argv"]]
    workspace = os.getcwd()
    scratch = [workspace] + (["/tmp"] if workspace == "/workspace" else [])
    done = 0
    for run in spec["runs"]:
        try:
            if os.stat(workspace).st_uid == os.getuid():  # else no run can have locked it
                os.chmod(workspace, 0o700)
            for directory in scratch:
                _empty(directory)
            _write_files(workspace, run["files"])
        except OSError:
            break  # a run left what cannot be removed: the caller runs the rest alone
        record = _run(code, argv, run)
        _write(out, (nonce + json.dumps(record) + "\n").encode())
        done += 1
        if not _collect_in_flight():
            break  # what the run left in flight may hold memory the next would lack
    _write(out, (nonce + json.dumps({"done": done}) + "\n").encode())


def _program(spec: "dict[str, Any]") -> "Any":
    """The program's code: compiled by the host where this interpreter is the host's very
    version (its bytecode is this one's), else compiled here from the source."""
    compiled = spec.get("compiled")
    if compiled and compiled["version"] == [sys.hexversion, sys.implementation.cache_tag]:
        # the spec is the host's (this process reads it before any run exists)
        return marshal.loads(base64.b64decode(compiled["code"]))  # noqa: S302
    return compile(spec["code"], "<string>", "exec")


def _defined(code: "Any", entry: str) -> "Any":
    """The function ``entry`` of the program, its definitions run here, once, before any run
    (as the module ``__batch__``: its ``if __name__ == "__main__"`` does not fire)."""
    namespace = {"__name__": "__batch__", "__builtins__": __builtins__}
    exec(code, namespace)  # the caller's trusted program, which only defines things
    return namespace[entry]


def _run(code: "Any", argv: "list[str]", run: "dict[str, Any]") -> "dict[str, Any]":
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    size_r, size_w = os.pipe()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    # Every object of this process into the collector's permanent generation: the run's
    # collections then never walk them (each would write to their pages, and copy them).
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        _child(code, argv, (in_r, out_w, err_w), float(run["cpu_s"]), size_w)
    for fd in (in_r, out_w, err_w, size_w):
        os.close(fd)
    outputs: dict[int, list[Any]] = {out_r: [b"", False], err_r: [b"", False]}
    stdin = _Feed(in_w, base64.b64decode(run["stdin"]))
    status, usage, stopped = _watch(pid, stdin, outputs, run=run, started=started, before=before)
    if not stopped and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGPROF:
        stopped = "cpu"  # the run's own timer (see _child)
    _kill_all()
    stdin.close()
    for fd in list(outputs):
        os.set_blocking(fd, False)
        _read(fd, outputs, int(run["output"]), None)
        os.close(fd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if not stopped and cpu > float(run["cpu_s"]) + _POLL_S * _CPUS:
        # What its processes used together, reaped now, passed its limit by more than a job's
        # poll lets pass unseen: processes it left unreaped were out of the poll's sight (see
        # _cpu), where a job's cgroup would have counted them and stopped it.
        stopped = "cpu"
    forked_kb = int(os.read(size_r, 64) or 0)  # nothing when the child died at once
    os.close(size_r)
    return {
        "status": status,
        "timed_out": stopped == "time",
        "cpu_exceeded": stopped == "cpu",
        "wall_s": time.monotonic() - started,
        "cpu_s": cpu,
        # What the run added to the memory it was forked with (as the child found it first
        # thing), as a job's own peak counts what the job added to its worker's.
        "peak_kb": max(0, usage.ru_maxrss - forked_kb),
        "stdout": base64.b64encode(outputs[out_r][0]).decode(),
        "stderr": base64.b64encode(outputs[err_r][0]).decode(),
        "stdout_truncated": outputs[out_r][1],
        "stderr_truncated": outputs[err_r][1],
    }


class _Feed:
    """The run's stdin, written as the run reads it."""

    def __init__(self, fd: int, data: bytes) -> None:
        self.fd = fd
        self.data = data
        if data:
            os.set_blocking(fd, False)
        else:
            self.close()

    def write(self) -> bool:
        """Write what the pipe takes; False once all is written (or the run closed it)."""
        try:
            self.data = self.data[os.write(self.fd, self.data[:_CHUNK]) :]
        except OSError:  # the run closed its stdin: what it did not read is dropped
            self.data = b""
        if not self.data:
            self.close()
        return bool(self.data)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _watch(
    pid: int,
    stdin: _Feed,
    outputs: "dict[int, list[Any]]",
    *,
    run: "dict[str, Any]",
    started: float,
    before: "Any",
) -> "tuple[int, Any, str]":
    """Feed and read the run until its first process ends, or stop it at its deadline or its
    CPU limit: its wait status, its resource usage, and what stopped it ("time", "cpu", "")."""
    poller = select.poll()
    for fd in outputs:
        poller.register(fd, select.POLLIN)
    if stdin.fd >= 0:
        poller.register(stdin.fd, select.POLLOUT)
    # Readable once the process has ended: the wait wakes then, not at the next tick (its
    # pipes close before it is a zombie, and a poll with nothing left to watch would sleep).
    ended = _pidfd(pid)
    if ended >= 0:
        poller.register(ended, select.POLLIN)
    try:
        while True:
            for fd, _events in poller.poll(_POLL_S * 1000):
                if fd == stdin.fd:
                    if not stdin.write():
                        poller.unregister(fd)
                elif fd != ended:  # an end is reaped below
                    _read(fd, outputs, int(run["output"]), poller)
            waited, status, usage = os.wait4(pid, os.WNOHANG)
            if waited:
                return status, usage, ""
            stopped = _limit_passed(pid, run, started, before)
            if stopped:
                os.kill(pid, signal.SIGKILL)
                status, usage = os.wait4(pid, 0)[1:]
                return status, usage, stopped
    finally:
        if ended >= 0:
            os.close(ended)


def _limit_passed(pid: int, run: "dict[str, Any]", started: float, before: "Any") -> str:
    """Which of the run's limits it has passed: "time", "cpu", or none ("")."""
    now = time.monotonic()
    if now > started + float(run["timeout_s"]):
        return "time"
    if now - started > _POLL_S and _cpu(before, pid) > float(run["cpu_s"]):
        return "cpu"
    return ""


def _pidfd(pid: int) -> int:
    """A descriptor that becomes readable when ``pid`` ends, or -1 where the kernel has none
    (the wait then notices the end at its next tick)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return -1


def _child(
    code: "Any", argv: "list[str]", fds: "tuple[int, int, int]", cpu_s: float, size_fd: int
) -> None:
    status = 1
    try:
        # First thing: the memory this process was forked with, for the harness to subtract
        # from its peak (closed with the rest below, before the program runs).
        os.write(size_fd, b"%d" % _resident_kb())
        signal.signal(signal.SIGPIPE, _SIGPIPE[0])
        os.setsid()
        # Readable by the harness, which reads its CPU time (jobs' processes are not dumpable:
        # the harness is not, and stays out of reach of the run).
        _PRCTL[0](_PR_SET_DUMPABLE, 1, 0, 0, 0)
        for source, target in zip(fds, (0, 1, 2), strict=True):
            os.dup2(source, target)
        os.closerange(3, 65536)
        soft = max(1, int(cpu_s + 0.999))  # as a job's: whole seconds, a second of grace
        hard = soft + 1
        held = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if held != resource.RLIM_INFINITY:
            hard = min(hard, held)
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        # The CPU limit to the kernel's tick, where the harness's poll sees it a tick or two
        # late (a mutant that loops, stopped at a fitted 50 ms, spent 80). A run may take
        # the signal over; the poll still stops it.
        _arm_cpu_timer(cpu_s)
        status = _run_python(code, argv)
    except BaseException:
        try:
            os.write(2, ("batch run setup failed: " + traceback.format_exc()[-3000:]).encode())
        finally:
            os._exit(126)
    os._exit(status)


def _arm_cpu_timer(cpu_s: float) -> None:
    """SIGPROF to this process once its threads have used ``cpu_s`` of CPU, as the scheduler
    counts it (``CLOCK_PROCESS_CPUTIME_ID``, what its resource usage reports). Not
    ``ITIMER_PROF``: that clock charges whole ticks to whoever runs at each, and on a loaded
    machine fired at 0.22 to 0.30 s of a process's 0.3 s (stopping runs early); this one at
    0.304 to 0.309. Where the C library has no such timer, ``ITIMER_PROF``."""
    timer = ctypes.c_void_p()
    event = _Sigevent(signo=signal.SIGPROF, notify=_SIGEV_SIGNAL)
    clock = _CLOCK_PROCESS_CPUTIME_ID
    if _LIBC and _LIBC[0].timer_create(clock, ctypes.byref(event), ctypes.byref(timer)) == 0:
        whole = int(cpu_s)
        due = _Itimerspec(value=_Timespec(whole, int((cpu_s - whole) * 1e9)))
        if _LIBC[0].timer_settime(timer, 0, ctypes.byref(due), None) == 0:
            return
    signal.setitimer(signal.ITIMER_PROF, cpu_s)


def _run_python(code: "Any", argv: "list[str]") -> int:
    """The program, as ``python -c`` runs it (or its entry function, called, where its
    definitions ran before the runs): ``SystemExit`` gives the status, anything else raised is
    printed and gives 1, and the streams are flushed."""
    sys.argv = argv
    status = 0
    try:
        if callable(code):
            code()
        else:
            exec(code, _fresh_main())
    except SystemExit as exc:
        if exc.code is None:
            status = 0
        elif isinstance(exc.code, int):
            status = exc.code & 0xFF
        else:
            sys.stderr.write(f"{exc.code}\n")
            status = 1
    except BaseException:
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: S110 - a closed or broken stream loses its last output
            pass
    return status


def _fresh_main() -> "dict[str, Any]":
    """The globals of a new ``__main__`` module in ``sys.modules``, as a job's are (see the
    warm worker's ``_fresh_main``): what ``python -c`` starts its globals with."""
    main = type(sys)("__main__")
    main.__loader__ = sys.modules["_frozen_importlib"].BuiltinImporter
    main.__annotations__ = {}
    main.__builtins__ = builtins  # type: ignore[attr-defined]  # as the interpreter sets it
    sys.modules["__main__"] = main
    return main.__dict__


def _read(fd: int, outputs: "dict[int, list[Any]]", cap: int, poller: "Any") -> None:
    """Read what ``fd`` has; keep up to ``cap`` bytes, note whether more came."""
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            if poller is not None:
                poller.unregister(fd)
            return
        kept = outputs[fd]
        room = cap - len(kept[0])
        if len(chunk) > room:
            kept[1] = True
        kept[0] += chunk[: max(room, 0)]
        if poller is not None:
            return  # one read per wake-up: the loop checks the clock in between


def _resident_kb() -> int:
    """This process's resident memory, KiB (read without a file object: in a run's child,
    each object made touches, and copies, one more page of the harness's)."""
    fd = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
    try:
        return int(os.read(fd, 256).split()[1]) * _PAGE_KB
    finally:
        os.close(fd)


def _children() -> "list[int]":
    """This process's children, as the kernel lists them (a run's processes may hide from
    ``/proc``, never from this list: orphans come here, since this process is their
    subreaper)."""
    with open(f"/proc/{_SELF}/task/{_SELF}/children", "rb") as listing:
        return [int(pid) for pid in listing.read().split()]


def _cpu(before: "Any", pid: int) -> float:
    """CPU seconds the run has used so far: its reaped processes' and its first process's, with
    the children that one reaped (an unreadable figure counts 0: the CPU limit of each process
    and the batch's stay)."""
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped: float = (now.ru_utime + now.ru_stime) - (before.ru_utime + before.ru_stime)
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return reaped
    fields = text[text.rindex(b")") + 2 :].split()
    return reaped + sum(int(value) for value in fields[11:15]) / _TICK


def _kill_all() -> None:
    """Kill every process below this one and reap them all: its children, then the orphans
    that come to it as their parents die, until no child is left."""
    while True:
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.0005)


def _collect_in_flight() -> bool:
    """Have the kernel free the Unix sockets the run left in flight, once its processes are
    gone: descriptors sent over a socket and never received, in a loop that holds itself, which
    only the kernel's collector of such loops frees, and only when some process closes a Unix
    socket while any are in flight. Until then they hold what was sent (memory files, the run's
    deleted files: memory the next run would lack). This process has no Unix socket of its own,
    so each one left in the job's network namespace is such a loop; closing one of its own
    starts the collector. False if some outlast :data:`_IN_FLIGHT_S`."""
    if not _unix_sockets():
        return True  # as after nearly every run: nothing more to import or do
    import socket  # noqa: PLC0415 - a fresh interpreter's batch seldom needs it

    deadline = time.monotonic() + _IN_FLIGHT_S
    while _unix_sockets():
        if time.monotonic() > deadline:
            return False
        for end in socket.socketpair():
            end.close()
        time.sleep(0.0005)
    return True


def _unix_sockets() -> bool:
    """Whether the job's network namespace holds a Unix socket (where the job may make none,
    none can be there)."""
    try:
        with open("/proc/self/net/unix", "rb") as table:
            return table.read().count(b"\n") > 1  # the first line is the heading
    except OSError:
        return False


def _empty(directory: str) -> None:
    """Remove everything inside ``directory`` (not following links), making unreadable
    directories readable first."""
    for entry in os.scandir(directory):
        path = entry.path
        if entry.is_dir(follow_symlinks=False):
            os.chmod(path, 0o700)
            _empty(path)
            os.rmdir(path)
        else:
            os.unlink(path)


def _write_files(workspace: str, files: "dict[str, str]") -> None:
    made = set()
    for name, data in files.items():
        path = workspace + "/" + name
        if "/" in name:
            directory = os.path.dirname(path)
            if directory not in made:
                os.makedirs(directory, exist_ok=True)
                made.add(directory)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            _write(fd, base64.b64decode(data))
        finally:
            os.close(fd)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)  # a long line is not copied again after each partial write
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


if __name__ == "__main__":
    _main()
