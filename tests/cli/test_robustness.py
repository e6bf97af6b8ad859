"""Careless use loses no data, and nothing ends in a traceback: one line and a documented code."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import Result

import assay.audit.runner
import assay.demo
import assay.families.code.generator
from assay.cli import BACKENDS
from assay.errors import InputError
from assay.families import get_family
from assay.sandbox import BACKENDS as SANDBOX_BACKENDS
from assay.sandbox import Sandbox
from assay.store import Store
from assay.tasks import Files, Limits, Task, load_task, save_task
from assay.verdicts import Verdict
from tests.cli.conftest import Invoke
from tests.conftest import REFERENCE, make_median_task

ASSAY = [sys.executable, "-m", "assay"]


def one_line(result: Result) -> str:
    """The single line a failed command wrote to stderr."""
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    return result.stderr


def _raise(error: BaseException) -> Callable[..., object]:
    def raiser(*_args: object, **_kwargs: object) -> object:
        raise error

    return raiser


def test_an_internal_error_in_verify_exits_3_with_one_line(
    invoke: Invoke, median_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    family = get_family("code")
    monkeypatch.setattr(family, "verify", _raise(RecursionError("maximum recursion depth")))
    reference = str(median_dir / "solutions/reference")
    result = invoke("verify", str(median_dir), "--solution", reference)
    assert result.exit_code == 3
    line = one_line(result)
    assert "internal error: RecursionError: maximum recursion depth" in line


@pytest.fixture
def failing_command(
    request: pytest.FixtureRequest, median_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], Callable[[BaseException], None]]:
    """A command, and a way to make the library call at its heart raise."""
    command, module, name = request.param
    args = [str(median_dir.parent) if a == "TASKS" else a for a in command]

    def make_it_raise(error: BaseException) -> None:
        monkeypatch.setattr(module, name, _raise(error))

    return args, make_it_raise


COMMANDS = [
    (["audit", "TASKS"], assay.audit.runner, "run_audit"),
    (
        ["generate", "code", "--n", "1", "--out", "new"],
        assay.families.code.generator,
        "generate_code_tasks",
    ),
    (["demo", "--n", "1"], assay.demo, "run_demo"),
]


@pytest.mark.parametrize("failing_command", COMMANDS, indirect=True, ids=["audit", "gen", "demo"])
def test_unexpected_exceptions_exit_3_with_one_line(
    invoke: Invoke, failing_command: tuple[list[str], Callable[[BaseException], None]]
) -> None:
    args, make_it_raise = failing_command
    make_it_raise(TypeError("unsupported operand type(s)\nfor +: 'int' and 'str'"))
    result = invoke(*args)
    assert result.exit_code == 3
    assert "internal error: TypeError: unsupported operand" in one_line(result)


@pytest.mark.parametrize("failing_command", COMMANDS, indirect=True, ids=["audit", "gen", "demo"])
def test_an_interrupt_exits_130_with_one_line(
    invoke: Invoke, failing_command: tuple[list[str], Callable[[BaseException], None]]
) -> None:
    args, make_it_raise = failing_command
    make_it_raise(KeyboardInterrupt())
    result = invoke(*args)
    assert result.exit_code == 130
    assert "interrupted" in one_line(result)
    assert "Aborted" not in result.output


def _descendants(pid: int) -> list[int]:
    """Processes started by ``pid`` (from any of its threads) and by them, and so on."""
    children: list[str] = []
    with contextlib.suppress(FileNotFoundError):
        for thread in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):
                children += (thread / "children").read_text().split()
    return [int(c) for c in children] + [d for c in children for d in _descendants(int(c))]


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``signum``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@contextlib.contextmanager
def _assay_process(*args: str, cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """``assay ARGS`` in a session of its own, killed with all it started on the way out."""
    process = subprocess.Popen(
        [*ASSAY, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    sleeping = ("sandbox", "run", "--sandbox", "bubblewrap", "--timeout", "60", "sleep", "60")
    with _assay_process(*sleeping, cwd=tmp_path) as process:
        # Interrupt once the sandboxed command runs (bubblewrap and what it started).
        deadline = time.monotonic() + 30
        while len(_descendants(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_descendants(process.pid)) >= 2, "the sandbox never started"
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stdout == ""
    assert stderr.count("\n") == 1, stderr
    assert stderr.startswith("error: interrupted")


def test_audit_refuses_a_json_path_it_cannot_write_before_running(
    invoke: Invoke, median_dir: Path, tmp_path: Path
) -> None:
    for target in ("/nonexistent/a.json", "/proc/a.json"):
        result = invoke("audit", str(median_dir.parent), "--json", target)
        assert result.exit_code == 2, (target, result.output)
        assert target in one_line(result)
        assert result.stdout == ""
    assert not (tmp_path / "store.db").exists()


@pytest.mark.parametrize("flag", ["--json", "--html"])
def test_audit_refuses_a_report_link_that_loops_before_running(
    invoke: Invoke, median_dir: Path, tmp_path: Path, flag: str
) -> None:
    """It was an internal error (pathlib's RuntimeError), exit 3."""
    link = tmp_path / "report"
    link.symlink_to(link)
    result = invoke("audit", str(median_dir.parent), flag, str(link))
    assert result.exit_code == 2, result.output
    assert f"{link}: is a symbolic link that leads back to itself" in one_line(result)
    assert not (tmp_path / "store.db").exists()
    assert link.readlink() == link


def test_a_report_that_cannot_be_written_after_the_audit_is_one_line_and_the_run_is_kept(
    invoke: Invoke, median_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assay._output  # noqa: PLC0415 - patched only here

    monkeypatch.setattr(assay._output, "write_atomically", _raise(OSError(28, "No space left")))
    result = invoke("audit", str(median_dir.parent), "--json", str(tmp_path / "a.json"))
    assert result.exit_code == 3
    line = one_line(result)
    assert "cannot write the report: No space left" in line
    runs = json.loads(invoke("runs", "--json").stdout)
    assert runs[0]["run_id"] in line


@pytest.mark.parametrize("out", ["/proc/foo", "/dev/null/x"])
def test_generate_into_an_unwritable_place_is_one_line(invoke: Invoke, out: str) -> None:
    result = invoke("generate", "code", "--n", "1", "--out", out)
    assert result.exit_code == 2
    assert out in one_line(result)


def test_generate_never_replaces_task_directories_it_did_not_write(
    invoke: Invoke, tmp_path: Path
) -> None:
    first = invoke("generate", "code", "--n", "3", "--seed", "7", "--out", "tasks")
    assert first.exit_code == 0, first.output
    assert "wrote 3 tasks" in first.stdout
    again = invoke("generate", "code", "--n", "3", "--seed", "7", "--out", "tasks")
    assert again.exit_code == 0, again.output
    assert "wrote 0 tasks to tasks (3 already there, unchanged)" in again.stdout

    edited = sorted((tmp_path / "tasks").iterdir())[1]
    (edited / "prompt.md").write_text("my own careful rewording\n")
    (edited / "notes.txt").write_text("mine")
    more = invoke("generate", "code", "--n", "5", "--seed", "7", "--out", "tasks")
    assert more.exit_code == 2
    assert f"tasks/{edited.name}: already exists" in one_line(more)
    assert (edited / "prompt.md").read_text() == "my own careful rewording\n"
    assert (edited / "notes.txt").read_text() == "mine"
    assert len(list((tmp_path / "tasks").iterdir())) == 3, "nothing was written"
    assert load_task(edited).prompt == "my own careful rewording\n"


def test_generate_into_a_directory_of_other_files_keeps_them(
    invoke: Invoke, tmp_path: Path
) -> None:
    first = invoke("generate", "code", "--n", "2", "--seed", "7", "--out", "tasks")
    assert first.exit_code == 0, first.output
    ids = sorted(p.name for p in (tmp_path / "tasks").iterdir())
    mine = tmp_path / "mine"
    (mine / ids[1]).mkdir(parents=True)
    (mine / ids[1] / "results.csv").write_text("1,2\n")
    (mine / "notes.txt").write_text("mine")
    result = invoke("generate", "code", "--n", "2", "--seed", "7", "--out", "mine")
    assert result.exit_code == 2
    assert f"mine/{ids[1]}: already exists" in one_line(result)
    assert sorted(p.name for p in mine.iterdir()) == sorted([ids[1], "notes.txt"])
    assert [p.name for p in (mine / ids[1]).iterdir()] == ["results.csv"]

    (mine / ids[1] / "results.csv").unlink()
    (mine / ids[1]).rmdir()
    result = invoke("generate", "code", "--n", "2", "--seed", "7", "--out", "mine")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in mine.iterdir()) == sorted([*ids, "notes.txt"])
    assert (mine / "notes.txt").read_text() == "mine"


def test_demo_onto_a_directory_of_other_files_changes_nothing(
    invoke: Invoke, tmp_path: Path
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "data.csv").write_text("1,2\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "tasks").symlink_to(theirs)
    result = invoke("demo", "--out", "out", "--n", "1")
    assert result.exit_code == 2
    assert "out/tasks: already exists and was not written by assay demo" in one_line(result)
    assert [p.name for p in theirs.iterdir()] == ["data.csv"]
    assert (tmp_path / "out" / "tasks").is_symlink()


def test_demo_never_deletes_a_tasks_directory_it_did_not_write(
    invoke: Invoke, tmp_path: Path
) -> None:
    mine = tmp_path / "tasks" / "my-task"
    mine.mkdir(parents=True)
    (mine / "task.toml").write_text('id = "my-task"\n')
    result = invoke("demo", "--out", ".", "--n", "1")
    assert result.exit_code == 2
    assert "tasks: already exists and was not written by assay demo" in one_line(result)
    assert (mine / "task.toml").read_text() == 'id = "my-task"\n'
    assert not (tmp_path / "store.db").exists()

    (tmp_path / "audit.json").write_text("{}")
    (mine / "task.toml").unlink()
    mine.rmdir()
    result = invoke("demo", "--out", ".", "--n", "1")
    assert result.exit_code == 2
    assert "audit.json: already exists" in one_line(result)
    assert (tmp_path / "audit.json").read_text() == "{}"

    (tmp_path / "audit.json").unlink()
    (tmp_path / "profile.json").write_text("mine")
    result = invoke("demo", "--out", ".", "--n", "1")
    assert result.exit_code == 2
    assert "profile.json: already exists" in one_line(result)
    assert (tmp_path / "profile.json").read_text() == "mine"


def test_demo_replaces_what_an_earlier_demo_wrote(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Code and SQL tasks only: what is replaced does not depend on the family, and the demo of
    # every family (tests/test_end_to_end.py) takes minutes.
    monkeypatch.setattr(assay.demo, "DEMO_OTHERS", (("sql", 4),))
    first = invoke("demo", "--out", "out", "--n", "2")
    assert first.exit_code == 0, first.output
    tasks = tmp_path / "out" / "tasks"
    first_dirs = [d.name for d in tasks.iterdir() if d.is_dir()]
    assert len(first_dirs) == sum(assay.demo.demo_counts(2).values())
    assert len([name for name in first_dirs if name.startswith("code-")]) == 2
    second = invoke("demo", "--out", "out", "--n", "1")
    assert second.exit_code == 0, second.output
    second_dirs = [d.name for d in tasks.iterdir() if d.is_dir()]
    assert len(second_dirs) == sum(assay.demo.demo_counts(1).values())
    assert len([name for name in second_dirs if name.startswith("code-")]) == 1
    decisions = {
        t["decision"] for t in json.loads((tmp_path / "out" / "audit.json").read_text())["tasks"]
    }
    assert decisions == {"accepted"}
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]
    profile = json.loads((tmp_path / "out" / "profile.json").read_text())
    report = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert [t["task_id"] for t in profile["tasks"]] == [t["task_id"] for t in report["tasks"]]


def test_runs_as_json_gives_the_checks_as_a_list(invoke: Invoke, median_dir: Path) -> None:
    invoke("audit", str(median_dir.parent))
    [run] = json.loads(invoke("runs", "--json").stdout)
    assert run["checks"][:4] == ["lint", "reference", "known-bad", "empty"]


def test_help_imports_no_pydantic_rich_or_sandbox() -> None:
    probe = (
        "import sys\n"
        "from assay.cli import main\n"
        "sys.argv = ['assay', '--help']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pydantic', 'rich', 'assay.sandbox', 'assay.families', 'assay.store',\n"
        "         'assay.audit', 'assay.tasks')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert "Usage: assay" in result.stdout
    assert result.stderr.strip() == "[]"


def test_the_public_names_still_load_from_the_package() -> None:
    probe = "import assay; print(assay.load_task.__module__, assay.Status.PASS.value)"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["assay.tasks.taskdir", "pass"]


def test_the_command_lines_backends_are_the_sandboxes() -> None:
    assert BACKENDS == SANDBOX_BACKENDS


@pytest.fixture(autouse=True)
def _no_stray_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("ASSAY_") and n != "ASSAY_DB"]:
        monkeypatch.delenv(name)


def test_one_task_that_crashes_the_verifier_is_an_error_and_the_audit_kept(
    invoke: Invoke, median_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_task(make_median_task("median-2"), median_dir.parent)
    family = get_family("code")
    verify = family.verify

    def deep(task: Task, files: Files, sandbox: Sandbox) -> Verdict:
        if task.id == "median-2":
            raise RecursionError("maximum recursion depth exceeded")
        return verify(task, files, sandbox)

    def deep_many(items: Sequence[tuple[Task, Files]], sandbox: Sandbox) -> list[Verdict]:
        if any(task.id == "median-2" for task, _ in items):
            raise RecursionError("maximum recursion depth exceeded")
        return verify_many(items, sandbox)

    verify_many = family.verify_many  # type: ignore[attr-defined]
    monkeypatch.setattr(family, "verify", deep)  # the verifier crashes however it is asked
    monkeypatch.setattr(family, "verify_many", deep_many)
    result = invoke("audit", str(median_dir.parent), "--json", "report.json")
    assert result.exit_code == 3, result.output
    assert "2 tasks: 1 accepted, 0 rejected, 1 could not be audited (error)" in result.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    [crashed] = [t for t in report["tasks"] if t["task_id"] == "median-2"]
    assert crashed["decision"] == "error"
    assert "RecursionError: maximum recursion depth exceeded" in crashed["findings"][0]["evidence"]
    [run] = json.loads(invoke("runs", "--json").stdout)
    assert (run["accepted"], run["rejected"]) == (1, 0)


def test_a_report_gets_the_mode_a_new_file_gets(tmp_path: Path) -> None:
    import os  # noqa: PLC0415

    previous = os.umask(0o022)
    try:
        assay._output.write_atomically(tmp_path / "r.json", "{}")
    finally:
        os.umask(previous)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644


def test_a_report_replacing_a_private_file_stays_private(tmp_path: Path) -> None:
    """It got the umask's 0644, handing a private report to every user of the machine."""
    report = tmp_path / "r.json"
    report.write_text("{}")
    report.chmod(0o600)
    assay._output.write_atomically(report, '{"new": 1}')
    assert report.stat().st_mode & 0o777 == 0o600
    assert report.read_text() == '{"new": 1}'
    report.chmod(0o4755)  # a report written over a set-user-id file takes its bits, not that
    assay._output.write_atomically(report, "{}")
    assert stat.S_IMODE(report.stat().st_mode) == 0o755


def test_a_report_through_a_link_replaces_what_it_names_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    """The link was replaced by a file, and what it named kept the old report."""
    (tmp_path / "runs").mkdir()
    named = tmp_path / "runs" / "dec.json"
    named.write_text("old")
    latest = tmp_path / "latest.json"
    latest.symlink_to(named)
    assay._output.require_writable_file(latest)
    assay._output.write_atomically(latest, "new")
    assert latest.is_symlink()
    assert named.read_text() == "new"


def test_a_report_onto_a_link_that_loops_is_refused_and_the_links_kept(tmp_path: Path) -> None:
    """A link to itself, or round a chain of two, was replaced by a file (the link lost)."""
    itself = tmp_path / "r.json"
    itself.symlink_to(itself)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.symlink_to(second)
    second.symlink_to(first)
    for link in (itself, first):
        with pytest.raises(
            InputError,
            match=rf"{link.name}: is a symbolic link that leads back to itself, .* "
            r"\(remove the link, or point it at a file\)$",
        ):
            assay._output.require_writable_file(link)
        with pytest.raises(InputError, match="leads back to itself"):
            assay._output.write_atomically(link, "new")
    assert itself.readlink() == itself
    assert first.readlink() == second
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "r.json"]


def test_a_report_onto_a_fifo_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """A FIFO was probed as writable, then replaced by a file after the audit."""
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    with pytest.raises(
        InputError,
        match=r"r\.json: is a FIFO, socket or device: .* \(name a regular file to write\)$",
    ):
        assay._output.require_writable_file(fifo)


def test_sigterm_stops_an_audit_as_ctrl_c_does(tmp_path: Path) -> None:
    task = make_median_task("slow")
    slow = b"import time\ntime.sleep(15)\n" + REFERENCE
    task = task.model_copy(
        update={
            "solutions": {**task.solutions, "reference": {"solution.py": slow}},
            "spec": task.spec.model_copy(update={"limits": Limits(timeout_s=60, cpu_s=60)}),
        }
    )
    save_task(task, tmp_path / "tasks")
    auditing = ("audit", "tasks", "--checks", "reference", "--db", "s.db")
    with _assay_process(*auditing, cwd=tmp_path) as process:
        # Once the audit has taken SIGTERM over and its pool has started a worker (a loaded
        # machine takes seconds to import it all), and the reference's 15-second run has begun.
        deadline = time.monotonic() + 60
        while not (_catches(process.pid, signal.SIGTERM) and _descendants(process.pid)):
            assert time.monotonic() < deadline, "the audit never started its sandbox"
            assert process.poll() is None, "the audit ended before it was stopped"
            time.sleep(0.05)
        time.sleep(2.0)
        assert process.poll() is None, "the audit ended before it was stopped"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1].startswith("error: interrupted")
    with Store(tmp_path / "s.db") as store:
        assert store.audit_runs() == []  # nothing half-written
