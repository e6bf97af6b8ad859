"""Who the pool's jobs run as, with root and without.

Root gives each job an unprivileged uid of its own on the host (a slot of a leased block, see
:mod:`assay.sandbox._uids`). A normal user cannot, so each worker gets a user namespace of its
own, in one of two ways:

- ``subordinate``: where the host grants the user subordinate ids (``/etc/subuid`` and
  ``/etc/subgid``, set with ``newuidmap`` and ``newgidmap`` from the ``uidmap`` package), the
  worker's namespace maps its root to the user and a block of the subordinate ids above it: each
  job then runs as a uid of its own, no more able to touch its worker or other jobs than under
  root. The worker's first process makes the namespace (``unshare``) before it runs bubblewrap,
  and a helper of the host writes its maps with ``newuidmap``/``newgidmap``.
- ``shared``: without subordinate ids, bubblewrap makes the namespace with the user's own uid as
  its only one, so every job runs as that uid, the worker's (as uid 1000 of a namespace of its
  own, with every capability dropped). What that loses is in :data:`SHARED_NOTE`, which every
  result carries.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import pwd
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from assay.errors import SandboxError
from assay.sandbox._uids import BUBBLEWRAP_UIDS, POOL_UIDS, UidRange

SUBUID = Path("/etc/subuid")
SUBGID = Path("/etc/subgid")
FIRST_JOB_ID = 1024
"""Inside a worker's namespace, job uids start here (0 is the worker, the user itself)."""
SHARED_ID = 0
"""Without subordinate ids: the one uid (and gid) of a worker's namespace, the worker's and its
jobs'. Each job then makes a namespace of its own in which it is uid 1000, without
capabilities, so that it is not root even of its worker's namespace (bubblewrap's own
``--uid 1000`` would nest the worker in a namespace that does not own its PID namespace)."""
_CLONE_NEWUSER = 0x10000000
_MAP_TIMEOUT_S = 10.0
SHARED_NOTE = (
    "no subordinate ids for this user (/etc/subuid and /etc/subgid, set with newuidmap from the "
    "uidmap package): every job runs as your own uid inside its worker's user namespace, so jobs "
    "are not told apart by uid; isolation between jobs holds (fresh scratch, network, PIDs), the "
    "worker ignores a job's signals, and the seccomp filter keeps a job from changing its "
    "worker's limits, priority or CPU affinity"
)


@dataclass(frozen=True)
class IdMap:
    """One line of a user namespace's uid or gid map."""

    inside: int
    outside: int
    count: int


@dataclass(frozen=True)
class Identity:
    """How this process's pool workers give their jobs uids."""

    kind: Literal["root", "subordinate", "shared"]
    uids: UidRange
    """Where a pool leases its block of job uids (host uids for root, namespace uids else)."""
    one_shot_uids: UidRange
    """Where a bubblewrap sandbox leases its block, apart from every pool's."""
    uid_map: tuple[IdMap, ...] = ()
    gid_map: tuple[IdMap, ...] = ()
    notes: tuple[str, ...] = ()
    """What this way of running loses, carried by every result."""

    def host_uid(self, inside: int) -> int:
        """The host's number for a job uid given inside a worker's namespace."""
        for line in self.uid_map:
            if line.inside <= inside < line.inside + line.count:
                return line.outside + inside - line.inside
        return inside if self.kind == "root" else os.getuid()

    def bwrap_args(self) -> list[str]:
        """bubblewrap's own user-namespace arguments (only ``shared`` has it make one)."""
        if self.kind == "shared":
            return ["--unshare-user", "--uid", str(SHARED_ID), "--gid", str(SHARED_ID)]
        return []


@functools.lru_cache(maxsize=4)
def host_identity(bwrap: str) -> Identity:
    """How this process's workers run: ``root`` when it is root; else ``subordinate`` where
    bubblewrap works in a namespace mapped to the user's subordinate ids (tried once, with
    ``bwrap``), ``shared`` otherwise, with the reason in its note."""
    if os.geteuid() == 0:
        return Identity("root", POOL_UIDS, BUBBLEWRAP_UIDS)
    found = subordinate_identity()
    if isinstance(found, Identity):
        failure = _try(
            found, [bwrap, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true"]
        )
        if failure is None:
            return found
        found = failure
    own = UidRange("shared", SHARED_ID, 1, 1)  # never leased: every job is the user
    return Identity("shared", own, own, notes=(f"{SHARED_NOTE}: {found}",))


def subordinate_identity(subuid: Path | None = None, subgid: Path | None = None) -> Identity | str:
    """The ``subordinate`` identity this user can have, or why not (one line)."""
    subuid, subgid = subuid or SUBUID, subgid or SUBGID
    tools = [name for name in ("newuidmap", "newgidmap") if shutil.which(name) is None]
    if tools:
        return f"{' and '.join(tools)} not found"
    user = pwd.getpwuid(os.getuid()).pw_name
    uids = _subordinate_range(subuid, user, os.getuid())
    gids = _subordinate_range(subgid, user, os.getuid())
    if uids is None or gids is None:
        where = subuid if uids is None else subgid
        return f"no range of at least {FIRST_JOB_ID + POOL_UIDS.size} ids for {user} in {where}"
    count = min(uids[1], gids[1])
    # Inside the namespace: 0 is the user, then blocks for pools, then blocks for bubblewrap.
    pools = (count + 1 - FIRST_JOB_ID) // POOL_UIDS.size // 2
    one_shot = FIRST_JOB_ID + pools * POOL_UIDS.size
    return Identity(
        "subordinate",
        UidRange(f"pool-{uids[0]}", FIRST_JOB_ID, POOL_UIDS.size, pools),
        UidRange(
            f"bubblewrap-{uids[0]}",
            one_shot,
            BUBBLEWRAP_UIDS.size,
            (count + 1 - one_shot) // BUBBLEWRAP_UIDS.size,
        ),
        uid_map=(IdMap(0, os.getuid(), 1), IdMap(1, uids[0], count)),
        gid_map=(IdMap(0, os.getgid(), 1), IdMap(1, gids[0], count)),
    )


def _subordinate_range(path: Path, user: str, own: int) -> tuple[int, int] | None:
    """The largest range of ``path`` given to ``user`` (by name or number) that holds a block
    of job ids above :data:`FIRST_JOB_ID`: (first id, count)."""
    names = {user, str(own)}  # both files name the owning user, by name or number
    best: tuple[int, int] | None = None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.strip().split(":")
        if len(fields) != 3 or fields[0] not in names:
            continue
        try:
            first, count = int(fields[1]), int(fields[2])
        except ValueError:
            continue
        if count >= FIRST_JOB_ID + POOL_UIDS.size and (best is None or count > best[1]):
            best = (first, count)
    return best


def popen(
    argv: list[str],
    identity: Identity | None,
    before: Callable[[], None],
    **kwargs: Any,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` as Popen would, in a new user namespace mapped as ``identity`` says when
    it is ``subordinate``; ``before`` runs first in the child (joining cgroups, as the user).

    The child makes the namespace and waits; a thread of this process maps it with
    ``newuidmap``/``newgidmap`` (which must run outside it) and lets the child go on to exec,
    as root of its namespace. Raises :class:`SandboxError` when mapping fails.
    """
    if identity is None or identity.kind != "subordinate":
        return subprocess.Popen(argv, preexec_fn=before, **kwargs)  # noqa: PLW1509 - see _join
    pid_r, pid_w = os.pipe()
    go_r, go_w = os.pipe()
    failure: list[str] = []
    mapper = threading.Thread(
        target=_map_child, args=(pid_r, go_w, identity, failure), name="assay-userns-map"
    )
    mapper.start()
    unshare = _libc().unshare

    def child() -> None:
        before()
        if unshare(_CLONE_NEWUSER) != 0:
            os.write(pid_w, b"-")
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
        os.write(pid_w, str(os.getpid()).encode())
        if os.read(go_r, 1) != b"1":
            raise OSError("the user namespace was not mapped")

    try:
        return subprocess.Popen(argv, preexec_fn=child, **kwargs)  # noqa: PLW1509 - syscalls only
    except subprocess.SubprocessError:
        raise SandboxError(
            "could not start a worker in a user namespace: "
            + (failure[0] if failure else "unshare(CLONE_NEWUSER) was refused")
        ) from None
    finally:
        os.close(pid_w)
        os.close(go_r)
        mapper.join(_MAP_TIMEOUT_S)
        os.close(pid_r)
        os.close(go_w)


def _map_child(pid_r: int, go_w: int, identity: Identity, failure: list[str]) -> None:
    """Read the child's process id, write its maps, and tell it to go on (b"1") or not."""
    answer = b"0"
    try:
        pid = os.read(pid_r, 32).decode()
        if pid.isdigit():
            _write_maps(int(pid), identity)
            answer = b"1"
    except (OSError, SandboxError) as exc:
        failure.append(str(exc))
    finally:
        with contextlib.suppress(OSError):
            os.write(go_w, answer)


def _write_maps(pid: int, identity: Identity) -> None:
    for tool, ranges in (("newuidmap", identity.uid_map), ("newgidmap", identity.gid_map)):
        numbers = [str(n) for r in ranges for n in (r.inside, r.outside, r.count)]
        done = subprocess.run(
            [tool, str(pid), *numbers],
            capture_output=True,
            timeout=_MAP_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            detail = done.stderr.decode(errors="replace").strip().splitlines()
            raise SandboxError(f"{tool} failed: {detail[-1] if detail else done.returncode}")


def _try(identity: Identity, argv: list[str]) -> str | None:
    """Why ``argv`` cannot run in a namespace mapped as ``identity`` says; None when it can."""
    try:
        done = popen(
            argv,
            identity,
            lambda: None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        _, err = done.communicate(timeout=_MAP_TIMEOUT_S)
    except (SandboxError, OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        return (
            f"bubblewrap failed in the mapped namespace: {lines[-1] if lines else done.returncode}"
        )
    return None


@functools.lru_cache(maxsize=1)
def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)
