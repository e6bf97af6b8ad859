"""``assay import terminal-bench``: Terminal-Bench and Harbor task directories as terminal tasks.

A Terminal-Bench task directory holds ``task.yaml`` (``instruction``; ``author_name``,
``author_email``, ``difficulty``, ``category``, ``tags``, ``parser_name``,
``max_agent_timeout_sec``, ``max_test_timeout_sec``), a ``Dockerfile`` or
``docker-compose.yaml``, ``run-tests.sh``, ``tests/`` and ``solution.sh``. A Harbor task
directory (Terminal-Bench 2) holds ``task.toml`` (``[metadata]`` with ``difficulty``,
``category``, ``tags``, authors; ``[agent]`` and ``[verifier]`` with ``timeout_sec``;
``[environment]`` with ``docker_image``, ``cpus``, ``memory_mb``...), ``instruction.md``,
``environment/`` (the Dockerfile and its build context), ``tests/test.sh`` and
``solution/solve.sh``.

Each becomes a ``terminal`` task: the instruction as the prompt, the container's files as the
workspace, the test script and tests as hidden files, the solution script as the reference (a
Terminal-Bench ``solution.yaml``, a list of commands, is kept hidden so that lint can tell
where it is copied in), and the metadata in task.toml. The directories are input: one that is
neither format, a task.yaml without an instruction or a malformed file is one error naming the
file, the field and the fix, and nothing is written.
"""

from __future__ import annotations

import math
import re
import reprlib
import tomllib
from pathlib import Path
from typing import Any

import yaml

from assay import _toml
from assay._text import BIDI
from assay.errors import InputError
from assay.families.terminal.family import SOLUTION, TerminalConfig
from assay.tasks.model import Files, Task
from assay.tasks.spec import Split, TaskSpec
from assay.tasks.taskdir import read_files, unreadable

MAX_METADATA_BYTES = 1_000_000
_SLUG = re.compile(r"[^a-z0-9._-]+")
_TB_OWN = {"task.yaml", "run-tests.sh", "solution.sh", "solution.yaml"}
_CONTROL = re.compile(rf"[\x00-\x1f\x7f-\x9f{BIDI}]")
"""Control characters (tab and line feed too: a label is one line) and bidirectional ones."""
_SHOWN = reprlib.Repr()
"""How a value that is not what a field takes is shown: a few items of a few levels."""
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict = 2, 4, 4
_SHOWN.maxstring = _SHOWN.maxlong = _SHOWN.maxother = 40
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Halves of a UTF-16 pair: YAML's ``"\\ud83d\\ude00"`` is read as two of them, not as the one
character they stand for, and no UTF-8 file can hold either."""


def import_task_dirs(directory: Path) -> list[Task]:
    """The tasks of ``directory``: itself if it is a task directory, else each task directory in
    it. Raises :class:`InputError` naming the file and field when one is malformed or cannot be
    read."""
    directory = Path(directory)
    try:
        return _import(directory)
    except OSError as exc:
        raise unreadable(exc, directory) from None


def _import(directory: Path) -> list[Task]:
    if not directory.is_dir():
        raise InputError("no such directory", path=directory, fix="pass a task directory")
    if _is_task(directory):
        return [_read(directory)]
    found = sorted(child for child in directory.iterdir() if child.is_dir() and _is_task(child))
    for child in found:
        if child.is_symlink():
            raise InputError(
                "is a symbolic link (it could point outside the directory)",
                path=child,
                fix="copy the task directory itself into the directory",
            )
    if not found:
        raise InputError(
            "holds no Terminal-Bench or Harbor task",
            path=directory,
            fix="pass a directory with task.yaml or task.toml and instruction.md, or their parent",
        )
    tasks = [_read(child) for child in found]
    ids = [task.id for task in tasks]
    for task_id in ids:
        if ids.count(task_id) > 1:
            raise InputError(
                f"two task directories give the id {task_id!r}",
                path=directory,
                fix="rename one of them",
            )
    return tasks


def _is_task(directory: Path) -> bool:
    return (directory / "task.yaml").is_file() or (directory / "task.toml").is_file()


def _read(directory: Path) -> Task:
    if (directory / "task.yaml").is_file():
        return _terminal_bench(directory)
    return _harbor(directory)


def _terminal_bench(directory: Path) -> Task:
    path = directory / "task.yaml"
    data = _yaml(path)
    if not isinstance(data, dict):
        raise InputError("is not a mapping", path=path, fix="give the task's fields as a mapping")
    instruction = data.get("instruction")
    if instruction is None:
        instruction = _description(data)
    if not isinstance(instruction, str) or not instruction.strip():
        raise InputError(
            "is missing or empty" if instruction is None else "is not text",
            path=path,
            field="instruction",
            fix="give the task's instruction (what the agent is asked to do)",
        )
    all_files = read_files(directory)
    workspace = {
        name: data
        for name, data in all_files.items()
        if name not in _TB_OWN and not name.startswith("tests/")
    }
    hidden = {name: data for name, data in all_files.items() if name.startswith("tests/")}
    for own in ("run-tests.sh", "solution.yaml"):  # the oracle's commands, where no solution.sh
        if own in all_files:
            hidden[own] = all_files[own]
    instruction = _utf8(instruction, path, "instruction")
    labels = _texts(data, path, "", ("category", "difficulty", "author_name", "author_email"))
    config = TerminalConfig(
        source="terminal-bench",
        test_command="run-tests.sh",
        agent_timeout_s=_seconds(data.get("max_agent_timeout_sec"), path, "max_agent_timeout_sec"),
        verifier_timeout_s=_seconds(data.get("max_test_timeout_sec"), path, "max_test_timeout_sec"),
        category=labels["category"],
        difficulty=labels["difficulty"],
        author=labels["author_name"] or labels["author_email"],
        parser_name=_texts(data, path, "", ("parser_name",))["parser_name"],
    )
    solution = {SOLUTION: all_files["solution.sh"]} if "solution.sh" in all_files else None
    tags = _tags(data.get("tags"), path)
    return _task(directory, config, instruction, tags, files=(workspace, hidden, solution))


def _yaml(path: Path) -> object:
    """The YAML document in ``path``; whatever the parser raises is one error naming the file,
    and so is a mapping that gives a key twice (PyYAML keeps the last silently, where a reader
    of the file sees the first: two ``instruction`` fields, one reviewed and one imported)."""
    text = _text(path)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"is not YAML{where}", path=path, fix="repair the YAML") from None
    except RecursionError:
        raise InputError("nests too deeply to be read", path=path, fix="flatten the YAML") from None
    except Exception as exc:  # noqa: BLE001 - PyYAML's constructors raise ValueError, TypeError...
        raise InputError(
            f"holds a value that cannot be read: {type(exc).__name__}: {exc}",
            path=path,
            fix="correct the value (a date, number or tagged value)",
        ) from None
    repeated = _repeated_key(root)
    if repeated is not None:
        key, line = repeated
        raise InputError(
            f"gives the key {_shown(key)} twice (again at line {line})",
            path=path,
            field=ascii(key[:100])[1:-1],
            fix="keep one of them",
        )
    return data


def _repeated_key(root: yaml.Node | None) -> tuple[str, int] | None:
    """The first key a mapping of ``root`` gives twice, and the line it is given again at; keys
    merged in with ``<<`` may be given again, as YAML lets them. Each node is walked once, so
    aliases cost nothing however often they are used."""
    seen: set[int] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if (key.tag, key.value) in keys:
                        return key.value, key.start_mark.line + 1
                    keys.add((key.tag, key.value))
                pending += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            pending += node.value
    return None


def _description(data: dict[str, Any]) -> object:
    """Older task.yaml files give ``descriptions: [{key: base, description: ...}]``."""
    descriptions = data.get("descriptions")
    if isinstance(descriptions, list):
        for item in descriptions:
            if isinstance(item, dict) and item.get("key") in ("base", None):
                return item.get("description")
    return None


def _harbor(directory: Path) -> Task:
    path = directory / "task.toml"
    text = _text(path)
    try:
        data = _toml.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"is not TOML: {exc}", path=path, fix="repair the TOML") from None
    except RecursionError:
        raise InputError("nests too deeply to be read", path=path, fix="flatten the TOML") from None
    except ValueError as exc:  # a value TOML allows and Python refuses (a 5,000-digit integer)
        raise InputError(
            f"holds a value that cannot be read: {exc}", path=path, fix="correct the value"
        ) from None
    if "family" in data and "id" in data:
        raise InputError(
            "is already an assay task",
            path=path,
            fix="use it as it is: there is nothing to import",
        )
    instruction_path = directory / "instruction.md"
    if not instruction_path.is_file():
        raise InputError(
            "is missing", path=instruction_path, fix="a Harbor task gives its instruction there"
        )
    instruction = _text(instruction_path)
    if not instruction.strip():
        raise InputError("is empty", path=instruction_path, fix="write the task's instruction")
    metadata = _table(data, "metadata", path)
    environment = _table(data, "environment", path)
    labels = _texts(
        metadata, path, "metadata.", ("category", "difficulty", "author_name", "author_email")
    )
    for key, value in environment.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(
                f"is {value}, not a number",
                path=path,
                field=f"environment.{key}",
                fix="give a finite number",
            )
    config = TerminalConfig(
        source="harbor",
        test_command="tests/test.sh",
        agent_timeout_s=_seconds(
            _table(data, "agent", path).get("timeout_sec"), path, "agent.timeout_sec"
        ),
        verifier_timeout_s=_seconds(
            _table(data, "verifier", path).get("timeout_sec"), path, "verifier.timeout_sec"
        ),
        category=labels["category"],
        difficulty=labels["difficulty"],
        author=labels["author_name"] or labels["author_email"],
        image=_texts(environment, path, "environment.", ("docker_image",))["docker_image"],
        environment={
            key: value
            for key, value in environment.items()
            if key != "docker_image" and isinstance(value, str | int | float | bool)
        },
    )
    hidden = {f"tests/{name}": data for name, data in read_files(directory / "tests").items()}
    solution = read_files(directory / "solution") or None
    workspace = read_files(directory / "environment")
    tags = _tags(metadata.get("tags"), path, "metadata.tags")
    return _task(directory, config, instruction, tags, files=(workspace, hidden, solution))


def _task(
    directory: Path,
    config: TerminalConfig,
    instruction: str,
    tags: tuple[str, ...],
    *,
    files: tuple[Files, Files, Files | None],
) -> Task:
    workspace, hidden, solution = files
    _plain_labels(directory, config, tags)
    slug = _SLUG.sub("-", directory.name.lower()).strip("-._")[:120] or "task"
    difficulty = config.difficulty if config.difficulty in ("easy", "medium", "hard") else None
    labels = [config.source, *([config.category] if config.category else []), *tags]
    return Task(
        spec=TaskSpec(
            id=slug,
            family="terminal",
            split=Split.TEST,
            tags=tuple(dict.fromkeys(labels)),
            difficulty=difficulty,
            config=config.model_dump(exclude_defaults=True),
        ),
        prompt=instruction.strip() + "\n",
        workspace=workspace,
        hidden=hidden,
        solutions={"reference": solution} if solution else {},
    )


def _plain_labels(directory: Path, config: TerminalConfig, tags: tuple[str, ...]) -> None:
    """Refuse a label that holds a control character: labels are printed as they are (the
    import lists each task's tags), and an escape sequence in one would drive the terminal of
    whoever imports the tasks."""
    harbor = config.source == "harbor"
    path = directory / ("task.toml" if harbor else "task.yaml")
    meta = "metadata." if harbor else ""
    labels = {
        f"{meta}category": config.category,
        f"{meta}difficulty": config.difficulty,
        f"{meta}author_name": config.author,
        "parser_name": config.parser_name,
        "environment.docker_image": config.image,
        **{f"{meta}tags[{index}]": tag for index, tag in enumerate(tags)},
    }
    for field, value in labels.items():
        found = _CONTROL.search(value or "")
        if found:
            raise InputError(
                f"holds the control character {ascii(found.group())[1:-1]}",
                path=path,
                field=field,
                fix="write it as plain text",
            )


def _text(path: Path) -> str:
    if path.is_symlink():
        raise InputError(
            "is a symbolic link (it could point outside the task)",
            path=path,
            fix="copy the file itself into the task directory",
        )
    try:
        if path.stat().st_size > MAX_METADATA_BYTES:
            raise InputError("is larger than 1 MB", path=path, fix="keep metadata files small")
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot be read: {exc}", path=path, fix="pass a readable file") from None
    if len(raw) > MAX_METADATA_BYTES:
        raise InputError("is larger than 1 MB", path=path, fix="keep metadata files small")
    try:
        return raw.decode("utf-8-sig")  # a byte order mark is not part of the text (nor TOML)
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", path=path, fix="save it as UTF-8") from None


def _table(data: dict[str, Any], name: str, path: Path) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise InputError("is not a table", path=path, field=name, fix=f"write it as [{name}]")
    return table


def _seconds(value: object, path: Path, field: str) -> float | None:
    if value is None:
        return None
    seconds = _float(value)
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise InputError(
            f"is {_shown(value)}, not a number of seconds",
            path=path,
            field=field,
            fix="give seconds",
        )
    return seconds


def _shown(value: object) -> str:
    """``value`` as a short one-line text for a message. Bounded by :data:`_SHOWN`, however
    large the value: YAML's aliases build a list of lists that is small to read and whose full
    ``repr`` would be billions of characters."""
    shown = _SHOWN.repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _float(value: object) -> float | None:
    """``value`` as a float if it is a number (not a bool) a float can hold: YAML and TOML
    read integers of any size, which a float cannot."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _texts(
    data: dict[str, Any], path: Path, prefix: str, names: tuple[str, ...]
) -> dict[str, str | None]:
    """The fields ``names`` of ``data``, stripped, None where absent or blank. A value that is
    not text (``difficulty: 3``, ``docker_image = 5``) is one error naming the field: left out,
    it would be a setting silently lost."""
    found: dict[str, str | None] = {}
    for name in names:
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise InputError(
                f"is {_shown(value)}, not text",
                path=path,
                field=prefix + name,
                fix="write it as text, in quotes",
            )
        if value is not None:
            value = _utf8(value, path, prefix + name)
        found[name] = value.strip() if value and value.strip() else None
    return found


def _utf8(text: str, path: Path, field: str) -> str:
    """``text`` with each UTF-16 pair (:data:`_SURROGATE`) made the character it stands for;
    half a pair alone is one error naming the field, as no file could hold the task."""
    if not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise InputError(
            "holds half of a UTF-16 pair (an escape such as \\ud83d) without the other half",
            path=path,
            field=field,
            fix="write the character itself, or both halves of its pair",
        ) from None


def _tags(value: object, path: Path, field: str = "tags") -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise InputError("is not a list of text", path=path, field=field, fix="list the tags")
    tags = [_utf8(tag, path, f"{field}[{index}]") for index, tag in enumerate(value)]
    return tuple(tag.strip() for tag in tags if tag.strip())
