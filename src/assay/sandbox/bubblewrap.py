"""The bubblewrap backend: one fresh sandbox per command.

Each run gets new user, PID, network, IPC, UTS and cgroup namespaces; a read-only view of the
system directories and the Python installation; a fresh copy of its files at ``/workspace`` (the
only writable place besides a private ``/tmp``); a cleared environment; no capabilities; and the
limits of :class:`assay.tasks.Limits`. The task directory, the project checkout and the rest of
the host filesystem are simply not there.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from assay.errors import SandboxError, SandboxUnavailableError
from assay.sandbox._cgroups import JobGroup, open_job_group
from assay.sandbox._process import Finished, run_limited
from assay.sandbox._seccomp import NO_FILTER_NOTE, filter_program
from assay.sandbox.protocol import ExecResult
from assay.tasks.spec import Limits
from assay.tasks.taskdir import write_files

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
NO_CGROUP_NOTE = (
    "no writable cgroup on this host: memory and process limits hold per process only "
    "(address space and RLIMIT_NPROC), not for the job as a whole"
)


class BubblewrapSandbox:
    """Runs each command in a new bubblewrap sandbox."""

    name = "bubblewrap"

    def __init__(self, bwrap: str | None = None) -> None:
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailableError(INSTALL_HINT)
        self._bwrap = found
        self._python = os.path.realpath(sys.executable)
        self._system_args = system_view(Path(os.path.realpath(sys.base_prefix)))
        self._seccomp = filter_program()

    @property
    def python(self) -> str:
        """The host's Python interpreter, mounted read-only at the same path."""
        return self._python

    @property
    def notes(self) -> tuple[str, ...]:
        """Protections this host cannot give (no seccomp filter, no writable cgroup)."""
        return host_notes(self._seccomp is not None)

    def close(self) -> None:
        """Nothing to release: every run cleans up after itself."""

    def __enter__(self) -> BubblewrapSandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes = b"",
    ) -> ExecResult:
        """Run ``command`` in a fresh sandbox; see :class:`assay.sandbox.Sandbox`."""
        if not command:
            raise SandboxError("no command to run")
        limits = limits or Limits()
        group = open_job_group(limits.memory_mb, limits.max_processes)
        workdir = Path(tempfile.mkdtemp(prefix="assay-job-"))
        status_read, status_write = os.pipe()
        seccomp_fd = self._seccomp_fd()
        try:
            write_files(workdir, dict(files or {}))
            argv = [*self._bwrap_args(workdir, status_write, seccomp_fd), "--", *command]
            finished = run_limited(
                argv,
                cwd=workdir,
                env={"PATH": "/usr/bin:/bin"},
                limits=limits,
                stdin=stdin,
                group=group,
                pass_fds=(status_write,) if seccomp_fd < 0 else (status_write, seccomp_fd),
            )
            os.close(status_write)
            status_write = -1
            started = _read_status(status_read)
            if not started and not finished.timed_out:
                detail = finished.stderr.decode(errors="replace").strip().splitlines()
                raise SandboxError(
                    "bubblewrap could not start the sandbox: "
                    + (detail[-1] if detail else f"exit status {finished.exit_code}")
                )
            notes = () if self._seccomp is not None else (NO_FILTER_NOTE,)
            return _result(finished, group, notes)
        finally:
            if status_write >= 0:
                os.close(status_write)
            os.close(status_read)
            if seccomp_fd >= 0:
                os.close(seccomp_fd)
            if group is not None:
                group.close()
            shutil.rmtree(workdir, ignore_errors=True)

    def _seccomp_fd(self) -> int:
        """A pipe holding the compiled filter, for ``--seccomp``; -1 where there is none."""
        if self._seccomp is None:
            return -1
        read_end, write_end = os.pipe()
        os.write(write_end, self._seccomp)
        os.close(write_end)
        return read_end

    def _bwrap_args(self, workdir: Path, status_fd: int, seccomp_fd: int) -> list[str]:
        seccomp = ["--seccomp", str(seccomp_fd)] if seccomp_fd >= 0 else []
        return [
            self._bwrap,
            "--unshare-all",
            "--unshare-user",
            "--uid",
            "1000",
            "--gid",
            "1000",
            "--hostname",
            "sandbox",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--clearenv",
            "--setenv",
            "PATH",
            f"{Path(self._python).parent}:/usr/local/bin:/usr/bin:/bin",
            "--setenv",
            "HOME",
            WORKDIR,
            "--setenv",
            "TMPDIR",
            "/tmp",  # noqa: S108 - a private tmpfs inside the sandbox
            "--setenv",
            "LANG",
            "C.UTF-8",
            "--setenv",
            "PYTHONDONTWRITEBYTECODE",
            "1",
            *self._system_args,
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",  # noqa: S108 - see above
            "--bind",
            str(workdir),
            WORKDIR,
            "--remount-ro",
            "/",
            "--remount-ro",
            "/dev",
            "--chdir",
            WORKDIR,
            "--json-status-fd",
            str(status_fd),
            *seccomp,
        ]


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
    """Read-only mounts of the system directories, a few /etc files and the Python install."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LEVEL:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    if not python_prefix.is_relative_to("/usr"):
        # Directories leading to the install are made traversable for any uid (a job in the
        # pool runs as its own unprivileged uid; /root on the host is 0700).
        for parent in reversed(python_prefix.parents[:-1]):
            args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(python_prefix), str(python_prefix)]
    return args


def _read_status(fd: int) -> bool:
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
    peak = group.peak_memory_mb() if group else None
    cpu = group.cpu_seconds() if group else None
    oom = group.oom_killed() if group else False
    stderr = finished.stderr.decode(errors="replace")
    hit_address_limit = finished.exit_code not in (0, None) and "MemoryError" in stderr[-2000:]
    return ExecResult(
        exit_code=finished.exit_code,
        signal=finished.signal,
        timed_out=finished.timed_out,
        out_of_memory=oom or hit_address_limit,
        wall_s=finished.wall_s,
        cpu_s=cpu if cpu is not None else finished.cpu_s,
        peak_memory_mb=peak if peak is not None else finished.max_rss_mb,
        stdout=finished.stdout.decode(errors="replace"),
        stderr=stderr,
        stdout_truncated=finished.stdout_truncated,
        stderr_truncated=finished.stderr_truncated,
        notes=notes if group else (*notes, NO_CGROUP_NOTE),
    )
