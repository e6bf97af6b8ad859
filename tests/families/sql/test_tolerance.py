"""A task's float_tolerance: one loose enough to pass a wrong number is quarantined by the audit
for a person; one at 1 or past it (any two numbers of the same sign match), negative, NaN or
infinite is refused in one line naming task.toml, the field and the fix."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from assay.errors import TaskFormatError
from assay.families.sql import SqlFamily
from assay.families.sql.lint import lint_sql_task
from assay.sandbox import PoolSandbox
from tests.families.sql.conftest import CITIES, FIXTURES, REVENUE, fixture_task
from tests.families.sql.test_task_input import with_config


def with_tolerance(directory: Path, line: str, name: str = REVENUE) -> Path:
    """A copy of the task ``name`` in ``directory``, with ``line`` added to its [sql] table."""
    task = directory / name
    shutil.copytree(FIXTURES / name, task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("[sql]\n", f"[sql]\n{line}\n"))
    return task


def audit_decision(run_cli: Callable[..., Result], tasks: Path, report: Path) -> dict[str, Any]:
    result = run_cli("audit", str(tasks), "--json", str(report))
    assert result.exit_code == 0, result.output
    (task,) = json.loads(report.read_text())["tasks"]
    return task


def test_a_loose_tolerance_is_quarantined_and_a_tight_one_is_not(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    """The cities task's answers are text, so its known-bad queries fail under any tolerance and
    the audit accepted it with 0.5: a person must judge whether a number 50% off may pass."""
    loose = with_tolerance(tmp_path / "loose", "float_tolerance = 0.5", CITIES)
    task = audit_decision(run_cli, loose.parent, tmp_path / "loose.json")
    assert task["decision"] == "quarantined"
    (finding,) = [f for f in task["findings"] if "float_tolerance" in f["message"]]
    assert finding["check"] == "lint"
    assert finding["severity"] == "warning"
    assert finding["review"] is True
    assert finding["message"].startswith("float_tolerance = 0.5 in task.toml passes a number 50%")
    assert "at most 0.01 in the [sql] table" in finding["message"]

    tight = with_tolerance(tmp_path / "tight", "float_tolerance = 1e-6", CITIES)
    task = audit_decision(run_cli, tight.parent, tmp_path / "tight.json")
    assert task["decision"] == "accepted"
    assert not [f for f in task["findings"] if "float_tolerance" in f["message"]]


@pytest.mark.parametrize(("tolerance", "flagged"), [(0.01, False), (0.0100001, True), (0.99, True)])
def test_lint_flags_a_tolerance_above_a_hundredth(tolerance: float, flagged: bool) -> None:
    task = with_config(fixture_task(REVENUE), float_tolerance=tolerance)
    found = [f for f in lint_sql_task(task) if "float_tolerance" in f.message]
    assert [f.review for f in found] == ([True] if flagged else [])


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (1, "less than 1"),
        (1.0, "less than 1"),
        (50, "less than 1"),
        (-1e-9, "greater than or equal to 0"),
        (math.nan, "finite number"),
        (math.inf, "finite number"),
        (-math.inf, "finite number"),
    ],
)
def test_an_out_of_range_tolerance_is_refused_in_one_line(
    value: float, problem: str, pool: PoolSandbox
) -> None:
    task = with_config(fixture_task(REVENUE), float_tolerance=value)
    with pytest.raises(TaskFormatError) as raised:
        SqlFamily().verify(task, task.solutions["reference"], pool)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{REVENUE}/task.toml: sql.float_tolerance: "), message
    assert problem in message
    assert "set float_tolerance in the [sql] table to a number of at least 0 and below 1" in message
    (finding,) = lint_sql_task(task)
    assert finding.message == message
    assert finding.severity.value == "error"


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("1", "below 1"),
        ("1.0", "below 1"),
        ("inf", "below 1"),
        ("-0.5", "below 1"),
        ("nan", "give a number"),  # the task loader refuses NaN in any field
    ],
)
def test_an_out_of_range_tolerance_through_the_cli_is_one_line(
    text: str, fix: str, run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    task = with_tolerance(tmp_path, f"float_tolerance = {text}")
    result = run_cli("verify", str(task), "--solution", str(task / "solutions" / "reference"))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "task.toml" in lines[0]
    assert "sql.float_tolerance" in lines[0]
    assert fix in lines[0]
