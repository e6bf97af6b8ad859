"""Terminal-Bench and Harbor metadata written to drive the terminal of whoever imports it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import InputError
from assay.families.terminal.importers import import_task_dirs

TITLE = "\x1b]0;owned\x07"


def _terminal_bench(directory: Path, task_yaml: str) -> Path:
    (directory / "tests").mkdir(parents=True)
    (directory / "task.yaml").write_text(task_yaml)
    (directory / "Dockerfile").write_text("FROM python:3.11.9\n")
    (directory / "run-tests.sh").write_text("#!/bin/sh\npytest\n")
    (directory / "tests" / "test_it.py").write_text("def test_it():\n    pass\n")
    return directory


def _harbor(directory: Path, task_toml: str) -> Path:
    (directory / "tests").mkdir(parents=True)
    (directory / "environment").mkdir()
    (directory / "task.toml").write_text(task_toml)
    (directory / "instruction.md").write_text("Do it.\n")
    (directory / "environment" / "Dockerfile").write_text("FROM python:3.11.9\n")
    (directory / "tests" / "test.sh").write_text("#!/bin/sh\npytest\n")
    return directory


@pytest.mark.parametrize(
    ("task_yaml", "field"),
    [
        (f"instruction: do it\ntags: [ok, {json.dumps(TITLE)}]\n", "tags[1]"),
        (f"instruction: do it\ncategory: {json.dumps('files' + TITLE)}\n", "category"),
    ],
)
def test_a_terminal_bench_label_with_an_escape_sequence_is_refused(
    tmp_path: Path, task_yaml: str, field: str
) -> None:
    _terminal_bench(tmp_path / "set" / "a", task_yaml)
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path / "set")
    assert raised.value.field == field
    assert "task.yaml" in str(raised.value)
    assert TITLE not in str(raised.value)


def test_a_harbor_tag_with_a_bidirectional_override_is_refused(tmp_path: Path) -> None:
    toml = '[metadata]\ntags = ["ok", "evil\\u202e"]\n'
    _harbor(tmp_path / "a", toml)
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path / "a")
    assert raised.value.field == "metadata.tags[1]"


def test_plain_labels_in_any_script_still_import(tmp_path: Path) -> None:
    _terminal_bench(tmp_path / "a", "instruction: do it\ncategory: système\ntags: [データ, bash]\n")
    (task,) = import_task_dirs(tmp_path / "a")
    assert task.spec.tags == ("terminal-bench", "système", "データ", "bash")


def test_seconds_too_large_for_a_float_are_one_line_naming_the_field(tmp_path: Path) -> None:
    huge = "9" * 400
    _terminal_bench(tmp_path / "tb", f"instruction: do it\nmax_agent_timeout_sec: {huge}\n")
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path / "tb")
    assert raised.value.field == "max_agent_timeout_sec"
    assert "not a number of seconds" in str(raised.value)
    _harbor(tmp_path / "harbor", f"[verifier]\ntimeout_sec = {huge}\n")
    with pytest.raises(InputError) as raised:
        import_task_dirs(tmp_path / "harbor")
    assert raised.value.field == "verifier.timeout_sec"


def _aliases(levels: int) -> str:
    """YAML whose last anchor stands for 9 ** ``levels`` strings, in a few hundred bytes."""
    lines = ["a0: &a0 [" + ", ".join(["x"] * 9) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("field", ["category", "max_agent_timeout_sec"])
def test_a_value_built_of_yaml_aliases_is_named_at_once(tmp_path: Path, field: str) -> None:
    """Written out in full, the value would be billions of characters: the message shows a few
    of its items, in a process that would otherwise run out of time or memory."""
    task_yaml = f"instruction: do it\n{_aliases(10)}{field}: *a9\n"
    _terminal_bench(tmp_path / "a", task_yaml)
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from assay.errors import InputError\n"
        "from assay.families.terminal.importers import import_task_dirs\n"
        "try:\n"
        "    import_task_dirs(__import__('pathlib').Path(sys.argv[1]))\n"
        "except InputError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "a")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-500:]
    [line] = done.stdout.splitlines()
    assert f"task.yaml: {field}: is [[[" in line
    assert len(line) < 300
