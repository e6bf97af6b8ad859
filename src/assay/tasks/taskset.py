"""A set of tasks read from one directory, with the directories that failed to load."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import InputError, TaskFormatError
from assay.tasks.model import Task
from assay.tasks.taskdir import PROMPT_MD, TASK_TOML, load_task, unreadable

_TASK_PARTS = ("hidden", "solutions", "workspace")
"""Subdirectories of a task directory."""


@dataclass(frozen=True)
class LoadFailure:
    """A task directory that could not be loaded, and why."""

    path: Path
    error: InputError


@dataclass(frozen=True)
class TaskSet:
    """Tasks loaded from ``root``; broken task directories are kept in ``failures``."""

    root: Path
    tasks: tuple[Task, ...]
    failures: tuple[LoadFailure, ...] = field(default=())
    paths: dict[str, Path] = field(default_factory=dict)
    """Task id to the directory it was loaded from."""

    @classmethod
    def load(cls, root: Path) -> TaskSet:
        """Load ``root`` as one task or as a directory of task directories.

        ``root`` is one task when it holds task.toml, prompt.md, or a hidden/, solutions/ or
        workspace/ directory that is not itself a task (a task without its task.toml is one
        broken task, not a set of three). In a set, a subdirectory that is a symbolic link is
        refused like a link inside a task.

        Raises :class:`TaskFormatError` only when ``root`` itself is not usable; a broken task
        inside a set becomes a :class:`LoadFailure` so that the rest can still be audited.
        """
        root = Path(root)
        try:
            if not root.is_dir():
                raise TaskFormatError(
                    "no such directory",
                    path=root,
                    fix="pass a task directory or a directory of tasks",
                )
            candidates = [root] if _is_one_task(root) else _task_dirs(root)
        except OSError as exc:
            raise unreadable(exc, root) from None
        if not candidates:
            raise TaskFormatError(
                "holds no tasks", path=root, fix="each task is a subdirectory with a task.toml"
            )
        tasks: list[Task] = []
        failures: list[LoadFailure] = []
        paths: dict[str, Path] = {}
        for directory in candidates:
            try:
                if directory != root and directory.is_symlink():  # root is the user's choice
                    raise _linked(directory)
                task = load_task(directory)
            except InputError as exc:
                failures.append(LoadFailure(directory, exc))
                continue
            if task.id in paths:
                duplicate = TaskFormatError(
                    f"another task in the set has this id, {task.id!r}: {paths[task.id]}",
                    path=directory / TASK_TOML,
                    field="id",
                    fix="give every task a unique id",
                )
                failures.append(LoadFailure(directory, duplicate))
                continue
            tasks.append(task)
            paths[task.id] = directory
        return cls(root=root, tasks=tuple(tasks), failures=tuple(failures), paths=paths)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)


def _is_one_task(root: Path) -> bool:
    """Whether ``root`` is a task directory, whole or broken, rather than a set of them."""
    if os.path.lexists(root / TASK_TOML) or os.path.lexists(root / PROMPT_MD):
        return True
    return any(
        (root / part).is_dir() and not os.path.lexists(root / part / TASK_TOML)
        for part in _TASK_PARTS
    )


def _task_dirs(root: Path) -> list[Path]:
    """The task directories of a set: every subdirectory but hidden ones (``.git``), links to
    directories included (to be refused by name), and so are links that lead nowhere (dangling,
    or a loop): what was a task must not drop out of the set unsaid."""
    return [
        child
        for child in sorted(root.iterdir())
        if (child.is_dir() or (child.is_symlink() and not child.exists()))
        and not child.name.startswith(".")
    ]


def _linked(directory: Path) -> TaskFormatError:
    return TaskFormatError(
        "is a symbolic link; a task set holds its task directories (a link could point outside it)",
        path=directory,
        fix="copy the task directory into the set",
    )
