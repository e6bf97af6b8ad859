"""Bad input on the command line is one line and exit 2, before anything runs or is stored:
numbers that are not numbers, a solution that is no regular file, settings of the wrong type."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import Result

from assay.tasks import save_task
from tests.cli.conftest import Invoke
from tests.conftest import REFERENCE, make_median_task


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    return save_task(make_median_task(), tmp_path / "tasks")


def _refused(result: Result, tmp_path: Path) -> str:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "store.db").exists()
    return result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["sandbox", "run", "--timeout", "nan", "--", "true"],
        ["sandbox", "run", "--timeout", "NaN", "--", "true"],
        ["run", "tasks", "--policy", "reference", "--temperature", "nan"],
        ["run", "tasks", "--policy", "reference", "--top-p", "-nan"],
        ["profile", "tasks", "--policy", "mix:1", "--temperature", "nan"],
        ["serve", "--tasks", "tasks", "--idle-timeout", "nan"],
    ],
)
def test_nan_is_refused_where_a_number_is_asked(
    invoke: Invoke, task_dir: Path, tmp_path: Path, args: list[str]
) -> None:
    # NaN compares false with both bounds of a range, so a range alone lets it through.
    stderr = _refused(invoke(*args), tmp_path)
    assert "is not a number" in stderr


def test_a_fifo_as_the_solution_is_refused_by_name(
    invoke: Invoke, task_dir: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "attempt.py"
    os.mkfifo(fifo)
    stderr = _refused(invoke("verify", str(task_dir), "--solution", str(fifo)), tmp_path)
    assert stderr == (
        f"error: {fifo}: is a FIFO, socket or device, not a regular file "
        "(remove it, or replace it with a regular file)\n"
    )


@pytest.mark.parametrize("value", ['"1e-6"', "true", "inf"])
def test_a_task_with_a_setting_of_the_wrong_type_gets_no_verdict(
    invoke: Invoke, task_dir: Path, tmp_path: Path, value: str
) -> None:
    spec = task_dir / "task.toml"
    spec.write_text(spec.read_text() + f"float_tolerance = {value}\n")
    attempt = tmp_path / "attempt.py"
    attempt.write_bytes(REFERENCE)
    stderr = _refused(invoke("verify", str(task_dir), "--solution", str(attempt)), tmp_path)
    assert stderr.startswith(f"error: {spec}: code.float_tolerance: ")
    assert stderr.endswith("(correct the [code] table)\n")


@pytest.mark.parametrize("command", ["verify", "audit", "runs"])
def test_a_db_that_is_not_a_sqlite_file_is_bad_input_found_first(
    invoke: Invoke, task_dir: Path, tmp_path: Path, command: str
) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("these are my notes, not a database\n")
    args = {
        "verify": ["verify", str(task_dir), "--solution", str(task_dir / "solutions/reference")],
        "audit": ["audit", str(task_dir), "--checks", "lint"],
        "runs": ["runs"],
    }[command]
    result = invoke(*args, "--db", str(notes))
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {notes}: is not a SQLite database "
        "(point --db at a SQLite file, or at a new path to start one)\n"
    )
    assert notes.read_text() == "these are my notes, not a database\n"


def test_a_db_that_is_a_fifo_is_refused_unopened(
    invoke: Invoke, task_dir: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "store.fifo"
    os.mkfifo(fifo)
    result = invoke(
        "verify",
        str(task_dir),
        "--solution",
        str(task_dir / "solutions/reference"),
        "--db",
        str(fifo),
    )
    assert result.exit_code == 2, result.output
    assert f"{fifo}: is not a SQLite database" in result.stderr


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["run", "tasks", "--policy", "reference", "--k", "0"], "'--k': 0 is not in the range"),
        (["run", "tasks", "--policy", "reference", "--k", "-1"], "'--k': -1 is not in the range"),
        (["generate", "code", "--n", "1e9", "--out", "out"], "'1e9' is not a valid integer"),
        (["generate", "code", "--workers", "0", "--out", "out"], "'--workers'"),
        (["sandbox", "run", "--memory", "-5", "--", "true"], "'--memory': -5 is not in the range"),
        (["generate", "terminal"], "No such command 'terminal'"),
        (["verify", "tasks/median-1"], "Missing option '--solution'"),
        (["--bogus"], "No such option '--bogus'"),
        (["show", "a-run", "median-1", "--sample", str(2**63)], "'--sample': 9223372036854775808"),
    ],
)
def test_a_wrong_option_is_one_line_naming_it(
    invoke: Invoke, task_dir: Path, tmp_path: Path, args: list[str], named: str
) -> None:
    stderr = _refused(invoke(*args), tmp_path)
    assert named in stderr
    assert "--help`)" in stderr


def test_a_wrong_setting_in_the_environment_is_one_line_naming_it(
    invoke: Invoke, task_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_WORKERS", "abc")
    stderr = _refused(invoke("audit", str(task_dir), "--checks", "lint"), tmp_path)
    assert "'--workers' (env var: 'ASSAY_WORKERS'): 'abc' is not a valid integer" in stderr


def test_the_bare_command_still_shows_its_help(invoke: Invoke) -> None:
    result = invoke("generate")
    assert "generate [OPTIONS] COMMAND [ARGS]" in result.output
    assert "Generate tasks." in result.output


def test_terminal_controls_in_an_error_line_are_shown_escaped(
    invoke: Invoke, tmp_path: Path
) -> None:
    # A task directory named with an escape sequence must not recolour or retitle the terminal
    # through the one-line error that names it.
    named = tmp_path / "\x1b]0;owned\x07\x1b[31mtasks"
    stderr = _refused(invoke("audit", str(named)), tmp_path)
    assert "\x1b" not in stderr
    assert "\x07" not in stderr
    assert "\\x1b]0;owned\\x07\\x1b[31mtasks" in stderr


@pytest.mark.parametrize(
    ("args", "target"),
    [
        (["audit", "tasks", "--json", "tasks/median-1/task.toml"], "task.toml"),
        (["audit", "tasks/median-1", "--html", "tasks/median-1/prompt.md"], "prompt.md"),
        (["audit", "tasks", "--json", "tasks/median-1/hidden/report.json"], "hidden/cases.json"),
        (["export", "tasks", "tasks", "--out", "tasks/median-1/task.toml"], "task.toml"),
    ],
)
def test_a_report_or_export_into_a_task_it_reads_is_refused(
    invoke: Invoke, task_dir: Path, tmp_path: Path, args: list[str], target: str
) -> None:
    before = {path: path.read_bytes() for path in task_dir.rglob("*") if path.is_file()}
    line = _refused(invoke(*args), tmp_path)
    assert f"{args[-1]}: is inside the task directory tasks/median-1" in line
    assert (task_dir / target).read_bytes() == before[task_dir / target]
    assert {path: path.read_bytes() for path in task_dir.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("s3cret\n", "starts or ends with whitespace"),
        ("s3cret ", "starts or ends with whitespace"),
        ("   ", "starts or ends with whitespace"),
        ("s3\x1bcret", "holds a control character"),
    ],
)
def test_a_token_no_request_could_send_is_refused_unshown(
    invoke: Invoke,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    token: str,
    problem: str,
) -> None:
    # The server compares the Authorization header stripped of surrounding whitespace: a
    # token read with its newline would refuse every request of a server that seemed to run.
    monkeypatch.setenv("ASSAY_TOKEN", token)
    stderr = _refused(invoke("serve", "--env-only", "--tasks", "missing"), tmp_path)
    assert f"'--token' (env var: 'ASSAY_TOKEN'): {problem}" in stderr
    assert "s3" not in stderr


@pytest.mark.parametrize(
    "args",
    [
        ["run", "missing", "--policy", "reference", "--prices", "/dev/null"],
        ["config", "reachability", "/dev/null"],
        ["import", "humaneval", "/dev/null", "--out", "out"],
        ["import", "mbpp", "pipe", "--out", "out"],
    ],
)
def test_a_file_to_read_that_is_a_fifo_or_device_is_refused_unopened(
    invoke: Invoke, tmp_path: Path, args: list[str]
) -> None:
    # Read whole, /dev/zero never ends and a FIFO waits for a writer that never comes.
    os.mkfifo(tmp_path / "pipe")
    stderr = _refused(invoke(*args), tmp_path)
    named = "/dev/null" if "/dev/null" in args else "pipe"
    assert f"'{named}' is a FIFO, socket or device, not a regular file" in stderr
    assert not (tmp_path / "out").exists()
