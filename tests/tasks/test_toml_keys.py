"""Every TOML file assay reads and did not write is read with a bound on dotted keys: the
parser's work grows with the square of a key's parts, and 60 KiB of ``a.a.a...`` in a task's
``hidden/expected.toml``, a rubric, a Harbor ``task.toml`` or a price table took gigabytes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from assay import _toml
from assay.errors import InputError, TaskFormatError
from assay.families.code.rubric import RUBRIC_FILE, task_rubric
from assay.families.config.expectations import expectations
from assay.families.config.spec import EXPECTED_FILE
from assay.families.terminal.importers import import_task_dirs
from assay.policies.prices import PriceTable
from tests.conftest import make_median_task
from tests.families.config.conftest import fixture_task, with_hidden
from tests.families.terminal.test_importers import _harbor

LONG = "a." * 2_000 + "b = 1\n"
"""A key the parser reads in moments, but of more parts than any file uses."""


def test_a_key_of_a_hundred_thousand_parts_is_refused_in_bounded_memory() -> None:
    script = textwrap.dedent(
        """
        import resource, tomllib
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
        from assay import _toml
        try:
            _toml.loads("a." * 100_000 + "b = 1")
        except tomllib.TOMLDecodeError as exc:
            print("refused:", exc)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.strip() == "refused: a key or table header has more than 64 dotted parts"


@pytest.mark.parametrize(
    "text",
    [
        "[" + ".".join(["t"] * 64) + "]\nx = 1\n",
        'notes = "' + "a." * 500 + 'b"\n',
        "# " + "a." * 500 + "b\nx = 1\n",
        "x = '''\n" + "a." * 500 + "b = 1\n'''\n",
    ],
)
def test_what_real_files_hold_is_read(text: str) -> None:
    assert _toml.loads(text) == tomllib.loads(text)


def test_a_config_tasks_expectations() -> None:
    task = with_hidden(fixture_task(), EXPECTED_FILE, LONG.encode())
    with pytest.raises(TaskFormatError, match="more than 64 dotted parts"):
        expectations(task)


def test_a_code_tasks_rubric() -> None:
    task = make_median_task()
    task = task.model_copy(update={"hidden": {**task.hidden, RUBRIC_FILE: LONG.encode()}})
    with pytest.raises(TaskFormatError, match="more than 64 dotted parts"):
        task_rubric(task)


def test_an_imported_harbor_task(tmp_path: Path) -> None:
    task = _harbor(tmp_path)
    (task / "task.toml").write_text(LONG + (task / "task.toml").read_text())
    with pytest.raises(InputError, match="more than 64 dotted parts"):
        import_task_dirs(tmp_path)


def test_a_price_table(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text(LONG)
    with pytest.raises(InputError, match="more than 64 dotted parts"):
        PriceTable.from_file(prices)
