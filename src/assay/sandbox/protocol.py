"""The sandbox extension point and the record of one sandboxed run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from assay.tasks.spec import Limits

PACKAGES_DIR = "/opt/assay/packages"
"""Where, inside a sandbox, the packages a run asks for are (read-only). Jobs run
``python -I -S``, so a harness that wants them puts this directory on ``sys.path`` itself."""


class ExecResult(BaseModel):
    """What happened when a command ran in a sandbox. Plain data, safe to store and compare."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    exit_code: int | None = Field(description="Exit status, or None when a signal ended it.")
    signal: int | None = Field(default=None, description="Signal that ended the command, if any.")
    timed_out: bool = Field(default=False, description="Killed because the wall-time limit passed.")
    out_of_memory: bool = Field(default=False, description="Stopped by the memory limit.")
    cpu_exceeded: bool = Field(
        default=False,
        description="Stopped because the job's processes together passed the CPU-time limit.",
    )
    wall_s: float = Field(ge=0, description="Wall time from start to the end of the last process.")
    cpu_s: float = Field(default=0.0, ge=0, description="User plus system CPU time of the job.")
    peak_memory_mb: float | None = Field(default=None, description="Peak memory, where measured.")
    stdout: str = Field(default="", description="Captured standard output (UTF-8, replaced).")
    stderr: str = Field(default="", description="Captured standard error (UTF-8, replaced).")
    stdout_truncated: bool = Field(default=False, description="stdout passed the output limit.")
    stderr_truncated: bool = Field(default=False, description="stderr passed the output limit.")
    notes: tuple[str, ...] = Field(
        default=(), description="How limits were enforced, and protections this host lacks."
    )

    @property
    def ok(self) -> bool:
        """Exited by itself with status 0, within every limit."""
        return self.exit_code == 0 and not (
            self.timed_out or self.out_of_memory or self.cpu_exceeded
        )


@runtime_checkable
class Sandbox(Protocol):
    """Somewhere to run untrusted commands.

    A run starts from a fresh private directory holding ``files`` (its working directory and the
    only writable place besides a private ``/tmp``) and ends with everything it started killed and
    the directory removed. Its Python sees the standard library and, at :data:`PACKAGES_DIR`,
    the ``packages`` the run names with their runtime requirements: no other site-packages.
    """

    name: str
    """Short backend name, e.g. ``bubblewrap``."""

    @property
    def python(self) -> str:
        """Path of a Python interpreter usable inside the sandbox."""
        ...

    @property
    def notes(self) -> tuple[str, ...]:
        """Protections this host cannot give, in words a person can act on; empty when none."""
        ...

    def close(self) -> None:
        """Release what the backend holds (workers, directories). Idempotent."""
        ...

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
        """Run ``command`` inside the sandbox and report what happened.

        ``packages`` names installed distributions (or top-level modules they install) to expose
        read-only at :data:`PACKAGES_DIR`, with their runtime requirements; none by default.
        Without ``sockets`` the command can open no socket of any kind (``socket`` and
        ``socketpair`` fail with ``EPERM``), for commands that need none, like the sql family's
        runner; a backend that makes a network namespace per run may then let the next run
        have the same one, which such a command cannot have changed. Where a backend cannot
        refuse sockets, it says so in the result's notes.
        A command that fails, crashes or exceeds a limit is reported in the result, not raised.
        Raises :class:`assay.errors.InputError` when a package is not installed in assay's
        environment, :class:`assay.errors.SandboxUnavailableError` when the backend cannot run
        on this host, and :class:`assay.errors.SandboxError` when the sandbox itself failed to
        start, or when no process can be started with ``command`` or ``files`` can not all be
        written (a NUL byte, a name that is a directory, a file past ``limits.max_file_mb``,
        more than ``limits.max_files``), on every backend alike.
        """
        ...
