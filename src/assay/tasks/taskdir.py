"""Reading and writing task directories (see DESIGN.md, "Task on disk")."""

from __future__ import annotations

import shutil
import tempfile
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import ValidationError

from assay.errors import InputError, TaskFormatError
from assay.tasks.model import SOLUTION_LABEL, Files, Task
from assay.tasks.spec import TaskSpec

TASK_TOML = "task.toml"
PROMPT_MD = "prompt.md"


def load_task(directory: Path) -> Task:
    """Load one task directory; raise :class:`TaskFormatError` naming the file and field (also
    when a file cannot be read at all)."""
    directory = Path(directory)
    try:
        return _load_task(directory)
    except OSError as exc:
        raise TaskFormatError(
            f"cannot be read: {exc.strerror or exc}",
            path=exc.filename or directory,
            fix="check the file and its permissions",
        ) from None


def _load_task(directory: Path) -> Task:
    if not directory.is_dir():
        raise TaskFormatError(
            "no such task directory", path=directory, fix="pass a directory holding task.toml"
        )
    spec = _read_spec(directory / TASK_TOML)
    prompt_path = directory / PROMPT_MD
    _not_a_link(prompt_path)
    if not prompt_path.is_file():
        raise TaskFormatError(
            "file is missing", path=prompt_path, fix="write what the agent should see in prompt.md"
        )
    prompt = _read_text(prompt_path)
    if not prompt.strip():
        raise TaskFormatError("prompt is empty", path=prompt_path, fix="describe the task")
    return Task(
        spec=spec,
        prompt=prompt,
        workspace=read_files(directory / "workspace"),
        hidden=read_files(directory / "hidden"),
        solutions=_read_solutions(directory / "solutions"),
    )


@dataclass(frozen=True)
class SavedTasks:
    """What :func:`save_tasks` did."""

    written: int
    """Task directories written."""
    unchanged: int
    """Task directories that were already there, holding the same task, and were left alone."""


def save_task(task: Task, parent: Path, *, replace: bool = False) -> Path:
    """Write ``task`` as ``parent/<task id>/``, atomically, never deleting what assay did not write.

    A directory already there that holds this very task is left as it is. Any other directory
    there is replaced only when ``replace`` is true and it holds a task and nothing else (what
    this function writes); otherwise :class:`InputError` names it and nothing is written.
    """
    parent = Path(parent)
    target = parent / task.id
    if target.exists() or target.is_symlink():
        if _holds(target, task):
            return target
        if not replace:
            raise InputError(
                "already exists and does not hold this task; nothing was written",
                path=target,
                fix="save into another directory, or move it away",
            )
        if not _only_a_task(target):
            raise InputError(
                "holds files that are not part of a task, so it is not replaced",
                path=target,
                fix="move them away, or save into another directory",
            )
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{task.id}.", dir=parent))
    try:
        write_files(staging, task_files(task))
        parts = ["workspace", "hidden", *(f"solutions/{name}" for name in task.solutions)]
        for part in parts:  # there even when empty: an empty solution is still a solution
            (staging / part).mkdir(parents=True, exist_ok=True)
        if target.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{task.id}.old.", dir=parent))
            target.rename(retired / "task")
            staging.rename(target)
            shutil.rmtree(retired)
        else:
            staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def save_tasks(tasks: Sequence[Task], parent: Path) -> SavedTasks:
    """Save each task as ``parent/<id>/`` (see :func:`save_task`), all or none.

    If any directory there holds something other than its task (another task, an edited copy,
    unrelated files), nothing is written and :class:`InputError` names it.
    """
    parent = Path(parent)
    clashes = [
        task
        for task in tasks
        if ((parent / task.id).exists() or (parent / task.id).is_symlink())
        and not _holds(parent / task.id, task)
    ]
    if clashes:
        more = f" (and {len(clashes) - 1} more of the ids)" if len(clashes) > 1 else ""
        raise InputError(
            f"already exists and does not hold the task to be saved{more}; nothing was written",
            path=parent / clashes[0].id,
            fix="write into an empty directory, or move these directories away",
        )
    unchanged = sum((parent / task.id).exists() for task in tasks)
    for task in tasks:
        save_task(task, parent)
    return SavedTasks(written=len(tasks) - unchanged, unchanged=unchanged)


def task_files(task: Task) -> Files:
    """Every file of ``task``'s directory, by relative POSIX path: what :func:`save_task` writes."""
    files: Files = {
        TASK_TOML: spec_to_toml(task.spec).encode(),
        PROMPT_MD: task.prompt.encode(),
    }
    files |= {f"workspace/{path}": data for path, data in task.workspace.items()}
    files |= {f"hidden/{path}": data for path, data in task.hidden.items()}
    for name, solution in task.solutions.items():
        files |= {f"solutions/{name}/{path}": data for path, data in solution.items()}
    return files


def _holds(directory: Path, task: Task) -> bool:
    """Whether ``directory`` (not a link) loads as ``task``."""
    if directory.is_symlink():
        return False
    try:
        return load_task(directory) == task
    except (InputError, OSError):
        return False


def _only_a_task(directory: Path) -> bool:
    """Whether ``directory`` holds a task and no file that is not part of it."""
    if directory.is_symlink() or not directory.is_dir():
        return False
    try:
        ours = set(task_files(load_task(directory)))
    except (InputError, OSError):
        return False
    for path in directory.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            continue
        if path.relative_to(directory).as_posix() not in ours:
            return False
    return True


MAX_FILE_BYTES = 256 * 2**20
"""The largest file a task may hold."""


def read_files(root: Path) -> Files:
    """Every regular file below ``root`` by relative POSIX path; symlinks and files larger than
    :data:`MAX_FILE_BYTES` are refused."""
    if not root.exists():
        return {}
    if root.is_symlink() or not root.is_dir():
        raise TaskFormatError("must be a directory", path=root, fix="replace it with a directory")
    files: Files = {}
    for path in sorted(root.rglob("*")):
        _not_a_link(path)
        if path.is_file():
            if path.stat().st_size > MAX_FILE_BYTES:
                raise TaskFormatError(
                    f"is larger than {MAX_FILE_BYTES // 2**20} MiB: task files are read whole "
                    "into memory",
                    path=path,
                    fix="keep large data out of the task, or fetch it in the container's build",
                )
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def write_files(root: Path, files: Files) -> None:
    """Write ``files`` below ``root``, refusing paths that would escape it."""
    root.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        target = (root / relative).resolve()
        if not target.is_relative_to(root.resolve()):
            raise TaskFormatError(
                "file path escapes its directory", path=relative, fix="use a relative path"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


def spec_to_toml(spec: TaskSpec) -> str:
    """The ``task.toml`` text for a spec, the family's settings in a table named after it."""
    data: dict[str, Any] = spec.model_dump(mode="json", exclude={"config"}, exclude_none=True)
    if spec.config:
        data[spec.family] = spec.config
    return tomli_w.dumps(data)


def _not_a_link(path: Path) -> None:
    if path.is_symlink():
        raise TaskFormatError(
            "symbolic links are not allowed in tasks (they could point outside the task)",
            path=path,
            fix="replace the link with a copy of the file",
        )


def _read_spec(path: Path) -> TaskSpec:
    _not_a_link(path)
    if not path.is_file():
        raise TaskFormatError(
            "file is missing", path=path, fix="every task directory needs a task.toml"
        )
    try:
        data = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"not valid TOML: {exc}", path=path, fix="fix the syntax") from None
    family = data.get("family")
    if isinstance(family, str) and isinstance(data.get(family), dict):
        data["config"] = data.pop(family)
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        raise _spec_error(path, exc) from None


def _spec_error(path: Path, exc: ValidationError) -> TaskFormatError:
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        return TaskFormatError(
            "unknown field",
            path=path,
            field=field,
            fix="remove it, or put family settings in a table named after the family",
        )
    if first["type"] == "missing":
        return TaskFormatError("required field is missing", path=path, field=field, fix="add it")
    return TaskFormatError(first["msg"], path=path, field=field, fix="correct the value")


def _read_solutions(root: Path) -> dict[str, Files]:
    if not root.exists():
        return {}
    solutions: dict[str, Files] = {}
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.is_symlink() or not SOLUTION_LABEL.match(child.name):
            raise TaskFormatError(
                "not a solution directory",
                path=child,
                fix="name solution directories reference, reference-<label> or bad-<label>",
            )
        solutions[child.name] = read_files(child)
    return solutions


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TaskFormatError("not UTF-8 text", path=path, fix="save it as UTF-8") from None
