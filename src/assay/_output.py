"""Writing the files the commands produce (reports) without losing what was already there;
task directories are saved by :func:`assay.tasks.taskdir.save_tasks`, which never replaces what
assay did not write.

Checks that fail raise :class:`assay.errors.InputError` before anything is written, so a command
that cannot keep its output refuses before it spends minutes of sandbox time.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from assay.errors import InputError


def require_writable_file(path: Path, *, store: Path | None = None) -> None:
    """Raise unless :func:`write_atomically` can write ``path`` (probed with a file beside it)
    and ``path`` is not the results database ``store`` or one of its journal files."""
    if store is not None:
        refuse_store(path, store)
    written = written_path(path)
    if written.is_dir():
        raise InputError("is a directory", path=path, fix="name a file to write")
    if written.exists() and not written.is_file():
        raise InputError(
            "is a FIFO, socket or device: a report is a file, written whole and then put in "
            "its place",
            path=path,
            fix="name a regular file to write",
        )
    if not written.parent.is_dir():
        raise InputError(
            f"cannot write here: no directory {written.parent}",
            path=path,
            fix="create the directory first, or write somewhere else",
        )
    try:
        with tempfile.NamedTemporaryFile(dir=written.parent, prefix=f".{written.name}."):
            pass
    except OSError as exc:
        raise InputError(
            f"cannot write here: {exc.strerror or exc}",
            path=path,
            fix="choose a writable location",
        ) from None


def refuse_store(path: Path, store: Path) -> None:
    """Raise when ``path``, about to be written, is the results database or one of its files."""
    if _is_store_file(path, store):
        raise InputError(
            "is the results database (--db): writing there would replace every run it keeps",
            path=path,
            fix="write to another file",
        )


def _is_store_file(path: Path, store: Path) -> bool:
    """Whether ``path`` is the results database ``store`` or its ``-wal``, ``-shm`` or
    ``-journal`` file."""
    target = Path(os.path.realpath(path))  # never raises for a link that loops
    database = Path(os.path.realpath(store))
    companions = [database, *(database.with_name(database.name + s) for s in _JOURNALS)]
    return any(target == other for other in companions)


_JOURNALS = ("-wal", "-shm", "-journal")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file, then a rename). A
    symbolic link at ``path`` is kept and what it names replaced (see :func:`written_path`);
    the file keeps the mode of the one it replaces (see :func:`mode_for`)."""
    path = written_path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, mode_for(path))
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def written_path(path: Path) -> Path:
    """Where a file written to ``path`` goes: ``path``, or what the symbolic link there names,
    so that the link is kept (replacing the link by a file would leave what it names with the
    old contents). A link that leads back to itself (``x -> x``, or round a chain of links)
    names no file to write: :class:`InputError`."""
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path, strict=True))
    except OSError as exc:  # a link that names nothing yet is written through, as below
        if exc.errno == errno.ELOOP:
            raise InputError(
                "is a symbolic link that leads back to itself, so it names no file to write",
                path=path,
                fix="remove the link, or point it at a file",
            ) from None
    return Path(os.path.realpath(path))


def mode_for(path: Path) -> int:
    """The permissions of a file about to replace ``path``: those of the regular file there (a
    private 0600 report stays private), or what a new file gets under the umask (``mkstemp``
    alone would make it 0600)."""
    try:
        there = path.stat()
    except OSError:
        there = None
    if there is not None and stat.S_ISREG(there.st_mode):
        return there.st_mode & 0o777  # never set-user-id, set-group-id or sticky on a report
    return 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def require_directory(path: Path) -> None:
    """Create ``path`` if needed; raise unless it is a directory this process can write into."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        Path(tempfile.mkdtemp(dir=path, prefix=".assay-probe.")).rmdir()
    except FileExistsError:
        raise InputError(
            "exists and is not a directory", path=path, fix="choose a directory"
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot write a directory here: {exc.strerror or exc}",
            path=path,
            fix="choose a writable directory",
        ) from None


__all__ = [
    "mode_for",
    "require_directory",
    "require_writable_file",
    "write_atomically",
    "written_path",
]
