"""``assay audit --checks``: only the named checks run, in the audit's order; loading always
runs; an unknown id is one line naming the option and the known ids."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import default_checks, select_checks
from assay.errors import InputError
from tests.conftest import REFERENCE

Run = Callable[..., Result]
pytestmark = pytest.mark.sandbox


def test_only_the_named_checks_run(run_cli: Run, median_dir: Path, tmp_path: Path) -> None:
    # a known-bad that passes: the known-bad check rejects the task, lint and reference do not
    (median_dir / "solutions/bad-unsorted/solution.py").write_bytes(REFERENCE)
    (median_dir.parent / "broken").mkdir()
    (median_dir.parent / "broken/task.toml").write_text("id = 'broken'\n")
    report_path = tmp_path / "report.json"
    some = ["--checks", "reference, lint", "--json", str(report_path)]
    ran = run_cli("audit", str(median_dir.parent), *some)
    report = json.loads(report_path.read_text())
    assert report["checks"] == ["lint", "reference"]  # the audit's order, not the option's
    decisions = {task["task_id"]: task["decision"] for task in report["tasks"]}
    assert decisions == {"median-1": "accepted", "broken": "rejected"}  # loading still runs
    assert ran.exit_code == 1
    everything = run_cli("audit", str(median_dir.parent), "--json", str(report_path))
    assert everything.exit_code == 1
    median = next(
        t for t in json.loads(report_path.read_text())["tasks"] if t["task_id"] == "median-1"
    )
    assert median["decision"] == "rejected"
    assert {f["check"] for f in median["findings"]} >= {"known-bad"}


@pytest.mark.parametrize("names", ["", " , ", "reference,flakey", "LINT"])
def test_an_unknown_or_empty_list_is_one_line_naming_the_known_ids(names: str) -> None:
    with pytest.raises(InputError) as caught:
        select_checks(names)
    message = str(caught.value)
    assert message.startswith("--checks: ")
    for check in default_checks():
        assert check.name in message
    assert "\n" not in message


def test_the_command_line_refuses_an_unknown_check_before_auditing(
    median_dir: Path, tmp_path: Path
) -> None:
    db = tmp_path / "never.db"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay",
            "audit",
            str(median_dir),
            "--checks",
            "nope",
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "--checks: unknown check 'nope'" in result.stderr
    assert not db.exists()


@pytest.mark.parametrize(
    ("names", "given", "needs"),
    [
        ("lint,drift", {}, "the drift check needs --seed-tasks (add --seed-tasks DIR"),
        ("profile", {"seeds": True}, "the profile check needs --profile (add --profile RUN"),
    ],
)
def test_a_check_named_without_its_input_is_one_line_naming_the_flag(
    names: str, given: dict[str, bool], needs: str
) -> None:
    with pytest.raises(InputError) as caught:
        select_checks(names, **given)
    assert str(caught.value).startswith(f"--checks: {needs}")
    assert "\n" not in str(caught.value)


def test_the_checks_that_run_on_their_input_are_taken_by_name() -> None:
    # diversity is in every report; drift and profile run on --seed-tasks and --profile, named
    # or not, so they select no per-task check of their own
    chosen = select_checks("lint,diversity,drift,profile", seeds=True, profile=True)
    assert [check.name for check in chosen] == ["lint"]
    assert select_checks("diversity") == []
