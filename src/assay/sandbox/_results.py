"""Shared by the backends: the address-space limit, and turning a finished job into a result."""

from __future__ import annotations

import os
from dataclasses import dataclass

from assay.sandbox.protocol import ExecResult

ADDRESS_SPACE_FACTOR = 4
"""With a memory cgroup, the per-process address-space limit is this many times the memory
limit: the cgroup (which counts what is really used, across all processes) is what stops a job,
and it reports the stop, so the job cannot claim or hide one."""
NO_OOM_RECORD_NOTE = (
    "no cgroup: out of memory is inferred from the job's own error output and may be wrong"
)


def address_space_bytes(memory_mb: int, *, grouped: bool) -> int:
    """The RLIMIT_AS of each process of a job."""
    return memory_mb * 2**20 * (ADDRESS_SPACE_FACTOR if grouped else 1)


@dataclass(frozen=True)
class JobEnd:
    """How a job ended, as the backend measured it."""

    status: int
    timed_out: bool
    wall_s: float
    cpu_s: float
    peak_memory_mb: float | None
    oom_killed: bool | None
    """From the memory cgroup's records; None where the job had no cgroup."""
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    cpu_exceeded: bool = False
    """Stopped because all the job's processes together passed the CPU-time limit."""


def exec_result(end: JobEnd, notes: tuple[str, ...]) -> ExecResult:
    """The :class:`ExecResult` of a finished job."""
    stderr = end.stderr.decode(errors="replace")
    exit_code = os.waitstatus_to_exitcode(end.status) if os.WIFEXITED(end.status) else None
    if end.oom_killed is None:
        # Without a cgroup only the job's own words say it ran out of address space.
        out_of_memory = exit_code not in (0, None) and "MemoryError" in stderr[-2000:]
        notes = (*notes, NO_OOM_RECORD_NOTE)
    else:
        out_of_memory = end.oom_killed
    return ExecResult(
        exit_code=exit_code,
        signal=os.WTERMSIG(end.status) if os.WIFSIGNALED(end.status) else None,
        timed_out=end.timed_out,
        out_of_memory=out_of_memory,
        cpu_exceeded=end.cpu_exceeded,
        wall_s=end.wall_s,
        cpu_s=end.cpu_s,
        peak_memory_mb=end.peak_memory_mb,
        stdout=end.stdout.decode(errors="replace"),
        stderr=stderr,
        stdout_truncated=end.stdout_truncated,
        stderr_truncated=end.stderr_truncated,
        notes=notes,
    )
