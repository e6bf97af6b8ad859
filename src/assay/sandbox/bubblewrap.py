"""The bubblewrap backend: one fresh sandbox per command.

Each run gets new user, PID, network, IPC, UTS and cgroup namespaces; a read-only view of the
system directories and the Python installation; a fresh copy of its files at ``/workspace`` (the
only writable place besides a private ``/tmp``); a cleared environment; no capabilities; and the
limits of :class:`assay.tasks.Limits`. The task directory, the project checkout and the rest of
the host filesystem are simply not there.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath

from assay.errors import SandboxError, SandboxUnavailableError
from assay.sandbox._cgroups import JobGroup, open_job_group
from assay.sandbox._fresh_start import host_holds_signals, prefix
from assay.sandbox._process import (
    Finished,
    check_command,
    check_files,
    options_fd,
    run_limited,
)
from assay.sandbox._pyenv import hiding_args, resolve
from assay.sandbox._results import JobEnd, exec_result
from assay.sandbox._seccomp import NO_FILTER_NOTE, filter_program
from assay.sandbox._uids import UidLease, lease
from assay.sandbox._userns import host_identity
from assay.sandbox.protocol import ExecResult
from assay.tasks.spec import Limits

WORKDIR = "/workspace"
INSTALL_HINT = (
    "bubblewrap (bwrap) is not installed, so untrusted code cannot be isolated: "
    "install it with `apt-get install bubblewrap` (Debian/Ubuntu) or `dnf install bubblewrap`, "
    "or run `make setup`"
)
_ETC_FILES = (
    "passwd",
    "group",
    "nsswitch.conf",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "alternatives",
    "mime.types",
)
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
SETPRIV_HINT = (
    "setpriv (from util-linux) is missing, so jobs started by root cannot be given an "
    "unprivileged uid: install util-linux"
)
NO_CGROUP_NOTE = (
    "no writable cgroup on this host: memory and process limits hold per process only "
    "(address space and RLIMIT_NPROC), not for the job as a whole, and no job's peak memory is "
    "measured"
)


class BubblewrapSandbox:
    """Runs each command in a new bubblewrap sandbox.

    Run as root, bubblewrap keeps only the capabilities to change uid, and ``setpriv`` turns the
    command into a fresh unprivileged uid with no new privileges, so the job holds no owner
    rights over the host's root-owned files. Run as another user with subordinate ids, the same
    happens inside a user namespace made for the job and mapped to them (see
    :mod:`assay.sandbox._userns`): the job's uid is none of the user's. Without subordinate ids
    bubblewrap makes the namespace itself and the command runs as the user, with the user's
    rights over what it can see (noted in every result).
    """

    name = "bubblewrap"

    def __init__(self, bwrap: str | None = None) -> None:
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailableError(INSTALL_HINT)
        self._bwrap = found
        self.identity = host_identity(found)
        self._setpriv: str | None = None
        if self.identity.kind != "shared":
            self._setpriv = shutil.which("setpriv")
            if self._setpriv is None:
                raise SandboxUnavailableError(SETPRIV_HINT)
        self._uid_range = self.identity.one_shot_uids
        self._prlimit = None if self.identity.kind == "root" else shutil.which("prlimit")
        self._python = os.path.realpath(sys.executable)
        # Where this process holds a signal ignored or blocked (started under ``nohup``, say),
        # so would bubblewrap and the job: this prefix gives the job every one at its default.
        self._fresh_start = prefix(self._python)
        self._system_args = system_view(Path(os.path.realpath(sys.base_prefix)))
        self._seccomp = filter_program()
        self._seccomp_no_sockets = filter_program(sockets=False)
        self._uid_lock = threading.Lock()
        self._leases: list[UidLease] = []
        self._free_uids: list[int] = []

    @property
    def python(self) -> str:
        """The host's Python interpreter, mounted read-only at the same path."""
        return self._python

    @property
    def notes(self) -> tuple[str, ...]:
        """Protections this host cannot give (no seccomp filter, no writable cgroup, no
        subordinate ids without root)."""
        return (*host_notes(self._seccomp is not None), *self._identity_notes())

    def _identity_notes(self) -> tuple[str, ...]:
        if self.identity.kind != "shared":
            return ()
        return (
            "no subordinate ids for this user: each job runs as your own uid in a user namespace "
            "of its own, so it can read the files only you may read wherever it can see them "
            "(the Python installation, if it is under your home)",
            *self.identity.notes,
        )

    def close(self) -> None:
        """Give back the blocks of uids it leased; every run cleans up after itself."""
        with self._uid_lock:
            for held in self._leases:
                held.release()
            self._leases, self._free_uids = [], []

    def __enter__(self) -> BubblewrapSandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __deepcopy__(self, _memo: dict[int, object]) -> BubblewrapSandbox:
        """The sandbox itself, as for the pool: a shared resource is not copied."""
        return self

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
        """Run ``command`` in a fresh sandbox; see :class:`assay.sandbox.Sandbox`."""
        check_command(command)
        limits = limits or Limits()
        check_files(files or {}, limits)
        package_args = resolve(packages).mount_args()
        group = open_job_group(limits.memory_mb, limits.max_processes)
        with contextlib.ExitStack() as cleanup:
            if group is not None:
                cleanup.callback(group.close)
            uid = cleanup.enter_context(self._job_uid()) if self._setpriv else None
            status_read, status_write = os.pipe()
            cleanup.callback(_close_quietly, status_read)
            try:
                passed = [status_write]
                file_args = _file_args(dict(files or {}), passed, cleanup)
                seccomp = self._seccomp_args(passed, cleanup, sockets=sockets)
                bwrap, *options = self._bwrap_args(limits, status_write, package_args)
                hidden = options_fd([*options, *file_args, *seccomp])
                cleanup.callback(_close_quietly, hidden)
                passed.append(hidden)
                argv = [
                    bwrap,
                    "--args",
                    str(hidden),
                    "--",
                    *self._as_job_user(uid),
                    *self._process_limit(limits),
                    *(self._fresh_start if host_holds_signals() else ()),
                    *command,
                ]
                finished = run_limited(
                    argv,
                    cwd=Path("/"),
                    env={"PATH": "/usr/bin:/bin"},
                    limits=limits,
                    stdin=stdin,
                    group=group,
                    pass_fds=tuple(passed),
                    identity=self.identity,
                )
            finally:
                os.close(status_write)  # once, here: the number may be reused right after
            if not _started(status_read) and not finished.timed_out:
                detail = finished.stderr.decode(errors="replace").strip().splitlines()
                raise SandboxError(
                    "bubblewrap could not start the sandbox: "
                    + (detail[-1] if detail else f"exit status {finished.exit_code}")
                )
            notes = () if self._seccomp is not None else (NO_FILTER_NOTE,)
            return _result(finished, group, (*notes, *self._identity_notes()))

    @contextlib.contextmanager
    def _job_uid(self) -> Iterator[int]:
        """A uid that no other job, of this process or another, holds while this one runs."""
        with self._uid_lock:
            if not self._free_uids:
                held = lease(self._uid_range)
                self._leases.append(held)
                self._free_uids = [held.uid(i) for i in reversed(range(self._uid_range.size))]
            uid = self._free_uids.pop()
        try:
            yield uid
        finally:
            with self._uid_lock:
                self._free_uids.append(uid)

    def _as_job_user(self, uid: int | None) -> list[str]:
        """As root, or with subordinate ids: the setpriv prefix that makes the command a fresh
        unprivileged uid."""
        if self._setpriv is None or uid is None:
            return []
        return [
            self._setpriv,
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--no-new-privs",
            "--",
        ]

    def _process_limit(self, limits: Limits) -> list[str]:
        """Without root: the prefix that sets the job's process limit inside its own user
        namespace, where it counts only the job's processes (bubblewrap's init among them
        without subordinate ids). Set before the namespace is made, it would count every
        process of the user, assay's own and every other job's, and concurrent jobs would fail
        to start."""
        if self._prlimit is None:
            return []
        allowed = limits.max_processes
        return [self._prlimit, f"--nproc={allowed}:{allowed}", "--"]

    def _seccomp_args(
        self, passed: list[int], cleanup: contextlib.ExitStack, *, sockets: bool
    ) -> list[str]:
        """``--seccomp FD`` with the compiled filter in a pipe (the one that also refuses
        sockets, without ``sockets``); nothing where there is none."""
        program = self._seccomp if sockets else self._seccomp_no_sockets
        if program is None:
            return []
        read_end, write_end = os.pipe()
        os.write(write_end, program)
        os.close(write_end)
        cleanup.callback(_close_quietly, read_end)
        passed.append(read_end)
        return ["--seccomp", str(read_end)]

    def _bwrap_args(self, limits: Limits, status_fd: int, package_args: list[str]) -> list[str]:
        if self._setpriv is not None:  # bubblewrap makes no user namespace; setpriv drops uid
            identity = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            identity = ["--unshare-user", "--uid", "1000", "--gid", "1000", "--cap-drop", "ALL"]
        scratch = str(limits.memory_mb * 2**20)
        return [
            self._bwrap,
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try",
            *identity,
            "--hostname", "sandbox",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--setenv", "PATH", f"{Path(self._python).parent}:/usr/local/bin:/usr/bin:/bin",
            "--setenv", "HOME", WORKDIR,
            "--setenv", "TMPDIR", "/tmp",  # noqa: S108 - a private tmpfs inside the sandbox
            "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
            *self._system_args,
            *package_args,
            "--dev", "/dev",
            # No pseudo-terminals: bubblewrap's devpts has no limit of its own, and every
            # terminal counts against one host-wide limit that one job could take whole (the
            # pool's workers mount one of at most 16 instead).
            "--perms", "0555", "--tmpfs", "/dev/pts",
            "--proc", "/proc",
            "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp",  # noqa: S108 - see above
            "--perms", "0777", "--size", scratch, "--tmpfs", WORKDIR,
            "--remount-ro", "/",
            "--remount-ro", "/dev",
            "--chdir", WORKDIR,
            "--json-status-fd", str(status_fd),
        ]  # fmt: skip


def _file_args(
    files: dict[str, bytes], passed: list[int], cleanup: contextlib.ExitStack
) -> list[str]:
    """``--file FD PATH`` for each file (from a memfd), with its directories made first.

    The files live in the job's size-limited tmpfs, not on the host's disk, and are writable
    by the job.
    """
    args: list[str] = []
    made: set[str] = set()
    for name in sorted(files):
        relative = PurePosixPath(name)
        for parent in reversed(relative.parents[:-1]):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0777", "--dir", f"{WORKDIR}/{parent}"]
        fd = os.memfd_create("assay-file")
        cleanup.callback(_close_quietly, fd)
        os.write(fd, files[name])
        os.lseek(fd, 0, os.SEEK_SET)
        passed.append(fd)
        args += ["--perms", "0666", "--file", str(fd), f"{WORKDIR}/{relative}"]
    return args


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def host_notes(filtered: bool) -> tuple[str, ...]:
    """What this host lacks: a seccomp filter for its architecture, a writable cgroup."""
    notes = [] if filtered else [NO_FILTER_NOTE]
    probe = open_job_group(64, 8)
    if probe is None:
        notes.append(NO_CGROUP_NOTE)
    else:
        probe.close()
    return tuple(notes)


def system_view(python_prefix: Path) -> list[str]:
    """Read-only mounts of the system directories, a few /etc files and the Python install,
    with every site-packages and dist-packages directory in them hidden (see ``_pyenv``)."""
    args = ["--ro-bind", "/usr", "/usr"]
    mounted = [Path("/usr")]
    for name in _TOP_LEVEL:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
            mounted.append(path)
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    if not python_prefix.is_relative_to("/usr"):
        # Directories leading to the install are made traversable for any uid (a job in the
        # pool runs as its own unprivileged uid; /root on the host is 0700).
        for parent in reversed(python_prefix.parents[:-1]):
            args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(python_prefix), str(python_prefix)]
        mounted.append(python_prefix)
    return args + hiding_args(mounted)


def _started(fd: int) -> bool:
    """Whether bubblewrap reported starting the child on its JSON status pipe."""
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    for line in data.decode(errors="replace").splitlines():
        try:
            if "child-pid" in json.loads(line):
                return True
        except ValueError:
            continue
    return False


def _result(finished: Finished, group: JobGroup | None, notes: tuple[str, ...]) -> ExecResult:
    cpu = group.cpu_seconds() if group else None
    peak = group.peak_memory_mb() if group else None
    end = JobEnd(
        status=finished.status,
        timed_out=finished.timed_out,
        wall_s=finished.wall_s,
        cpu_s=cpu if cpu is not None else finished.cpu_s,
        # None without a group, as on the pool: the largest resident size the kernel records
        # for the process tree is the host's own, copied by the fork that started bubblewrap.
        peak_memory_mb=peak,
        oom_killed=group.oom_killed() if group else None,
        stdout=finished.stdout,
        stderr=finished.stderr,
        stdout_truncated=finished.stdout_truncated,
        stderr_truncated=finished.stderr_truncated,
        cpu_exceeded=finished.cpu_exceeded,
    )
    return exec_result(end, notes if group else (*notes, NO_CGROUP_NOTE))
