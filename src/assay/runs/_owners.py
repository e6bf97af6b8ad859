"""Who holds a lease: ``host:pid:nonce:pidns``, and whether that holder is known to be gone.

A lease ends when it expires, wherever its holder ran. A holder on this host and in this PID
namespace whose process no longer exists is known to be gone at once, so a run resumed after a
SIGKILL need not wait for the leases of the killed runner to expire. A holder on another host,
in another PID namespace (a container that shares the host's name, as host networking does, sees
other process ids), or a process id that was reused, is never taken for dead: its leases simply
run out. An owner written without its namespace (``host:pid:nonce``) is judged by host and pid.
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

from assay._namespaces import pid_namespace


def new_owner() -> str:
    """A fresh owner id for this process."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}:{pid_namespace()}"


def known_dead(owner: str) -> bool:
    """Whether ``owner`` ran on this host, in this PID namespace, in a process that no longer
    exists."""
    parts = owner.split(":")
    host, pid_text = parts[0], parts[1] if len(parts) > 1 else ""
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    if len(parts) > 3 and parts[3] != str(pid_namespace()):
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False  # this process: its runners give their leases back when they stop
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # a pid past any the kernel gives is no process
        return False
    return _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A killed child not yet reaped by its parent still has a pid; it holds nothing."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return stat.rsplit(")", 1)[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return False
