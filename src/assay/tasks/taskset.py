"""A set of tasks read from one directory, with the directories that failed to load."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import InputError, TaskFormatError
from assay.tasks.model import Task
from assay.tasks.taskdir import TASK_TOML, load_task


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
        """Load ``root`` as one task (it holds task.toml) or as a directory of task directories.

        Raises :class:`TaskFormatError` only when ``root`` itself is not usable; a broken task
        inside a set becomes a :class:`LoadFailure` so that the rest can still be audited.
        """
        root = Path(root)
        if not root.is_dir():
            raise TaskFormatError(
                "no such directory", path=root, fix="pass a task directory or a directory of tasks"
            )
        candidates = [root] if (root / TASK_TOML).exists() else _task_dirs(root)
        if not candidates:
            raise TaskFormatError(
                "holds no tasks", path=root, fix="each task is a subdirectory with a task.toml"
            )
        tasks: list[Task] = []
        failures: list[LoadFailure] = []
        seen: set[str] = set()
        paths: dict[str, Path] = {}
        for directory in candidates:
            try:
                task = load_task(directory)
            except InputError as exc:
                failures.append(LoadFailure(directory, exc))
                continue
            if task.id in seen:
                duplicate = TaskFormatError(
                    "another task in the set has this id",
                    path=directory / TASK_TOML,
                    field="id",
                    fix="give every task a unique id",
                )
                failures.append(LoadFailure(directory, duplicate))
                continue
            seen.add(task.id)
            tasks.append(task)
            paths[task.id] = directory
        return cls(root=root, tasks=tuple(tasks), failures=tuple(failures), paths=paths)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)


def _task_dirs(root: Path) -> list[Path]:
    return [
        child
        for child in sorted(root.iterdir())
        if child.is_dir() and not child.name.startswith(".")
    ]
