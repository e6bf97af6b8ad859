"""Task files and submitted files that are wrong in ways a reader can be cheated by: keys that
cost the TOML parser the square of their length, settings of the wrong type that lax parsing
would convert, and a solution file that is not a regular file of a sane size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assay.errors import InputError, SolutionFormatError, TaskFormatError
from assay.families import get_family
from assay.families.code.config import code_config, hidden_cases
from assay.families.sql.config import sql_config
from assay.families.terminal.family import terminal_config
from assay.families.workflow.config import workflow_config
from assay.tasks import TaskSet, load_task, save_task
from assay.tasks.model import Task
from tests.conftest import REFERENCE, make_median_task


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    return save_task(make_median_task(), tmp_path / "set")


def _load_limited(task_dir: Path) -> str:
    """What loading ``task_dir`` says, in a process that may not use more than 1 GiB."""
    script = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
        from assay.errors import InputError
        from assay.tasks import load_task
        try:
            load_task({str(task_dir)!r})
        except InputError as exc:
            print(type(exc).__name__, exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "key", ["a." * 30_000 + "b = 1", '"a".' * 30_000 + "b = 1", "x . " * 30_000 + "y = 1"]
)
def test_a_dotted_key_of_thousands_of_parts_is_refused_without_parsing_it(
    task_dir: Path, key: str
) -> None:
    # Some 60 KiB of `a.a.a...` costs the TOML parser gigabytes: the square of the parts.
    spec = task_dir / "task.toml"
    spec.write_text(key + "\n" + spec.read_text())
    assert _load_limited(task_dir) == (
        f"TaskFormatError {spec}: tables and arrays nest more than 32 levels deep "
        "(flatten the settings, or move data into hidden/)"
    )


@pytest.mark.parametrize(
    "text",
    [
        'notes = "' + "a." * 200 + 'b"',
        "notes = '" + "a." * 200 + "b'",
        'notes = """\n' + "a." * 200 + 'b = 1\n"""',
        "notes = '''\n" + "a." * 200 + "b = 1\n'''",
        'notes = """quoted""""',
        "notes = 1  # " + "a." * 200 + "b = 1",
        "notes." + "a." * 20 + "b = 1",
    ],
)
def test_dots_in_strings_and_comments_are_not_keys(task_dir: Path, text: str) -> None:
    spec = task_dir / "task.toml"
    lines = spec.read_text().splitlines()
    at = lines.index("[code]") + 1
    spec.write_text("\n".join([*lines[:at], text, *lines[at:]]) + "\n")
    task = load_task(task_dir)  # read; the unknown setting is the family's to refuse
    with pytest.raises(TaskFormatError, match=r"code\.notes: Extra inputs"):
        code_config(task)


def _with_settings(task_dir: Path, family: str, settings: str) -> Task:
    """The task at ``task_dir`` with its family and settings table replaced."""
    spec = task_dir / "task.toml"
    head = spec.read_text().split("[code]")[0].replace('family = "code"', f'family = "{family}"')
    spec.write_text(f"{head}[{family}]\n{settings}\n")
    return load_task(task_dir)


_TERMINAL = 'source = "harbor"\ntest_command = "test.sh"\n'
_READERS = {
    "code": code_config,
    "sql": sql_config,
    "workflow": workflow_config,
    "terminal": terminal_config,
}


@pytest.mark.parametrize(
    ("family", "settings", "field"),
    [
        ("code", 'function = "median"\nfloat_tolerance = "1e-6"', "code.float_tolerance"),
        ("code", 'function = "median"\nfloat_tolerance = true', "code.float_tolerance"),
        ("code", 'function = "median"\nfloat_tolerance = inf', "code.float_tolerance"),
        ("sql", 'max_rows = "10"', "sql.max_rows"),
        ("sql", "max_rows = true", "sql.max_rows"),
        ("sql", 'time_limit_s = "2"', "sql.time_limit_s"),
        ("sql", "float_tolerance = true", "sql.float_tolerance"),
        ("sql", 'seed = "7"', "sql.seed"),
        ("workflow", 'rerun_weight = "1"', "workflow.rerun_weight"),
        ("workflow", "calls_weight = true", "workflow.calls_weight"),
        ("workflow", 'reference_calls = "15"', "workflow.reference_calls"),
        ("workflow", "reference_calls = 15.0", "workflow.reference_calls"),
        ("workflow", "seed = true", "workflow.seed"),
        ("terminal", _TERMINAL + 'agent_timeout_s = "600"', "terminal.agent_timeout_s"),
        ("terminal", _TERMINAL + "verifier_timeout_s = true", "terminal.verifier_timeout_s"),
        ("terminal", _TERMINAL + "agent_timeout_s = inf", "terminal.agent_timeout_s"),
    ],
)
def test_family_settings_of_the_wrong_type_are_refused_not_converted(
    task_dir: Path, family: str, settings: str, field: str
) -> None:
    task = _with_settings(task_dir, family, settings)
    with pytest.raises(TaskFormatError) as caught:
        _READERS[family](task)
    assert caught.value.path == "median-1/task.toml"
    assert caught.value.field == field
    assert caught.value.fix


@pytest.mark.parametrize(
    ("family", "settings"),
    [
        ("code", 'function = "median"\nfloat_tolerance = 1'),
        ("sql", "time_limit_s = 2\nfloat_tolerance = 0"),
        ("workflow", "rerun_weight = 1\ncalls_weight = 0\nreference_calls = 3"),
        ("terminal", _TERMINAL + "agent_timeout_s = 600"),
    ],
)
def test_whole_numbers_are_still_numbers_in_family_settings(
    task_dir: Path, family: str, settings: str
) -> None:
    _READERS[family](_with_settings(task_dir, family, settings))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "2"}, "format"),
        ({"format": True}, "format"),
        ({"format": 4.0}, "format"),
        ({"weight": "3"}, "cases[0].weight"),
        ({"weight": True}, "cases[0].weight"),
        ({"example": "yes"}, "cases[0].example"),
        ({"example": 1}, "cases[0].example"),
    ],
)
def test_case_file_fields_of_the_wrong_type_are_refused(
    task_dir: Path, change: dict[str, object], field: str
) -> None:
    case = {"id": "case-0", "args": [[1, 2, 3]], "expected": 2}
    data: dict[str, object] = {"format": 4, "cases": [case]}
    if "format" in change:
        data["format"] = change["format"]
    else:
        case.update(change)
    (task_dir / "hidden" / "cases.json").write_text(json.dumps(data))
    with pytest.raises(TaskFormatError) as caught:
        hidden_cases(load_task(task_dir))
    assert caught.value.path == "median-1/hidden/cases.json"
    assert caught.value.field == field


_ONE_FILE = {
    "code": "solution.py",
    "sql": "query.sql",
    "workflow": "solution.py",
    "config": "objects.yaml",
    "terminal": "solve.sh",
    "repo": "fix.patch",
}


@pytest.mark.parametrize("family", sorted(_ONE_FILE))
def test_a_fifo_submitted_as_the_solution_is_named_as_one(tmp_path: Path, family: str) -> None:
    fifo = tmp_path / _ONE_FILE[family]
    os.mkfifo(fifo)
    with pytest.raises(SolutionFormatError, match="is a FIFO, socket or device") as caught:
        get_family(family).load_solution(fifo)
    assert caught.value.path == str(fifo)


@pytest.mark.parametrize("family", sorted(_ONE_FILE))
def test_a_solution_file_over_the_limit_is_refused_unread(
    tmp_path: Path, family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.tasks.taskdir.MAX_FILE_BYTES", 4096)
    big = tmp_path / _ONE_FILE[family]
    with big.open("wb") as out:
        out.truncate(8192)
    with pytest.raises(SolutionFormatError, match="is larger than 4 KiB") as caught:
        get_family(family).load_solution(big)
    assert caught.value.path == str(big)


def test_a_solution_file_that_cannot_be_opened_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    with pytest.raises(SolutionFormatError, match="leads back to itself"):
        get_family("code").load_solution(tmp_path / "a.py")


def test_a_linked_solution_file_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_bytes(REFERENCE)
    (tmp_path / "attempt.py").symlink_to(tmp_path / "real.py")
    assert get_family("code").load_solution(tmp_path / "attempt.py") == {"solution.py": REFERENCE}


def test_a_missing_solution_file_is_still_named_as_missing(tmp_path: Path) -> None:
    for family, name in _ONE_FILE.items():
        with pytest.raises(InputError, match="no such file or directory"):
            get_family(family).load_solution(tmp_path / name)


def test_links_in_a_set_that_lead_nowhere_are_named_not_dropped(tmp_path: Path) -> None:
    root = tmp_path / "set"
    save_task(make_median_task("fine"), root)
    (root / "moved").symlink_to(tmp_path / "gone")
    (root / "loop-a").symlink_to("loop-b")
    (root / "loop-b").symlink_to("loop-a")
    (root / "README.md").write_text("a set of tasks\n")
    taskset = TaskSet.load(root)
    assert [task.id for task in taskset] == ["fine"]
    assert sorted(failure.path.name for failure in taskset.failures) == [
        "loop-a",
        "loop-b",
        "moved",
    ]
    assert all("is a symbolic link" in str(failure.error) for failure in taskset.failures)


def test_a_task_directory_that_is_a_link_loop_is_named_as_one(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(TaskFormatError, match="a: is a symbolic link that leads to no directory"):
        load_task(tmp_path / "a")


def test_a_byte_order_mark_in_task_toml_is_named(task_dir: Path) -> None:
    spec = task_dir / "task.toml"
    spec.write_bytes(b"\xef\xbb\xbf" + spec.read_bytes())
    with pytest.raises(TaskFormatError) as caught:
        load_task(task_dir)
    assert str(caught.value) == (
        f"{spec}: starts with a byte order mark, which TOML does not allow "
        "(save it as UTF-8 without a BOM)"
    )


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ("whatever = nan", "code.whatever"),
        ("float_tolerance = -nan", "code.float_tolerance"),
        ("weights = [1.0, nan]", "code.weights.1"),
        ('"a.b" = { c = nan }', 'code."a.b".c'),
    ],
)
def test_a_nan_anywhere_in_task_toml_is_refused_naming_it(
    task_dir: Path, settings: str, field: str
) -> None:
    """A NaN loaded, and the task then never equalled a copy of itself (NaN equals nothing):
    saving a set of such tasks was refused as not loading back the same."""
    toml = task_dir / "task.toml"
    toml.write_text(toml.read_text().replace("[code]\n", f"[code]\n{settings}\n"))
    with pytest.raises(TaskFormatError) as caught:
        load_task(task_dir)
    assert caught.value.field == field
    assert f"median-1/task.toml: {field}: is nan, which equals " in str(caught.value)
    assert "\n" not in str(caught.value)
