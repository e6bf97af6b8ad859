"""Writing what the commands produce without losing what was already there.

Checks that fail raise :class:`assay.errors.InputError` before anything is written, so a command
that cannot keep its output refuses before it spends minutes of sandbox time.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.errors import InputError
from assay.tasks import Task, load_task, save_task


@dataclass(frozen=True)
class SavedTasks:
    """What :func:`save_new_tasks` did."""

    written: int
    """Task directories written."""
    unchanged: int
    """Task directories that were already there, identical, and were left alone."""


def require_writable_file(path: Path) -> None:
    """Raise unless :func:`write_atomically` can write ``path`` (probed with a file beside it)."""
    if path.is_dir():
        raise InputError("is a directory", path=path, fix="name a file to write")
    if not path.parent.is_dir():
        raise InputError(
            f"cannot write here: no directory {path.parent}",
            path=path,
            fix="create the directory first, or write somewhere else",
        )
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}."):
            pass
    except OSError as exc:
        raise InputError(
            f"cannot write here: {exc.strerror or exc}",
            path=path,
            fix="choose a writable location",
        ) from None


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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


def save_new_tasks(tasks: Sequence[Task], parent: Path) -> SavedTasks:
    """Save each task as ``parent/<id>/`` without replacing a directory that holds anything else.

    A directory already holding the very same task is left as it is. If any holds something
    else (another task, an edited copy, unrelated files), nothing is written and
    :class:`InputError` names it.
    """
    clashes = [task for task in tasks if not _free_or_same(parent / task.id, task)]
    if clashes:
        more = f" (and {len(clashes) - 1} more of the generated ids)" if len(clashes) > 1 else ""
        raise InputError(
            f"already exists and does not hold the generated task{more}; nothing was written",
            path=parent / clashes[0].id,
            fix="write into an empty directory with --out, or move these directories away",
        )
    written = 0
    for task in tasks:
        if not (parent / task.id).exists():
            save_task(task, parent)
            written += 1
    return SavedTasks(written=written, unchanged=len(tasks) - written)


def _free_or_same(directory: Path, task: Task) -> bool:
    if not directory.exists() and not directory.is_symlink():
        return True
    try:
        return load_task(directory) == task
    except (InputError, OSError):
        return False


__all__ = [
    "SavedTasks",
    "require_directory",
    "require_writable_file",
    "save_new_tasks",
    "write_atomically",
]
