"""The warm worker ("zygote") of the pool. Stdlib only; run as ``python -I -S -c`` inside its own
bubblewrap sandbox, with the control socket's descriptor as its argument.

Protocol on the control socket (a stream of length-prefixed frames):

- host -> zygote, once: the seccomp filter in two compiled parts (both empty where there is no
  filter): the worker's, which it installs at once and every job inherits, and the job's, which
  each job adds;
- host -> zygote, once: settings (marshal): the slot's uid, the descriptor limit, the
  trusted harness code by digest (compiled once here), and the numbers of the inherited
  descriptors of the job's cgroup (its ``cgroup.procs`` files, its CPU-usage file, and its
  memory's usage, reclaim and peak files);
- zygote -> host, once: ``{"ready": pid}``;
- host -> zygote, per job: a header (marshal: it only ever comes from the trusted host), with
  four descriptors attached (job payload pipe, stdin, stdout, stderr). The zygote forks; the
  child reads its files and command from the payload pipe, so job data never passes through the
  zygote's memory;
- zygote -> host, per job: a JSON result (wait status, CPU time, timed out, CPU limit passed,
  leftovers);
- host -> zygote, when a session ends: a header ``{"end_session": True}`` without
  descriptors, which the zygote answers ``{}`` once the session's scratch is unmounted.

Nothing of one job is visible to the next. Each job gets:

- /workspace and /tmp as new, empty tmpfs mounts, bounded in size and in inodes (replaced
  after every job off the reply's path; a session's commands share theirs, and a new session
  starts from fresh ones);
- a network namespace that no earlier job left a trace in: after a job that may have opened
  sockets, the zygote reads what a job can read of the namespace (/proc/net: every socket
  still open or lingering, TIME_WAIT included, flow labels, multicast memberships, routes, the
  counters of packets, connections and datagrams) and, where anything differs from before the
  job, moves itself into a new namespace (loopback up, small socket buffers) off the reply's
  path, which the next job inherits; a job that left no trace (most never touch the network)
  hands the namespace on, which saves making and tearing down one per job;
- nothing an earlier job left in flight: descriptors sent over a Unix socket that holds
  itself outlive the job's processes until the kernel collects such loops, and with them its
  files, memory and pseudo-terminals; after a job that may have made sockets, the zygote has the
  kernel collect them before it replies, and a worker where some are left is retired;
- nothing the zygote learned of an earlier job, in the memory the job is forked with: the
  job starts outside the frames of the zygote's loop (which hold the last job's status and
  times), and what the zygote reads of the network namespace after a job is read into one
  buffer and wiped there (see :func:`_network_differs`);
- the same process ids: the worker's PID counter is set back before every fork, so a job's
  process ids say nothing about the jobs before it, and the zygote's own /proc entry is hidden
  from jobs (``hidepid``), so its counters (CPU time of reaped children, context switches) are
  not readable either;
- a cgroup of its own (inside the worker's), whose CPU time, memory and process count are the
  job's, all its processes together: the zygote stops the job when its CPU time passes the
  limit, however many processes share it. The jobs of a worker take turns in it: before each
  job the zygote has the kernel reclaim what earlier ones left charged there (the page cache
  of the files they read), once their scratch is unmounted, and starts the job's peak afresh.

The worker holds what every job inherits: no new privileges, no core dumps, the descriptor
limit, its part of the seccomp filter. The child joins the job's cgroup, sets the job's own
limits, becomes the slot's unprivileged uid, adds the job's part of the seccomp filter, writes
the files, and then runs the command: Python code in-process (``python -I -S -c``, the fast
path: the modules are already imported), anything else by execve. The worker is a child
subreaper, so everything a job starts stays its descendant; after the job all of it is killed.
"""

# What the worker needs, and what the families' harness code imports (json, math, traceback),
# loaded once here so that no job pays for importing them.
import builtins
import contextlib
import ctypes
import fcntl
import gc
import io
import json
import marshal
import math  # noqa: F401
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_LIBC = ctypes.CDLL(None, use_errno=True)
for _name in ("mount", "umount2", "prctl", "syscall", "capset"):
    getattr(_LIBC, _name)  # resolved once here, not in every job
_TRUSTED: "dict[str, Any]" = {}
"""Harness code the host declared trusted, compiled once: job id -> code object."""
_JOB_CGROUP: "dict[str, Any]" = {"procs": [], "cpu": None, "version": 1, "memory": None}
"""Inherited descriptors of the job's cgroup: its cgroup.procs files, its CPU-usage file, and
its memory's usage, reclaim and peak files."""
_LEFT_BYTES = 4 << 20
"""Memory that jobs left charged to the job's cgroup (the page cache of files they read) above
which the zygote has the kernel reclaim it before the next job: under this, doing so costs more
than a small job (the kernel retries on what it cannot reclaim)."""
_MS_NOSUID, _MS_NODEV = 0x2, 0x4
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_PR_SET_CHILD_SUBREAPER = 36
_PR_CAPBSET_DROP, _PR_SET_SECUREBITS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 28, 47, 4
_SECUREBITS_LOCKED = 0x2F
"""noroot, no-setuid-fixup and keep-caps off, each locked: root of the namespace gains nothing
from executing a program."""
_CAPABILITY_VERSION_3 = 0x20080522
_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_SPEC_ALLOW = 317, 1, 4
_MS_NOEXEC, _CLONE_NEWNET, _CLONE_NEWUSER = 0x8, 0x40000000, 0x10000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_HEADER = struct.Struct("!I")
_PID_BASE = b"99"
"""The PID counter is set to this before every job, so a job's first process is always 100."""
_SOCKET_BUFFERS = {
    "net/ipv4/tcp_rmem": b"4096 131072 262144",
    "net/ipv4/tcp_wmem": b"4096 16384 262144",
}
"""Per network namespace: TCP buffers no larger than this, on hosts that do not charge them to
the job's memory cgroup (cgroup v1 without TCP accounting)."""
_CPU_POLL_S = 0.02
_IN_FLIGHT_S = 1.0
"""How long the kernel may take to free what a job left in flight (:func:`_collect_in_flight`)
before its worker is retired instead."""
_NET_SKIPPED = {
    # each read walks every TCP or UDP socket of the host; the namespace's own, TIME_WAIT
    # included, are counted in sockstat and sockstat6
    "tcp",
    "tcp6",
    "udp",
    "udp6",
    "udplite",
    "udplite6",
    # connections tracked come from traffic, which the packet counters count
    "nf_conntrack",
    "nf_conntrack_expect",
    # the host's: per CPU, or the memory of every namespace's sockets; they change all the time
    "softnet_stat",
    "protocols",
}
"""Files of /proc/net that :func:`_network_state` does not read, and why."""
_NET_GLOBAL = (b"orphan", b"alloc", b"mem")
"""Figures of ``sockstat`` that are the host's, not the namespace's: other processes change
them. (Its ``sockets: used`` is the namespace's own, and counts a socket until the kernel has
freed it, which may be a moment after it was closed: a job that leaves one still to free leaves
a trace.)"""
_NET_STATE: "list[str]" = []
"""The files of /proc/net that :func:`_network_state` reads (found when the worker starts): what
a job can read of its network namespace's past, per namespace (sockets still open or lingering,
unix ones in flight, IPv6 flow labels, multicast memberships, routes and their use, the counters
of every packet, connection and datagram), but :data:`_NET_SKIPPED`."""
_READ_BUFFER = bytearray(1 << 16)
"""Where the zygote reads what a job may have left in the network namespace (/proc/net after
the job), and wipes it after: every job is forked with the zygote's memory, freed objects
included, so nothing the zygote learns of a job may stay there for the next one."""
_BUFFER_VIEW = memoryview(_READ_BUFFER)
_ZEROS = memoryview(bytes(len(_READ_BUFFER)))
_SYSCTL: "dict[str, int]" = {}
"""The worker's own handles: ``sys`` on /proc/sys, writable (jobs see it read-only), and ``net``
on its /proc/self/net (its own /proc entry is hidden); a path looked up from either names the
setting or the figures of the namespace the worker is in at that moment."""
_MS_BIND, _MS_REC, _MS_RDONLY = 0x1000, 0x4000, 0x1
_CORE_LIMIT = (1, 1)
"""RLIMIT_CORE, as on the bubblewrap backend (``_process.CORE_LIMIT``): no core file, and none
piped to the host's handler either; the seccomp filter keeps a job from changing it."""
_FRESH_DISPOSITIONS: "dict[signal.Signals, Any]" = {
    signal.SIGPIPE: signal.SIG_IGN,
    signal.SIGINT: signal.default_int_handler,
}
"""What a fresh interpreter sets at start (and SIGXFSZ ignored, as the worker has it), which
the fast path sets in each job; the worker holds the default for each (see :func:`_main`)."""


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(_HEADER.pack(len(payload)) + payload)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _recv_with_fds(sock: socket.socket) -> "tuple[bytes, list[int]]":
    msg, ancdata, _flags, _addr = sock.recvmsg(_HEADER.size, socket.CMSG_SPACE(4 * 16))
    if not msg:
        raise EOFError
    fds: list[int] = []
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.extend(struct.unpack(f"{len(data) // 4}i", data[: len(data) - len(data) % 4]))
    if len(msg) < _HEADER.size:
        msg += _recv_exact(sock, _HEADER.size - len(msg))
    (size,) = _HEADER.unpack(msg)
    return _recv_exact(sock, size), fds


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


_SCRATCH = (("/workspace", "mode=0700,uid={uid},gid={uid}"), ("/tmp", "mode=1777"))
_MNT_DETACH, _MS_REMOUNT = 2, 32
_DEFAULT_SCRATCH = (256, 16384)
"""Size in MiB and inodes of the scratch mounts until a job asks for others."""


def _drop_scratch() -> None:
    """Unmount the job's /workspace and /tmp, which frees their memory at once."""
    for target, _options in _SCRATCH:
        _LIBC.umount2(target.encode(), _MNT_DETACH)


def _mount_scratch(size: "tuple[int, int]", uid: int, *, resize: bool = False) -> None:
    """New, empty tmpfs mounts at /workspace (the job's, owned by its uid) and /tmp, after
    :func:`_drop_scratch`; with ``resize``, the mounted ones take the new size instead. Each
    holds at most ``size[1]`` inodes, so that no job can make its cleanup outlast its run."""
    flags = _MS_NOSUID | _MS_NODEV | (_MS_REMOUNT if resize else 0)
    kind = None if resize else b"tmpfs"
    size_mb, inodes = size
    for target, options in _SCRATCH:
        data = f"size={size_mb}m,nr_inodes={inodes},{options.format(uid=uid)}".encode()
        _check(_LIBC.mount(kind, target.encode(), kind, flags, data), f"mount {target}")


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _read_payload(payload_fd: int) -> "tuple[dict[str, Any], bytes, int]":
    payload = _read_all(payload_fd)
    os.close(payload_fd)
    meta_size = int.from_bytes(payload[:8], "big")
    meta: dict[str, Any] = marshal.loads(payload[8 : 8 + meta_size])
    return meta, payload, 8 + meta_size


def _write_files(meta: "dict[str, Any]", payload: bytes, offset: int) -> None:
    """Write the job's files, as the job's own uid, into its working directory."""
    view = memoryview(payload)
    made = set()
    for name, length in meta["files"]:
        path = "/workspace/" + name
        if "/" in name:
            directory = os.path.dirname(path)
            if directory not in made:
                os.makedirs(directory, exist_ok=True)
                made.add(directory)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            data = view[offset : offset + length]
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        offset += length


def _drop_privileges(header: "dict[str, Any]", uid: int, program: "_SockFprog | None") -> None:
    """What changes from job to job (the worker cannot raise a hard limit once lowered): the
    limits, the uid, and the job's part of the seccomp filter."""
    shared = uid == os.getuid()  # the job keeps the worker's uid: it needs a namespace of its own
    if shared:  # made before the limits, so the process limit counts in it, not the worker's
        _own_namespace()
    limits = header["limits"]
    memory = header["address_space"]
    cpu = max(1, int(limits["cpu_s"] + 0.999))
    file_size = limits["max_file_mb"] * 2**20
    for which, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_FSIZE, (file_size, file_size)),
        (resource.RLIMIT_NPROC, (limits["max_processes"], limits["max_processes"])),
    ):
        resource.setrlimit(which, value)
    if shared:
        _drop_capabilities()
    else:
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if program is not None:
        _install(program)


def _own_namespace() -> None:
    """Where jobs share their worker's uid: a user namespace for the job alone, in which it is
    uid and gid 1000 (0 is not mapped, so it can never be its namespace's root)."""
    _check(_LIBC.unshare(_CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    for name, value in (("setgroups", b"deny"), ("uid_map", b"1000 0 1"), ("gid_map", b"1000 0 1")):
        fd = os.open("/proc/self/" + name, os.O_WRONLY)
        try:
            os.write(fd, value)
        finally:
            os.close(fd)


def _drop_capabilities() -> None:
    """Drop every capability for good: effective, permitted, inheritable, ambient, bounding,
    and the securebits that would give them back to root of the namespace on exec."""
    _check(_LIBC.prctl(_PR_SET_SECUREBITS, _SECUREBITS_LOCKED, 0, 0, 0), "securebits")
    _check(_LIBC.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient caps")
    with open("/proc/sys/kernel/cap_last_cap", "rb") as last:
        for capability in range(int(last.read()) + 1):
            _check(_LIBC.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0), "bounding set")
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_LIBC.capset(header, data), "capset")


def _child(
    header: "dict[str, Any]", uid: int, fds: "list[int]", program: "_SockFprog | None"
) -> None:
    status = 1
    payload_fd, stdin_fd, stdout_fd, stderr_fd = fds
    try:
        for procs in _JOB_CGROUP["procs"]:  # "0": this process, and all it will start
            os.write(procs, b"0")
        os.setsid()
        # When the slot runs out of memory, the job dies, not the worker.
        score = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        os.write(score, b"1000")
        os.close(score)
        meta, payload, offset = _read_payload(payload_fd)
        for source, target in ((stdin_fd, 0), (stdout_fd, 1), (stderr_fd, 2)):
            os.dup2(source, target)
        os.closerange(3, 65536)
        stderr_fd = -1
        _drop_privileges(header, uid, program)
        os.chdir("/workspace")
        _write_files(meta, payload, offset)
        del payload
        command = meta["command"]
        if meta.get("trusted_code") is not None:
            status = _run_python(_TRUSTED[meta["trusted_code"]], command)
        elif meta.get("python_code") is not None:
            status = _run_python(meta["python_code"], command)
        else:
            executable = command[0] if "/" in command[0] else _which(command[0])
            if executable is None:
                os.write(2, f"{command[0]}: command not found\n".encode())
                os._exit(127)
            # As the bubblewrap backend's commands start: the worker ignores SIGXFSZ, as
            # Python does, so that the job's files written past its limit fail with an error.
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            os.execve(executable, command, os.environ)
    except BaseException:
        try:
            message = "sandbox setup failed: " + traceback.format_exc()[-3000:]
            os.write(2 if stderr_fd < 0 else stderr_fd, message.encode())
        finally:
            os._exit(126)
    os._exit(status)


def _which(name: str) -> "str | None":
    for directory in os.environ.get("PATH", "").split(":"):
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _standard_streams() -> None:
    """Text streams over descriptors 0, 1 and 2 as ``python -c`` makes them, set up once in the
    worker: each job's child gets them with empty buffers and its own pipes dup'ed under them.
    Their names, modes, encodings and error handlers are those of the worker's own streams,
    which its interpreter made under the jobs' environment (locale and conditions)."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        own = getattr(sys, f"__{name}__")
        raw = io.FileIO(fd, mode, closefd=False)
        raw.name = f"<{name}>"  # as the interpreter names its own
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(buffered, own.encoding, own.errors, line_buffering=fd == 2)
        stream.mode = mode  # type: ignore[misc]  # as above
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _fresh_main() -> "dict[str, Any]":
    """The globals of a new ``__main__`` module, which takes the worker's place in
    ``sys.modules``, holding what ``python -c`` starts its globals with: code that finds its
    own definitions through ``__main__`` (pickle, ``unittest.main()``, ``doctest.testmod()``)
    finds them, not the worker's (where ``unittest.main()`` ran no test, and passed)."""
    main = type(sys)("__main__")
    main.__loader__ = sys.modules["_frozen_importlib"].BuiltinImporter
    main.__annotations__ = {}
    main.__builtins__ = builtins  # type: ignore[attr-defined]  # as the interpreter sets it
    sys.modules["__main__"] = main
    return main.__dict__


def _run_python(code: "Any", command: "list[str]") -> int:
    for number, disposition in _FRESH_DISPOSITIONS.items():  # as ``python -c`` starts
        signal.signal(number, disposition)
    sys.argv = ["-c", *command[command.index("-c") + 2 :]]
    sys.orig_argv = list(command)  # not the worker's, which holds its own source
    namespace = _fresh_main()
    status = 0
    interrupted = False
    try:
        if isinstance(code, str):  # a job's own, compiled in its process, as ``python -c`` does
            try:
                code = compile(code, "<string>", "exec")
            except (SyntaxError, ValueError) as exc:  # shown as ``python -c`` shows it: status 1
                traceback.print_exception(exc, limit=0)
                raise SystemExit(1) from None
        exec(code, namespace)
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException as exc:
        interrupted = isinstance(exc, KeyboardInterrupt)
        status = _uncaught(exc)
    status = _finalize(status)
    if interrupted:  # as the interpreter ends on an uncaught KeyboardInterrupt: by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status


_C_LONG = 1 << 63


def _exit_status(code: "Any") -> int:
    """The exit status ``python -c`` gives ``SystemExit(code)``: an integer as the C ``long``
    it becomes (one past that range is -1), anything else printed, and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if -_C_LONG <= code < _C_LONG else 0xFF
    with contextlib.suppress(BaseException):
        sys.stderr.write(f"{code}\n")
    return 1


def _uncaught(exc: BaseException) -> int:
    """Report an uncaught exception through ``sys.excepthook``, with the job's frames only."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    exc = exc.with_traceback(tb)
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    try:
        sys.excepthook(type(exc), exc, tb)
    except SystemExit as hook_exit:
        return _exit_status(hook_exit.code)
    except BaseException as hook_error:
        with contextlib.suppress(BaseException):
            sys.stderr.write("Error in sys.excepthook:\n")
            traceback.print_exception(hook_error.with_traceback(None))
            sys.stderr.write("\nOriginal exception was:\n")
            traceback.print_exception(exc)
    return 1


def _finalize(status: int) -> int:
    """What the interpreter does as it exits: wait for the job's other threads (all but
    daemons), run its ``atexit`` functions, and flush its standard streams; a failure to flush
    stdout is reported and makes the status 120."""
    threading = sys.modules.get("threading")
    if threading is not None:
        with contextlib.suppress(BaseException):
            threading._shutdown()
    atexit = sys.modules.get("atexit")
    if atexit is not None:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "closed", False):
            continue
        try:
            stream.flush()
        except BaseException as exc:
            if stream is sys.stdout:
                with contextlib.suppress(BaseException):
                    sys.stderr.write(f"Exception ignored in: {stream!r}\n")
                    traceback.print_exception(exc.with_traceback(None))
                    sys.stderr.flush()
            status = 120
    return status


def _sweep() -> bool:
    """Kill every process in this PID namespace but init and this one; True if all are gone.

    The worker is a child subreaper, so whatever a job left behind, daemons that double-forked
    and called setsid included, is a descendant of the worker: once ``waitpid`` finds no child,
    nothing of the job is left.
    """
    for _ in range(4000):
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break  # some are still dying
            except ChildProcessError:
                return True
        time.sleep(0.0005)
    return False


def _collect_in_flight() -> bool:
    """Have the kernel free what the job's processes, all gone now, left in flight: descriptors
    sent over a Unix socket and never received, in a loop that holds itself (a socket queued on
    its own peer). Only the kernel's collector of such loops frees them, and it runs when some
    process closes a Unix socket while any are in flight, which on a quiet host may be never.
    Until then what they hold lives on: files of the job's scratch and memory files, charged to
    the job's group (the next job's limit less), pseudo-terminals of the worker's devpts (in
    the next job's /dev/pts), locks. Once the job's processes are gone, each Unix socket left in
    the namespace is such a loop: this closes one of its own until none is left; False if some
    outlast :data:`_IN_FLIGHT_S`."""
    deadline = time.monotonic() + _IN_FLIGHT_S
    while _unix_sockets():
        if time.monotonic() > deadline:
            return False
        for end in socket.socketpair():
            end.close()
        time.sleep(0.0005)
    return True


def _unix_sockets() -> bool:
    """Whether the network namespace the zygote is in holds a Unix socket. Read in
    :data:`_READ_BUFFER` and wiped there: the table names what the last job left."""
    size = _read_net("unix")
    if size is None:  # larger than the buffer: many are left
        return True
    if size < 0:
        return False
    lines = _READ_BUFFER.count(b"\n", 0, size)
    _wipe(size)
    return lines > 1  # the first line is the heading


def _cpu_usage() -> "float | None":
    """CPU seconds the job's cgroup has used, all its processes together; None without one."""
    fd = _JOB_CGROUP["cpu"]
    if fd is None:
        return None
    data = os.pread(fd, 4096, 0)
    if _JOB_CGROUP["version"] == 1:
        return int(data) / 1e9
    for line in data.split(b"\n"):
        if line.startswith(b"usage_usec "):
            return int(line.split()[1]) / 1e6
    return None


def _fresh_memory(reclaim: bool) -> None:
    """Start the next job's peak memory afresh; first, with ``reclaim``, have the kernel
    reclaim what earlier jobs left charged to the job's cgroup (pages of files they read, which
    stay charged to the group that read them), so that none of it counts in the job's peak or
    its limit. After the scratch of those jobs is unmounted: its pages are then freed."""
    memory = _JOB_CGROUP["memory"]
    if memory is None:
        return
    if reclaim and memory["reclaim"] is not None:
        with contextlib.suppress(OSError, ValueError):
            left = int(os.pread(memory["usage"], 64, 0))
            if left > _LEFT_BYTES:
                amount = b"0" if _JOB_CGROUP["version"] == 1 else str(left).encode()
                os.pwrite(memory["reclaim"], amount, 0)
    for peak in memory["peaks"]:
        with contextlib.suppress(OSError):  # a kernel that cannot reset it
            os.pwrite(peak, b"0", 0)


def _wait(
    pid: int, limits: "dict[str, Any]", cpu_start: "float | None"
) -> "tuple[int, float, bool, bool]":
    """Wait for the job's first process; stop the whole job at the deadline, or when its
    processes together pass the CPU limit. Returns the wait status, the CPU time of that
    process, and whether the deadline or the CPU limit stopped it."""
    deadline = time.monotonic() + limits["timeout_s"]
    pidfd = os.pidfd_open(pid)
    timed_out = cpu_exceeded = False
    poll = _CPU_POLL_S if cpu_start is not None else None
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if select.select([pidfd], [], [], min(remaining, poll or remaining))[0]:
                break
            used = _cpu_usage()
            if used is not None and cpu_start is not None and used - cpu_start > limits["cpu_s"]:
                cpu_exceeded = True
                break
        if timed_out or cpu_exceeded:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # every process of the job, whoever started it
    finally:
        os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    return status, usage.ru_utime + usage.ru_stime, timed_out, cpu_exceeded


def _fresh_network() -> None:
    """Move the zygote into a new network namespace, for the next job to inherit: loopback up,
    socket buffers bounded. What one job did to its network no later job can see."""
    _check(_LIBC.unshare(_CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(probe, _SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | _IFF_UP))
    finally:
        probe.close()
    for name, value in _SOCKET_BUFFERS.items():
        fd = os.open(name, os.O_WRONLY, dir_fd=_SYSCTL["sys"])
        try:
            os.write(fd, value)
        finally:
            os.close(fd)


def _network_state() -> "list[bytes | int | None]":
    """What a job can read of the network namespace the zygote is in (:data:`_NET_STATE`),
    less the host-wide figures (:data:`_NET_GLOBAL`): each file's contents (None for one
    larger than :data:`_READ_BUFFER`), or the error that reading it gave. Read only where no
    job has used the namespace since it was made: a job finds the same there itself."""
    state: list[bytes | int | None] = []
    for name in _NET_STATE:
        size = _read_net(name)
        state.append(size if isinstance(size, int) and size < 0 else _taken(size))
    return state


def _network_differs(before: "list[bytes | int | None]") -> bool:
    """Whether the network namespace the zygote is in differs from ``before``
    (:func:`_network_state`). What it holds now is what the last job left: it is compared in
    :data:`_READ_BUFFER` and wiped there, and never becomes an object of the zygote's, which
    every later job would find in the memory it is forked with."""
    for name, then in zip(_NET_STATE, before, strict=True):
        size = _read_net(name)
        if size is None or then is None:
            return True
        if size < 0:
            if then != size:
                return True
            continue
        same = isinstance(then, bytes) and _BUFFER_VIEW[:size] == then
        _wipe(size)
        if not same:
            return True
    return False


def _read_net(name: str) -> "int | None":
    """Read the file ``name`` of /proc/net into :data:`_READ_BUFFER`, the host-wide figures of
    ``sockstat`` taken out: its size there, None if it does not fit (the buffer is wiped
    then), or the error that reading it gave, negative."""
    try:
        fd = os.open(name, os.O_RDONLY, dir_fd=_SYSCTL["net"])
    except OSError as exc:  # the same every time: nothing a job did
        return -(exc.errno or 1)
    size = 0
    try:
        while size < len(_READ_BUFFER):
            read = os.readv(fd, [_BUFFER_VIEW[size:]])
            if not read:
                break
            size += read
    except OSError as exc:
        _wipe(size)
        return -(exc.errno or 1)
    finally:
        os.close(fd)
    if size == len(_READ_BUFFER):
        _wipe(size)
        return None
    if name == "sockstat":
        size = _without_global_figures(size)
    return size


def _without_global_figures(size: int) -> int:
    """Take the numbers of the host-wide figures (:data:`_NET_GLOBAL`) out of the ``sockstat``
    held in the first ``size`` bytes of :data:`_READ_BUFFER`, in place; its new size."""
    for word in _NET_GLOBAL:
        marker = b" " + word + b" "
        start = 0
        while (found := _READ_BUFFER.find(marker, start, size)) >= 0:
            digits = end = found + len(marker)
            while end < size and 0x30 <= _READ_BUFFER[end] <= 0x39:
                end += 1
            _BUFFER_VIEW[digits : size - (end - digits)] = _BUFFER_VIEW[end:size]
            _wipe(size, start=size - (end - digits))
            size -= end - digits
            start = digits
    return size


def _taken(size: "int | None") -> "bytes | None":
    """The first ``size`` bytes of :data:`_READ_BUFFER`, copied out, and the buffer wiped."""
    if size is None:
        return None
    data = bytes(_BUFFER_VIEW[:size])
    _wipe(size)
    return data


def _wipe(size: int, *, start: int = 0) -> None:
    """Zero :data:`_READ_BUFFER` from ``start`` to ``size``."""
    _BUFFER_VIEW[start:size] = _ZEROS[start:size]


def _serve(
    sock: socket.socket, uid: int, programs: "dict[bool, _SockFprog | None]", last_pid: int
) -> "tuple[dict[str, Any], list[int], _SockFprog | None] | None":
    """Run jobs as the host sends them, until it hangs up (None). ``programs`` is the job's
    part of the seccomp filter, by whether the job may open sockets.

    In each job's first process this returns the job (its header, its descriptors, its part
    of the filter) for :func:`_main` to run: the job's code can walk up its frames, and this
    one holds what the zygote knows of the jobs before it (the last one's status, CPU and wall
    time, whether it was a session's)."""
    size = _DEFAULT_SCRATCH
    _mount_scratch(size, uid)
    _fresh_network()  # the first job's too: its socket buffers bounded like every other's
    network = None  # the namespace's state as the next job finds it
    kept = None  # the session whose scratch is mounted, or None when it is fresh
    while True:
        try:
            message, fds = _recv_with_fds(sock)
        except EOFError:
            return None
        header = marshal.loads(message)
        session = header.get("session")
        if kept is not None and session != kept:  # a new session, or a one-shot job after one
            _drop_scratch()
            _mount_scratch(size, uid)
        if header.get("end_session"):  # its files go now, before the host sets new limits
            kept = None
            _send(sock, b"{}")
            continue
        wanted = (header["disk_mb"], header["max_files"])
        if wanted != size:
            size = wanted
            _mount_scratch(size, uid, resize=True)
        # A session's later commands find what its earlier ones left, charged as their files.
        _fresh_memory(reclaim=kept is None or session != kept)
        started = time.monotonic()
        cpu_start = _cpu_usage()
        os.pwrite(last_pid, _PID_BASE, 0)
        # A job refused sockets cannot change its network namespace; without a filter to
        # refuse them (other arches), every job may have changed it.
        networked = header["sockets"] or programs[False] is None
        if networked and network is None:
            network = _network_state()
        pid = os.fork()
        if pid == 0:  # out of this frame, and every variable of it, before the job runs
            sock.close()
            return header, fds, programs[header["sockets"]]
        for fd in fds:
            os.close(fd)
        status, cpu, timed_out, cpu_exceeded = _wait(pid, header["limits"], cpu_start)
        wall = time.monotonic() - started
        clean = _sweep() and (not networked or _collect_in_flight())
        cpu_end = _cpu_usage()
        if cpu_end is not None and cpu_start is not None:
            cpu = cpu_end - cpu_start  # every process of the job, daemons included
        reply = {
            "status": status,
            "cpu_s": cpu,
            "wall_s": wall,
            "timed_out": timed_out,
            "cpu_exceeded": cpu_exceeded,
            "clean": clean,
        }
        _send(sock, json.dumps(reply).encode())
        # Off the reply's path: the next job's header waits in the socket meanwhile.
        kept = session
        if session is None:
            _drop_scratch()
            _mount_scratch(size, uid)
        # A new namespace when the job left a trace in it, or may still (a process that
        # outlived the sweep: the host retires such a worker, and sends it nothing more).
        if networked and (not clean or network is None or _network_differs(network)):
            _fresh_network()
            network = None  # read again before the next job that may change it


def _private_proc() -> int:
    """Mount a /proc of the worker's own over the one bubblewrap made, hiding each process from
    other uids (so a job sees only its own) and the worker's entry from everyone, with
    /proc/sys read-only for jobs (the settings of the worker's namespaces outlive a job);
    return the PID counter's file, opened for writing before that, and keep a writable handle
    on /proc/sys for the network settings."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    _check(_LIBC.mount(b"proc", b"/proc", b"proc", flags, b"hidepid=invisible"), "mount /proc")
    last_pid = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY | os.O_CLOEXEC)
    _SYSCTL["sys"] = os.open("/proc/sys", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    _SYSCTL["net"] = os.open("/proc/self/net", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    with os.scandir("/proc/self/net") as entries:
        found = [entry.name for entry in entries if entry.is_file(follow_symlinks=False)]
    _NET_STATE.extend(sorted(name for name in found if name not in _NET_SKIPPED))
    _check(_LIBC.mount(b"/proc/sys", b"/proc/sys", None, _MS_BIND | _MS_REC, None), "bind")
    remount = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | flags
    _check(_LIBC.mount(None, b"/proc/sys", None, remount, None), "read-only /proc/sys")
    # The worker's own entry is out of every job's reach, even one that runs as its uid.
    own = f"/proc/{os.getpid()}".encode()
    hidden = _MS_RDONLY | flags
    _check(_LIBC.mount(b"none", own, b"tmpfs", hidden, b"size=4k,mode=0"), "hide the worker")
    return last_pid


MAX_TERMINALS = 16
"""Pseudo-terminals a worker's jobs may hold at once."""


def _few_terminals() -> None:
    """Mount a devpts of the worker's own over the one bubblewrap made, holding at most
    :data:`MAX_TERMINALS` terminals: the kernel counts the terminals of every devpts but the
    host's first against one host-wide limit (``kernel.pty.max`` less its reserve, some 3,000),
    which one job could otherwise take whole, and every other sandbox and container then has
    none. ``/dev/ptmx`` is bubblewrap's link to this mount's ``ptmx``."""
    data = f"newinstance,ptmxmode=0666,mode=0620,max={MAX_TERMINALS}".encode()
    flags = _MS_NOSUID | _MS_NOEXEC
    _check(_LIBC.mount(b"devpts", b"/dev/pts", b"devpts", flags, data), "mount /dev/pts")


def _receive_program(sock: socket.socket) -> "_SockFprog | None":
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    code = _recv_exact(sock, size)
    if not code:
        return None
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    program._buffer = buffer  # keeps the bytes alive as long as the program
    return program


def _install(program: "_SockFprog") -> None:
    # SPEC_ALLOW: do not force the speculative-store-bypass mitigation on the job (as container
    # runtimes do); the job shares no address space with anything it could spy on.
    flags = _SECCOMP_FILTER_FLAG_SPEC_ALLOW
    if _LIBC.syscall(_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(program)):
        _check(
            _LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0),
            "seccomp",
        )


def _preload(names: "list[str]", path: "list[str]") -> None:
    """Import ``names`` once, for every job to find loaded; ``sys.path`` is left as it was. A
    module that fails to import here is left to the jobs, which meet the error themselves."""
    saved = sys.path[:]
    sys.path.extend(path)
    for name in names:
        with contextlib.suppress(Exception):
            __import__(name)
    sys.path[:] = saved
    if "sqlite3" in sys.modules:  # the library's one-time set-up, done before any job forks
        with contextlib.suppress(Exception):
            sys.modules["sqlite3"].connect(":memory:").close()


def _main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    worker_part = _receive_program(sock)
    programs = {True: _receive_program(sock), False: _receive_program(sock)}
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    settings = marshal.loads(_recv_exact(sock, size))
    for digest, source in settings["trusted_code"].items():
        _TRUSTED[digest] = compile(source, "<string>", "exec")
    _preload(settings["preload"], settings["preload_path"])
    _JOB_CGROUP.update(settings["job_cgroup"])
    last_pid = _private_proc()
    _few_terminals()
    _check(_LIBC.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "subreaper")
    # Held by the worker, so inherited by every job rather than set by each: no extra groups,
    # no core dumps, few descriptors, and no new privileges (the worker never executes anything).
    with contextlib.suppress(PermissionError):  # denied where bubblewrap made the namespace
        os.setgroups([])
    resource.setrlimit(resource.RLIMIT_CORE, _CORE_LIMIT)
    files = settings["max_open_files"]
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    _check(_LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if worker_part is not None:  # before anything of a job can run here
        _install(worker_part)
    _send(sock, json.dumps({"ready": os.getpid()}).encode())
    _standard_streams()
    # The worker holds the dispositions an executed command starts with, the default (as the
    # bubblewrap backend's commands do); the fast path takes a fresh interpreter's
    # (_run_python). So the worker, init of its PID namespace, catches no signal, and the
    # kernel drops every one a job sends it: Python's handler for SIGINT let a job that runs as
    # the worker's uid (the shared identity) end the worker, and lose its own result. For the
    # worker a broken control socket is the end anyway.
    for number in _FRESH_DISPOSITIONS:
        signal.signal(number, signal.SIG_DFL)
    for name in ("LD_BIND_NOW", "PWD"):  # loading is done; bubblewrap set PWD for its --chdir
        os.environ.pop(name, None)  # what is left is the jobs' environment
    gc.collect()
    gc.freeze()  # children then share these pages instead of copying them for the collector
    _LIBC.malloc_trim(0)  # fewer mapped pages: every fork copies the page tables of the rest
    job = _serve(sock, settings["uid"], programs, last_pid)
    if job is not None:  # in the job's first process
        _child(job[0], settings["uid"], job[1], job[2])


if __name__ == "__main__":
    _main()
