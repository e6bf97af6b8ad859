"""The PID namespace this process runs in: process ids name the same processes only between
processes of one namespace (a container sharing the host's cgroups or its host name sees other
ids), so whatever judges another process alive or dead by its id first checks it is of this one."""

from __future__ import annotations

from pathlib import Path


def pid_namespace() -> int:
    """The inode of this process's PID namespace (0 where it cannot be read)."""
    try:
        return Path("/proc/self/ns/pid").stat().st_ino
    except OSError:
        return 0
