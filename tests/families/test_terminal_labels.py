"""Terminal-Bench and Harbor metadata written to drive the terminal of whoever imports it."""

from __future__ import annotations

import json
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
