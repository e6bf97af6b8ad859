"""Blocks of unprivileged uids, leased per process so that no two sandboxes on a host share one.

A job's uid is what its process limit (RLIMIT_NPROC) and its file ownership count against, so two
jobs of different assay processes must never get the same one. Each backend instance leases a
block: an exclusive ``flock`` on a file named after the block, in a directory only the calling
user can write. The kernel drops the lock when the process dies, however it dies, so a block is
never lost and never shared; a second pool in the same process takes the next free block.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SandboxError


@dataclass(frozen=True)
class UidRange:
    """Where a kind of block lives: the first uid, the size of a block, and how many there are."""

    kind: str
    first: int
    size: int
    blocks: int


POOL_UIDS = UidRange("pool", first=200_000, size=1024, blocks=30_000)
"""Pool slots: 200,000 up to about 31 million."""
BUBBLEWRAP_UIDS = UidRange("bubblewrap", first=40_000_000, size=256, blocks=16_384)
"""One-shot bubblewrap jobs: 40 million up to about 44 million, above every pool uid."""


class UidLease:
    """One block of a :class:`UidRange`, held until :meth:`release` or the end of the process."""

    def __init__(self, kind: UidRange, block: int, fd: int) -> None:
        self.kind = kind
        self.block = block
        self._fd: int | None = fd

    @property
    def first(self) -> int:
        """The block's first uid."""
        return self.kind.first + self.block * self.kind.size

    def uid(self, index: int) -> int:
        """The ``index``-th uid of the block."""
        if not 0 <= index < self.kind.size:
            raise SandboxError(f"uid index {index} is outside a block of {self.kind.size}")
        return self.first + index

    def release(self) -> None:
        """Give the block back. Idempotent."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def lease(kind: UidRange, directory: Path | None = None) -> UidLease:
    """The first free block of ``kind``, starting from one chosen by the process id.

    Raises :class:`SandboxError` when every block is taken or the lock directory cannot be used.
    """
    where = directory or lock_directory()
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        owner = where.stat().st_uid
    except OSError as exc:
        raise SandboxError(f"cannot make the uid lock directory {where}: {exc}") from None
    if owner != os.geteuid():
        raise SandboxError(f"the uid lock directory {where} belongs to another user")
    start = os.getpid() % kind.blocks
    for step in range(kind.blocks):
        block = (start + step) % kind.blocks
        fd = os.open(where / f"{kind.kind}-{block}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        return UidLease(kind, block, fd)
    raise SandboxError(f"all {kind.blocks} blocks of {kind.kind} uids are taken on this host")


def lock_directory() -> Path:
    """Where the leases' lock files live: ``/run/assay/uids`` for root; for another user a
    directory of theirs (every user's sandboxes map their own subordinate ids)."""
    if os.geteuid() == 0:
        return Path("/run/assay/uids")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path("/tmp")  # noqa: S108 - owned, 0700, per user
    return base / f"assay-{os.geteuid()}" / "uids"
