"""Task directories written to break the reader: each is one line naming the file and the field,
and in a set the one broken task is set apart while the others load."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.errors import InputError, TaskFormatError, UnknownFamilyError
from assay.tasks import TaskSet, load_task, save_task
from assay.tasks.taskdir import MAX_PROMPT_BYTES, MAX_SPEC_BYTES, _read_capped
from tests.conftest import make_median_task


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    return save_task(make_median_task(), tmp_path / "set")


def _spec(task_dir: Path) -> str:
    return (task_dir / "task.toml").read_text()


def _refused(task_dir: Path, pattern: str) -> InputError:
    """The one-line error ``load_task`` gives for ``task_dir``; it must match ``pattern``."""
    with pytest.raises(InputError, match=pattern) as caught:
        load_task(task_dir)
    assert "\n" not in str(caught.value)
    return caught.value


@pytest.mark.parametrize("depth", [450, 5000])
def test_deeply_nested_task_toml_is_refused_by_name(task_dir: Path, depth: int) -> None:
    # 5000 levels overflow the TOML parser's stack; 450 parse, and would overflow what reads
    # the settings next (pydantic, the TOML writer).
    nested = "[" * depth + "]" * depth
    (task_dir / "task.toml").write_text(_spec(task_dir) + f"\n[code2]\nx = {nested}\n")
    _refused(task_dir, r"set/median-1/task\.toml: tables and arrays nest more than 32 levels")


def test_a_deep_task_is_set_apart_and_the_rest_of_the_set_loads(tmp_path: Path) -> None:
    root = tmp_path / "set"
    save_task(make_median_task("fine"), root)
    deep = save_task(make_median_task("deep"), root)
    (deep / "task.toml").write_text(f"x = {'[' * 5000}{']' * 5000}\n" + _spec(deep))
    taskset = TaskSet.load(root)
    assert [task.id for task in taskset] == ["fine"]
    assert [failure.path.name for failure in taskset.failures] == ["deep"]
    assert "deep/task.toml: tables and arrays nest" in str(taskset.failures[0].error)


def test_audit_rejects_the_deep_task_alone(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    root = tmp_path / "set"
    save_task(make_median_task("fine"), root)
    deep = save_task(make_median_task("deep"), root)
    (deep / "task.toml").write_text(f"x = {'[' * 5000}{']' * 5000}\n" + _spec(deep))
    report = tmp_path / "report.json"
    result = run_cli("audit", str(root), "--checks", "lint", "--json", str(report))
    assert result.exit_code == 1, result.output
    decisions = {t["task_id"]: t["decision"] for t in json.loads(report.read_text())["tasks"]}
    assert decisions == {"deep": "rejected", "fine": "accepted"}


def test_an_integer_python_will_not_convert_is_refused_by_name(task_dir: Path) -> None:
    (task_dir / "task.toml").write_text(_spec(task_dir) + "\n[code2]\nx = " + "9" * 5000 + "\n")
    _refused(task_dir, r"task\.toml: holds a value that cannot be read: Exceeds the limit")


def test_a_task_without_task_toml_is_one_broken_task(tmp_path: Path) -> None:
    task_dir = save_task(make_median_task(), tmp_path)
    (task_dir / "task.toml").unlink()
    taskset = TaskSet.load(task_dir)
    assert list(taskset) == []
    assert [failure.path for failure in taskset.failures] == [task_dir]
    assert str(taskset.failures[0].error).startswith(f"{task_dir}/task.toml: file is missing")


def test_a_set_given_where_one_task_is_asked_is_named_as_a_set(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    task_dir = save_task(make_median_task(), tmp_path / "set")
    fix = f"pass one task directory, such as {task_dir}"
    _refused(tmp_path / "set", f"set: is a directory of tasks, not one task \\({fix}\\)")
    result = run_cli("verify", str(tmp_path / "set"), "--solution", str(task_dir / "solutions"))
    assert result.exit_code == 2
    assert fix in result.stderr


@pytest.mark.parametrize("part", ["hidden", "solutions", "workspace"])
def test_a_task_with_only_one_part_left_is_still_one_task(tmp_path: Path, part: str) -> None:
    task_dir = save_task(make_median_task(), tmp_path)
    for name in ("task.toml", "prompt.md"):
        (task_dir / name).unlink()
    for other in {"hidden", "solutions", "workspace"} - {part}:
        shutil.rmtree(task_dir / other)
    taskset = TaskSet.load(task_dir)
    assert [failure.path for failure in taskset.failures] == [task_dir]


def test_a_set_of_tasks_named_like_task_parts_is_still_a_set(tmp_path: Path) -> None:
    for task_id in ("hidden", "solutions", "workspace"):
        save_task(make_median_task(task_id), tmp_path)
    assert sorted(task.id for task in TaskSet.load(tmp_path)) == [
        "hidden",
        "solutions",
        "workspace",
    ]


@pytest.mark.parametrize(
    ("limits", "field", "given"),
    [
        ('timeout_s = "10"', "limits.timeout_s", '"10"'),
        ("cpu_s = false", "limits.cpu_s", "false"),
        ("max_processes = true", "limits.max_processes", "true"),
        ("memory_mb = 256.0", "limits.memory_mb", "256.0"),
        ('max_files = "100"', "limits.max_files", '"100"'),
    ],
)
def test_limits_of_the_wrong_type_are_refused(
    task_dir: Path, limits: str, field: str, given: str
) -> None:
    key = limits.split(" =", maxsplit=1)[0]
    lines = [line for line in _spec(task_dir).splitlines() if not line.startswith(f"{key} =")]
    text = "\n".join(lines).replace("[limits]", f"[limits]\n{limits}")
    (task_dir / "task.toml").write_text(text)
    _refused(task_dir, rf"task\.toml: {field}: Input should be .*; it is {given}")


def test_whole_seconds_are_still_seconds(task_dir: Path) -> None:
    (task_dir / "task.toml").write_text(_spec(task_dir).replace("timeout_s = 5.0", "timeout_s = 7"))
    assert load_task(task_dir).spec.limits.timeout_s == 7.0


def test_a_config_table_is_not_the_family_settings(task_dir: Path) -> None:
    # A [config] table beside [code] was taken as the settings, changing the function judged.
    spec = _spec(task_dir)
    (task_dir / "task.toml").write_text(spec + '\n[config]\nfunction = "get"\n')
    _refused(task_dir, r"task\.toml: config: unknown field \(put the family's settings in \[code\]")
    (task_dir / "task.toml").write_text(spec.replace("[code]", "[config]"))
    _refused(task_dir, r"task\.toml: config: unknown field")


def test_a_family_called_config_keeps_its_table(task_dir: Path) -> None:
    text = _spec(task_dir).replace('family = "code"', 'family = "config"')
    (task_dir / "task.toml").write_text(text.replace("[code]", "[config]"))
    assert load_task(task_dir).spec.config == make_median_task().spec.config


def test_family_settings_that_are_not_a_table_are_refused(task_dir: Path) -> None:
    text = _spec(task_dir).split("[code]")[0]
    (task_dir / "task.toml").write_text("code = 5\n" + text)
    _refused(task_dir, r"task\.toml: code: must be a table of the family's settings")


@pytest.mark.parametrize("family", ["nosuch", "limits", "tags"])
def test_an_unknown_family_is_named_as_such(task_dir: Path, family: str) -> None:
    text = _spec(task_dir).replace('family = "code"', f'family = "{family}"')
    (task_dir / "task.toml").write_text(text)
    error = _refused(task_dir, rf"task\.toml: family: unknown family '{family}' \(use one of: ")
    assert isinstance(error, UnknownFamilyError)


def test_a_known_family_with_a_misnamed_table_is_an_unknown_field(task_dir: Path) -> None:
    (task_dir / "task.toml").write_text(_spec(task_dir).replace("[code]", "[sql]"))
    _refused(task_dir, r"task\.toml: sql: unknown field")


@pytest.mark.parametrize(
    ("name", "limit"), [("prompt.md", MAX_PROMPT_BYTES), ("task.toml", MAX_SPEC_BYTES)]
)
def test_an_oversized_prompt_or_spec_is_refused_unread(
    task_dir: Path, name: str, limit: int
) -> None:
    with (task_dir / name).open("ab") as file:
        file.truncate(limit + 1)  # sparse: the size is what counts
    _refused(task_dir, rf"{name}: is larger than 1 MiB")


@pytest.mark.parametrize("name", ["prompt.md", "task.toml", "workspace/data.txt"])
def test_a_fifo_is_refused_rather_than_waited_on(task_dir: Path, name: str) -> None:
    (task_dir / name).unlink(missing_ok=True)
    os.mkfifo(task_dir / name)
    _refused(task_dir, rf"{name}: is a FIFO, socket or device, not a regular file")


def test_a_file_that_grows_after_its_size_was_checked_is_not_read_whole(tmp_path: Path) -> None:
    small, grown = tmp_path / "small", tmp_path / "grown"
    small.write_bytes(b"x")
    grown.write_bytes(b"x" * 100)
    with pytest.raises(TaskFormatError, match=r"grown: is larger than 10 bytes"):
        _read_capped(grown, 10, "fix", small.lstat())  # its size as it was when checked


def test_a_file_swapped_for_a_fifo_after_the_check_is_refused_unwaited(tmp_path: Path) -> None:
    small, swapped = tmp_path / "small", tmp_path / "swapped"
    small.write_bytes(b"x")
    os.mkfifo(swapped)
    with pytest.raises(TaskFormatError, match=r"swapped: changed into something other than"):
        _read_capped(swapped, 10, "fix", small.lstat())


def test_a_prompt_that_is_a_directory_is_named(task_dir: Path) -> None:
    (task_dir / "prompt.md").unlink()
    (task_dir / "prompt.md").mkdir()
    _refused(task_dir, r"prompt\.md: is a directory, not a regular file")


def test_directories_nested_past_the_stack_are_read(task_dir: Path) -> None:
    levels = [task_dir / "workspace" / "/".join(["d"] * depth) for depth in range(1, 1201)]
    for level in levels:  # one at a time: pathlib, os.makedirs and shutil.rmtree recurse
        level.mkdir()
    (levels[-1] / "leaf.txt").write_text("x")
    try:
        assert load_task(task_dir).workspace == {"/".join(["d"] * 1200) + "/leaf.txt": b"x"}
    finally:
        (levels[-1] / "leaf.txt").unlink()
        for level in reversed(levels):
            level.rmdir()


_LOAD = textwrap.dedent(
    """
    import sys
    from assay.errors import InputError
    from assay.tasks import TaskSet
    try:
        taskset = TaskSet.load(sys.argv[1])
    except InputError as exc:
        print(type(exc).__name__, exc)
    else:
        errors = [failure.error for failure in taskset.failures]
        print("\\n".join(f"{type(e).__name__} {e}" for e in errors) or "loaded")
    """
)


def _load_unprivileged(directory: Path) -> str:
    """What loading ``directory`` says (the error of the set, else of its first broken task)
    where file permissions hold: root drops the capabilities that override them."""
    command = [sys.executable, "-c", _LOAD, str(directory)]
    if os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", *command]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()


@pytest.mark.parametrize("part", ["hidden", "solutions/reference", "workspace"])
def test_an_unreadable_directory_is_not_read_as_empty(task_dir: Path, part: str) -> None:
    (task_dir / "workspace" / "data.txt").write_text("1")
    (task_dir / part).chmod(0)
    try:
        said = _load_unprivileged(task_dir)
    finally:
        (task_dir / part).chmod(0o755)
    assert said == (
        f"TaskFormatError {task_dir / part}: cannot be read: Permission denied "
        "(check the file and its permissions)"
    )


def test_an_unreadable_set_is_named(task_dir: Path) -> None:
    task_set = task_dir.parent
    task_set.chmod(0o300)  # entered, not listed
    try:
        said = _load_unprivileged(task_set)
    finally:
        task_set.chmod(0o755)
    assert said == (
        f"TaskFormatError {task_set}: cannot be read: Permission denied "
        "(check the file and its permissions)"
    )


def test_a_linked_task_directory_in_a_set_is_refused(tmp_path: Path) -> None:
    outside = save_task(make_median_task("outside"), tmp_path / "elsewhere")
    root = tmp_path / "set"
    save_task(make_median_task("inside"), root)
    (root / "outside").symlink_to(outside, target_is_directory=True)
    taskset = TaskSet.load(root)
    assert [task.id for task in taskset] == ["inside"]
    assert "set/outside: is a symbolic link" in str(taskset.failures[0].error)
    assert [task.id for task in TaskSet.load(root / "outside")] == ["outside"], (
        "a link named on its own is the user's choice"
    )


def test_a_linked_task_part_is_refused(task_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secrets"
    outside.mkdir()
    (outside / "key").write_text("secret")
    shutil.rmtree(task_dir / "hidden")
    (task_dir / "hidden").symlink_to(outside, target_is_directory=True)
    _refused(task_dir, r"hidden: symbolic links are not allowed")


def test_a_duplicate_id_names_the_task_that_has_it(tmp_path: Path) -> None:
    first = save_task(make_median_task("a"), tmp_path)
    second = save_task(make_median_task("b"), tmp_path)
    (second / "task.toml").write_text(_spec(second).replace('"b"', '"a"'))
    taskset = TaskSet.load(tmp_path)
    error = taskset.failures[0].error
    assert isinstance(error, TaskFormatError)
    assert str(error) == (
        f"{second}/task.toml: id: another task in the set has this id, 'a': {first} "
        "(give every task a unique id)"
    )


def test_files_that_add_up_past_the_task_budget_are_refused_before_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.tasks.taskdir.MAX_TASK_BYTES", 8 * 2**10)
    root = tmp_path / "set"
    save_task(make_median_task("fine"), root)
    big = save_task(make_median_task("big"), root)
    (big / "workspace").mkdir(exist_ok=True)
    (big / "hidden").mkdir(exist_ok=True)
    (big / "workspace" / "a.bin").write_bytes(b"a" * 5000)  # each under any file limit,
    (big / "hidden" / "b.bin").write_bytes(b"b" * 5000)  # together over the task's
    error = _refused(big, r"set/big: holds files adding up to more than 8 KiB: task files are")
    assert "keep large data out of the task" in str(error)
    taskset = TaskSet.load(root)
    assert [task.id for task in taskset] == ["fine"]
    assert [failure.path.name for failure in taskset.failures] == ["big"]


def test_solutions_count_against_the_task_budget(
    task_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.tasks.taskdir.MAX_TASK_BYTES", 8 * 2**10)
    for label in ("bad-one", "bad-two", "bad-three"):
        (task_dir / "solutions" / label).mkdir(parents=True)
        (task_dir / "solutions" / label / "solution.py").write_bytes(b"#" * 3000)
    _refused(task_dir, r"median-1: holds files adding up to more than 8 KiB")


def test_a_task_of_very_many_small_files_is_refused_by_count(
    task_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.tasks.taskdir.MAX_TASK_FILES", 50)
    (task_dir / "workspace").mkdir(exist_ok=True)
    for number in range(60):
        (task_dir / "workspace" / f"f{number}.txt").write_bytes(b"")  # empty files count too
    error = _refused(task_dir, r"median-1: holds more than 50 files")
    assert "archive" in str(error)


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ('"evil\\nkey"', r'"evil\\nkey"'),
        ('"a\\rb\\u2028c"', r'"a\\rb\\u2028c"'),
        ('"' + "k" * 5000 + '"', '"' + "k" * 60 + r'\.\.\."'),
    ],
)
def test_an_unknown_key_with_a_line_break_is_named_on_one_line(
    task_dir: Path, key: str, shown: str
) -> None:
    spec = _spec(task_dir).replace("[limits]\n", f"[limits]\n{key} = 1\n")
    (task_dir / "task.toml").write_text(spec)
    error = _refused(task_dir, rf"task\.toml: limits\.{shown}: unknown field")
    assert len(str(error).replace(str(task_dir), "")) < 300  # the task's path is not the key's
