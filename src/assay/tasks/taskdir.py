"""Reading and writing task directories (see DESIGN.md, "Task on disk")."""

from __future__ import annotations

import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import ValidationError

from assay.errors import TaskFormatError
from assay.tasks.model import SOLUTION_LABEL, Files, Task
from assay.tasks.spec import TaskSpec

TASK_TOML = "task.toml"
PROMPT_MD = "prompt.md"


def load_task(directory: Path) -> Task:
    """Load one task directory; raise :class:`TaskFormatError` naming the file and field."""
    directory = Path(directory)
    if not directory.is_dir():
        raise TaskFormatError(
            "no such task directory", path=directory, fix="pass a directory holding task.toml"
        )
    spec = _read_spec(directory / TASK_TOML)
    prompt_path = directory / PROMPT_MD
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


def save_task(task: Task, parent: Path) -> Path:
    """Write ``task`` as ``parent/<task id>/``, replacing any previous copy atomically."""
    parent.mkdir(parents=True, exist_ok=True)
    target = parent / task.id
    staging = Path(tempfile.mkdtemp(prefix=f".{task.id}.", dir=parent))
    try:
        _write_task(task, staging)
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


def read_files(root: Path) -> Files:
    """Every regular file below ``root`` by relative POSIX path; symlinks are refused."""
    if not root.exists():
        return {}
    if root.is_symlink() or not root.is_dir():
        raise TaskFormatError("must be a directory", path=root, fix="replace it with a directory")
    files: Files = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            raise TaskFormatError(
                "symbolic links are not allowed in tasks (they could point outside the task)",
                path=path,
                fix="replace the link with a copy of the file",
            )
        if path.is_file():
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


def _write_task(task: Task, directory: Path) -> None:
    (directory / TASK_TOML).write_text(spec_to_toml(task.spec), encoding="utf-8")
    (directory / PROMPT_MD).write_text(task.prompt, encoding="utf-8")
    write_files(directory / "workspace", task.workspace)
    write_files(directory / "hidden", task.hidden)
    for name, files in task.solutions.items():
        write_files(directory / "solutions" / name, files)


def _read_spec(path: Path) -> TaskSpec:
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
