"""An unisolated stand-in sandbox for unit tests of code that merely *uses* a sandbox.

It runs commands as ordinary subprocesses in a temporary directory, with rlimits and a timeout
but no isolation at all. Never give it untrusted code.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from assay.errors import SandboxError
from assay.sandbox._fresh_start import host_holds_signals, prefix
from assay.sandbox._process import check_command, run_limited
from assay.sandbox.protocol import ExecResult
from assay.tasks.spec import Limits
from assay.tasks.taskdir import write_files

UNSAFE_NOTE = "local backend: no isolation; for tests of trusted code only"


class LocalSandbox:
    """Runs commands without isolation, for tests. Implements :class:`assay.sandbox.Sandbox`."""

    name = "local"

    @property
    def python(self) -> str:
        """The current interpreter."""
        return sys.executable

    @property
    def notes(self) -> tuple[str, ...]:
        """This backend isolates nothing."""
        return (UNSAFE_NOTE,)

    def close(self) -> None:
        """Nothing to release."""

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
        """Run ``command`` in a temporary directory; see :class:`assay.sandbox.Sandbox`.

        It has no mounts to arrange ``packages`` with: naming any raises
        :class:`assay.errors.SandboxError`. It refuses nothing, sockets included (its note says
        so on every result).
        """
        if packages:
            raise SandboxError("the local backend cannot expose packages: use pool or bubblewrap")
        check_command(command)
        if host_holds_signals():  # as bubblewrap does: a job never inherits its host's
            command = [*prefix(sys.executable), *command]
        limits = limits or Limits()
        workdir = Path(tempfile.mkdtemp(prefix="assay-local-"))
        try:
            write_files(workdir, dict(files or {}))
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir)}
            done = run_limited(
                command, cwd=workdir, env=env, limits=limits, stdin=stdin, group=None
            )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return ExecResult(
            exit_code=done.exit_code,
            signal=done.signal,
            timed_out=done.timed_out,
            wall_s=done.wall_s,
            cpu_s=done.cpu_s,
            peak_memory_mb=done.max_rss_mb,
            stdout=done.stdout.decode(errors="replace"),
            stderr=done.stderr.decode(errors="replace"),
            stdout_truncated=done.stdout_truncated,
            stderr_truncated=done.stderr_truncated,
            notes=(UNSAFE_NOTE,),
        )
