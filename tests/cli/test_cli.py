"""The command line: exit codes, one-line errors, an untouched store, documented commands."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import Result

from assay.cli import cli
from assay.families import get_family, version_label
from assay.settings import SETTINGS
from assay.store import Store
from tests.conftest import BAD_NO_SORT, REFERENCE

Run = Callable[..., Result]


def test_verify_exit_codes_and_verdict(run_cli: Run, median_dir: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_bytes(REFERENCE)
    bad = tmp_path / "bad.py"
    bad.write_bytes(BAD_NO_SORT)
    passed = run_cli("verify", str(median_dir), "--solution", str(good))
    assert passed.exit_code == 0, passed.output
    assert "PASS" in passed.output
    failed = run_cli("verify", str(median_dir), "--solution", str(bad), "--json")
    assert failed.exit_code == 1
    verdict = json.loads(failed.output)
    assert verdict["status"] == "fail"
    assert any("expected 2, got 1" in c["evidence"] for c in verdict["criteria"])
    reference_dir = run_cli(
        "verify", str(median_dir), "--solution", str(median_dir / "solutions/reference")
    )
    assert reference_dir.exit_code == 0


def test_verdicts_are_stored_with_task_versions(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    run_cli("verify", str(median_dir), "--solution", str(median_dir / "solutions/reference"))
    with Store(tmp_path / "store.db") as store:
        [stored] = store.verdicts()
    assert stored.verdict.task_id == "median-1"
    assert len(stored.verdict.versions.task) == 20


def _break_prompt(task: Path) -> None:
    (task / "prompt.md").unlink()


def _break_toml(task: Path) -> None:
    (task / "task.toml").write_text("id = [")


def _unknown_family(task: Path) -> None:
    (task / "task.toml").write_text('id = "median-1"\nfamily = "haiku"\n')


@pytest.mark.parametrize(
    ("breaker", "expected"),
    [
        (_break_prompt, "prompt.md: file is missing"),
        (_break_toml, "task.toml: not valid TOML"),
        (_unknown_family, "task.toml: family: unknown family 'haiku'"),
    ],
)
def test_bad_task_input_is_one_line_exit_2_and_store_untouched(
    breaker: Callable[[Path], None], expected: str, median_dir: Path, tmp_path: Path
) -> None:
    db = tmp_path / "kept.db"
    Store(db).close()
    before = db.read_bytes()
    breaker(median_dir)
    result = _assay(
        "verify",
        str(median_dir),
        "--solution",
        str(median_dir / "solutions/reference"),
        "--db",
        str(db),
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert db.read_bytes() == before


def test_missing_paths_are_bad_input(tmp_path: Path, median_dir: Path) -> None:
    db = tmp_path / "never.db"
    for args in (
        ["verify", str(tmp_path / "nope"), "--solution", "x.py"],
        ["verify", str(median_dir), "--solution", str(tmp_path / "missing.py")],
        ["audit", str(tmp_path / "nope")],
    ):
        result = _assay(*args, "--db", str(db))
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1
        assert "Traceback" not in result.stderr
    assert not db.exists()


def test_broken_candidate_is_a_fail_not_bad_input(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def median(values) return 1\n")
    result = run_cli("verify", str(median_dir), "--solution", str(broken))
    assert result.exit_code == 1
    assert "SyntaxError" in result.output


def test_audit_command_writes_json_and_exits_1_on_rejection(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    report_path = tmp_path / "report.json"
    accepted = run_cli("audit", str(median_dir.parent), "--json", str(report_path))
    assert accepted.exit_code == 0, accepted.output
    assert "1 accepted, 0 rejected" in accepted.output
    assert json.loads(report_path.read_text())["tasks"][0]["decision"] == "accepted"
    (median_dir / "solutions/bad-unsorted/solution.py").write_bytes(REFERENCE)
    rejected = run_cli("audit", str(median_dir.parent))
    assert rejected.exit_code == 1
    assert "rejected" in rejected.output


def test_sandbox_run_prints_the_result_as_json(run_cli: Run) -> None:
    result = run_cli("sandbox", "run", "--timeout", "1", "--", "sh", "-c", "echo hi; sleep 5")
    assert result.exit_code == 0
    record = json.loads(result.output)
    assert record["stdout"] == "hi\n"
    assert record["timed_out"] is True


def test_json_on_standard_output_sends_the_terminal_no_control_past_ascii(run_cli: Run) -> None:
    """A job's output (or a task's text) reached the terminal raw inside the JSON: U+009B
    opens a control sequence as ESC [ does, U+202E turns the line around. Every character
    past ASCII is now escaped, and the JSON still reads back the same."""
    script = "printf 'a\\302\\2331;31mB\\342\\200\\256c\\303\\251'"
    result = run_cli("sandbox", "run", "--", "sh", "-c", script)
    assert result.exit_code == 0, result.output
    assert result.output.isascii()
    assert json.loads(result.output)["stdout"] == "a\x9b1;31mB\u202ec\u00e9"


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in group.commands.items():
        found.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            found += _commands(command, f"{prefix}{name} ")
    return found


@pytest.mark.parametrize(("name", "command"), _commands(cli))
def test_every_command_is_documented_with_an_example(name: str, command: click.Command) -> None:
    assert command.help, f"assay {name} has no help"
    assert "Example:" in command.help, f"assay {name} help shows no example"
    assert "assay " in command.help.split("Example:")[1]


def _assay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assay", *args], capture_output=True, text=True, check=False
    )


def test_runs_and_verdicts_read_back_what_an_audit_kept(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    run_cli("audit", str(median_dir.parent))
    runs = json.loads(run_cli("runs", "--json").output)
    assert len(runs) == 1
    assert runs[0]["accepted"] == 1
    kept = json.loads(run_cli("verdicts", "--run", runs[0]["run_id"], "--json").output)
    assert {k["solution"] for k in kept} == {"reference", "bad-unsorted", "empty"}
    family = version_label(get_family("code"))
    assert all(k["verdict"]["versions"]["family"] == family for k in kept)
    table = run_cli("verdicts", "--task", "median-1")
    assert table.exit_code == 0
    assert "bad-unsorted" in table.output


def test_reading_a_missing_database_is_bad_input_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    for command in ("runs", "verdicts"):
        result = _assay(command, "--db", str(db))
        assert result.returncode == 2
        assert "no results database here" in result.stderr
    assert not db.exists()


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    for setting in SETTINGS:
        assert f"`{setting.flag}` / `{setting.env}`" in readme, setting.name


def test_the_store_is_a_path_or_a_sqlite_url_and_other_urls_are_refused(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    """``sqlite:///PATH`` as ``open_store`` reads it; a path type would fold its slashes and
    make a directory named ``sqlite:`` instead."""
    db = tmp_path / "by-url.db"
    attempt = median_dir / "solutions" / "reference" / "solution.py"
    verified = run_cli(
        "verify", str(median_dir), "--solution", str(attempt), "--db", f"sqlite:///{db}"
    )
    assert verified.exit_code == 0, verified.output
    assert db.is_file()
    listed = run_cli("verdicts", "--json", "--db", f"sqlite:///{db}")
    assert len(json.loads(listed.stdout)) == 1
    for url, said in (
        ("postgresql://u@h/db", "db: no store backend for 'postgresql' URLs yet"),
        (str(tmp_path), "is a directory"),
        (str(tmp_path / ("x" * 300)), "cannot be a file here (File name too long)"),
    ):
        refused = run_cli("runs", "--db", url)
        assert refused.exit_code == 2
        [line] = refused.stderr.strip().splitlines()
        assert said in line
    assert not Path("sqlite:").exists()
