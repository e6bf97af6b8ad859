"""Reading and writing task directories (see DESIGN.md, "Task on disk")."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.errors import InputError, SolutionFormatError, TaskFormatError
from assay.tasks._spec_toml import parse_spec, spec_to_toml
from assay.tasks.model import SOLUTION_LABEL, Files, Task

TASK_TOML = "task.toml"
PROMPT_MD = "prompt.md"


def load_task(directory: Path) -> Task:
    """Load one task directory; raise :class:`TaskFormatError` naming the file and field (also
    when a file or directory cannot be read at all)."""
    directory = Path(directory)
    try:
        return _load_task(directory)
    except OSError as exc:
        raise unreadable(exc, directory) from None


def unreadable(exc: OSError, path: Path) -> TaskFormatError:
    """The error for a file or directory that the operating system would not let us read
    (``exc``), naming the path it failed on (``path`` when it names none)."""
    return TaskFormatError(
        f"cannot be read: {exc.strerror or exc}",
        path=exc.filename or path,
        fix="check the file and its permissions",
    )


def _load_task(directory: Path) -> Task:
    if not directory.is_dir():
        problem = "no such task directory"
        if directory.is_symlink():
            problem = "is a symbolic link that leads to no directory (dangling, or a loop)"
        raise TaskFormatError(problem, path=directory, fix="pass a directory holding task.toml")
    spec_path = directory / TASK_TOML
    if not os.path.lexists(spec_path):
        _not_a_set(directory)
    spec = parse_spec(
        _read_text(
            spec_path,
            MAX_SPEC_BYTES,
            missing="every task directory needs a task.toml",
            too_big="keep settings there, and data in hidden/",
        ),
        spec_path,
    )
    prompt_path = directory / PROMPT_MD
    prompt = _read_text(
        prompt_path,
        MAX_PROMPT_BYTES,
        missing="write what the agent should see in prompt.md",
        too_big="shorten the prompt; give data in workspace/ for the agent to read",
    )
    if not prompt.strip():
        raise TaskFormatError("prompt is empty", path=prompt_path, fix="describe the task")
    budget = TreeBudget(directory)
    return Task(
        spec=spec,
        prompt=prompt,
        workspace=read_files(directory / "workspace", budget),
        hidden=read_files(directory / "hidden", budget),
        solutions=_read_solutions(directory / "solutions", budget),
    )


def _not_a_set(directory: Path) -> None:
    """Raise when ``directory``, which has no task.toml, holds task directories: a set of tasks
    was given where one task is asked for."""
    for child in sorted(directory.iterdir()):
        if not child.name.startswith(".") and (child / TASK_TOML).is_file():
            raise TaskFormatError(
                "is a directory of tasks, not one task",
                path=directory,
                fix=f"pass one task directory, such as {child}",
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
    _refuse_what_does_not_load_back(task, target)
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
            _swap(staging, target, Path(tempfile.mkdtemp(prefix=f".{task.id}.old.", dir=parent)))
        else:
            staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _swap(staging: Path, target: Path, retired: Path) -> None:
    """Put ``staging`` in place of ``target``, which is moved into the empty directory
    ``retired`` first and removed with it once the new one is in place; when that fails, the
    old one is put back, never left hidden in ``retired``."""
    try:
        target.rename(retired / "task")
    except BaseException:
        retired.rmdir()
        raise
    try:
        staging.rename(target)
    except BaseException:
        (retired / "task").rename(target)
        retired.rmdir()
        raise
    shutil.rmtree(retired)


def save_tasks(tasks: Sequence[Task], parent: Path) -> SavedTasks:
    """Save each task as ``parent/<id>/`` (see :func:`save_task`), all or none.

    If any directory there holds something other than its task (another task, an edited copy,
    unrelated files), nothing is written and :class:`InputError` names it. A write that fails
    part way (a full disk) removes what this call wrote, and is an :class:`InputError` too.
    """
    parent = Path(parent)
    tasks = _one_of_each(tasks, parent)
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
    fresh = [task for task in tasks if not (parent / task.id).exists()]
    written: list[Path] = []
    try:
        for task in fresh:
            written.append(save_task(task, parent))
    except BaseException as exc:  # all or none: what this call wrote goes, whatever stopped it
        for directory in written:
            shutil.rmtree(directory, ignore_errors=True)
        if isinstance(exc, OSError):
            raise InputError(
                f"cannot write the tasks: {exc.strerror or exc}; none of them was kept",
                path=parent,
                fix="free some space or choose another directory",
            ) from None
        raise
    return SavedTasks(written=len(fresh), unchanged=len(tasks) - len(fresh))


def _refuse_what_does_not_load_back(task: Task, target: Path) -> None:
    """Raise :class:`TaskFormatError` for a task that, written to ``target``, would load as
    another task or not at all: a file path that is not plain (empty, ``.`` or ``..`` parts,
    a NUL, text that is not UTF-8), a path that is both a file and a directory, or a solution
    not named as solutions are."""
    for name in task.solutions:
        if not SOLUTION_LABEL.match(name):
            raise TaskFormatError(
                f"has a solution named {json.dumps(name)}, which a task directory cannot hold",
                path=target / "solutions",
                fix="name solutions reference, reference-<label> or bad-<label>",
            )
    paths = task_files(task)
    directories: set[str] = set()
    for relative in paths:
        parts = relative.split("/")
        if any(part in ("", ".", "..") for part in parts) or not _plain_text(relative):
            raise TaskFormatError(
                f"has a file path {json.dumps(relative)} that would not load back as it is",
                path=target,
                fix="name each file by a relative path of plain parts, such as data/cases.json",
            )
        directories.update("/".join(parts[:end]) for end in range(1, len(parts)))
    for relative in sorted(directories & paths.keys()):
        raise TaskFormatError(
            f"has {json.dumps(relative)} both as a file and as a directory",
            path=target,
            fix="rename one of them",
        )


def _plain_text(text: str) -> bool:
    """Whether ``text`` can name a file: UTF-8, no NUL."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return "\0" not in text


def _one_of_each(tasks: Sequence[Task], parent: Path) -> list[Task]:
    """``tasks`` with each task once; two different tasks of one id (an importer that named
    two problems alike) are :class:`InputError`, before anything is written."""
    by_id: dict[str, Task] = {}
    for task in tasks:
        earlier = by_id.setdefault(task.id, task)
        if earlier != task:
            raise InputError(
                f"two different tasks to be saved have the id {task.id!r}; nothing was written",
                path=parent / task.id,
                field="id",
                fix="give every task a unique id",
            )
    return list(by_id.values())


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
MAX_PROMPT_BYTES = 2**20
"""The largest ``prompt.md``: a prompt is read whole and sent to the model, 1 MiB is some 250,000
tokens, more than any model's context."""
MAX_SPEC_BYTES = 2**20
"""The largest ``task.toml``: settings, not data (data belongs in ``hidden/``)."""


MAX_TASK_BYTES = 2 * MAX_FILE_BYTES
"""The most a task's files (workspace, hidden files and solutions together) may add up to."""
MAX_TASK_FILES = 100_000
"""The most files a task may hold: each is a file written into every sandbox job's tree."""


class TreeBudget:
    """What is left of :data:`MAX_TASK_BYTES` and :data:`MAX_TASK_FILES` for the trees read into
    one task (``where``, named in the error), counted before each file is read."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.bytes_left, self.files_left = MAX_TASK_BYTES, MAX_TASK_FILES

    def spend(self, size: int, files: int = 1) -> None:
        self.bytes_left -= size
        self.files_left -= files
        if self.files_left < 0:
            raise TaskFormatError(
                f"holds more than {MAX_TASK_FILES:,} files: each is written into every job's tree",
                path=self.where,
                fix="pack many small files into one archive the task unpacks, or fewer files",
            )
        if self.bytes_left < 0:
            raise TaskFormatError(
                f"holds files adding up to more than {_size(MAX_TASK_BYTES)}: task files are "
                "read whole into memory",
                path=self.where,
                fix=_TOO_BIG,
            )


def read_files(root: Path, budget: TreeBudget | None = None) -> Files:
    """Every regular file below ``root`` by relative POSIX path, or nothing if there is no
    ``root``; ``budget`` is what the files may add up to (by default, one task's worth).

    Raises :class:`TaskFormatError` naming the path for a symbolic link, a special file (a FIFO,
    a socket, a device), a file larger than :data:`MAX_FILE_BYTES`, files together beyond the
    budget, and a file or directory that cannot be read: an unreadable directory is never taken
    for an empty one.
    """
    try:
        return _read_tree(root, budget or TreeBudget(root))
    except OSError as exc:
        raise unreadable(exc, root) from None


def _read_tree(root: Path, budget: TreeBudget) -> Files:
    if not _is_directory(root):
        return {}
    files: Files = {}
    pending = [(root, "")]  # a list, not recursion: directories may nest deeper than the stack
    while pending:
        directory, prefix = pending.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                path = directory / entry.name
                _utf8_name(directory, entry.name)
                if entry.is_symlink():
                    _not_a_link(path)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append((path, f"{prefix}{entry.name}/"))
                else:
                    status = entry.stat(follow_symlinks=False)
                    budget.spend(status.st_size)
                    data = _read_capped(path, MAX_FILE_BYTES, _TOO_BIG, status)
                    budget.spend(max(0, len(data) - status.st_size), files=0)  # grown since
                    files[f"{prefix}{entry.name}"] = data
    return dict(sorted(files.items()))


def _bytes_shown(text: str) -> str:
    """``text`` with each byte that is not UTF-8 written as an escape (``\\xff``)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


_TOO_BIG = "keep large data out of the task, or fetch it in the container's build"


def _utf8_name(directory: Path, name: str) -> None:
    """Refuse a file name that is not UTF-8 (Python holds its bytes as lone surrogates): a task's
    files are named by text, in its content version, its exports and the sandbox's jobs."""
    try:
        name.encode()
    except UnicodeEncodeError:
        raise TaskFormatError(
            f"holds a file named '{_bytes_shown(name)}', which is not UTF-8",
            path=Path(_bytes_shown(str(directory))),
            fix="rename it in UTF-8",
        ) from None


def _read_capped(path: Path, limit: int, fix: str, status: os.stat_result | None = None) -> bytes:
    """The bytes of ``path``, a regular file (not a link) of at most ``limit`` bytes, checked
    before it is read; ``status`` is its ``lstat`` where the caller has it."""
    if status is None:
        status = path.lstat()
    if stat.S_ISLNK(status.st_mode):
        _not_a_link(path)
    if not stat.S_ISREG(status.st_mode):
        kind = "a directory" if stat.S_ISDIR(status.st_mode) else "a FIFO, socket or device"
        raise TaskFormatError(
            f"is {kind}, not a regular file",
            path=path,
            fix="remove it, or replace it with a regular file",
        )
    if status.st_size > limit:
        raise _too_big(path, limit, fix)
    # Opened without following a link and without waiting on a FIFO, checked again once open,
    # and read to one byte past the limit: a file swapped or grown since the check above is
    # refused as it is now, never read whole.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as opened:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TaskFormatError(
                "changed into something other than a regular file while it was read",
                path=path,
                fix="leave the task alone while it is loaded",
            )
        data = opened.read(limit + 1)
    if len(data) > limit:
        raise _too_big(path, limit, fix)
    return data


def _too_big(path: Path, limit: int, fix: str) -> TaskFormatError:
    return TaskFormatError(
        f"is larger than {_size(limit)}: task files are read whole into memory", path=path, fix=fix
    )


def _size(limit: int) -> str:
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if limit >= size and limit % size == 0:
            return f"{limit // size} {unit}"
    return f"{limit:,} bytes"


def read_solution_file(path: Path, *, missing: str) -> bytes:
    """The bytes of a solution submitted as one file, read as a task's files are: a regular file
    of at most :data:`MAX_FILE_BYTES`, never waited on. A link to one is followed (the path is
    the submitter's own). Anything else raises :class:`SolutionFormatError` naming ``path``;
    ``missing`` says what to pass when there is nothing there."""
    path = Path(path)
    real = Path(os.path.realpath(path))
    if real.is_symlink():
        raise SolutionFormatError(
            "is a symbolic link that leads back to itself", path=path, fix="pass the file itself"
        )
    try:
        return _read_capped(real, MAX_FILE_BYTES, "submit a smaller file")
    except FileNotFoundError:
        raise SolutionFormatError("no such file or directory", path=path, fix=missing) from None
    except TaskFormatError as exc:
        raise SolutionFormatError(exc.problem, path=path, fix=exc.fix) from None
    except OSError as exc:
        raise SolutionFormatError(
            f"cannot be read: {exc.strerror or exc}",
            path=path,
            fix="check the file and its permissions",
        ) from None


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


def _not_a_link(path: Path) -> None:
    if path.is_symlink():
        raise TaskFormatError(
            "symbolic links are not allowed (a link could point outside its directory)",
            path=path,
            fix="replace the link with a copy of the file",
        )


def _is_directory(path: Path) -> bool:
    """Whether ``path`` is a directory (``False`` if there is nothing there); anything else, a
    link to a directory included, is refused naming ``path``."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        _not_a_link(path)
    if not stat.S_ISDIR(mode):
        raise TaskFormatError("must be a directory", path=path, fix="replace it with a directory")
    return True


def _read_solutions(root: Path, budget: TreeBudget) -> dict[str, Files]:
    if not _is_directory(root):
        return {}
    solutions: dict[str, Files] = {}
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.is_symlink() or not SOLUTION_LABEL.match(child.name):
            raise TaskFormatError(
                "not a solution directory",
                path=child,
                fix="name solution directories reference, reference-<label> or bad-<label>",
            )
        solutions[child.name] = read_files(child, budget)
    return solutions


def _read_text(path: Path, limit: int, *, missing: str, too_big: str) -> str:
    """The UTF-8 text of ``path``, a regular file (not a link) of at most ``limit`` bytes;
    ``missing`` and ``too_big`` say how to fix those two errors."""
    try:
        data = _read_capped(path, limit, too_big)
    except FileNotFoundError:
        raise TaskFormatError("file is missing", path=path, fix=missing) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise TaskFormatError("not UTF-8 text", path=path, fix="save it as UTF-8") from None
