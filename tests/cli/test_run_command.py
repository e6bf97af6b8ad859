"""``assay run``, ``runs``, ``verdicts --json``, ``show`` and ``export``: what a user sees, exit
codes, and one line naming the field and the fix for every bad input."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

from assay.episodes import Trajectory, read_jsonl
from assay.store import Store
from assay.tasks import save_task
from tests.conftest import REFERENCE, make_median_task
from tests.policies.server import VLLM_NO_TOOLS, ModelServer, Reply, serve
from tests.policies.server import Status as HTTPStatus

Run = Callable[..., Result]


@pytest.fixture
def tasks_dir(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    for index in range(2):
        save_task(make_median_task(f"median-{index}"), root)
    return root


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    yield from serve()


def one_line_error(result: Result, code: int = 2) -> str:
    """The one error line (after the run's own first line, when it had started)."""
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("run ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]


def test_a_run_reads_back_in_every_form(run_cli: Run, tasks_dir: Path, tmp_path: Path) -> None:
    ran = run_cli("run", str(tasks_dir), "--policy", "bad:unsorted", "--k", "2", "--run", "b")
    assert ran.exit_code == 0, ran.output
    assert "run b: 4 episodes (2 tasks x 2)" in ran.stderr
    assert "pass rate" in ran.stdout
    assert "0.0% of 4" in ran.stdout
    again = run_cli("run", str(tasks_dir), "--policy", "bad:unsorted", "--k", "2", "--run", "b")
    assert again.exit_code == 0
    assert "resuming run b: 4 of 4 episodes kept" in again.stderr
    run_cli("audit", str(tasks_dir))
    runs = json.loads(run_cli("runs", "--json").stdout)
    assert sorted(r["kind"] for r in runs) == ["audit", "rollout"]
    [rollout] = [r for r in runs if r["kind"] == "rollout"]
    assert (rollout["name"], rollout["policy"], rollout["done"], rollout["failed"]) == (
        "b",
        "bad:unsorted",
        4,
        4,
    )
    assert "rollout" in run_cli("runs").stdout
    items = json.loads(run_cli("verdicts", "--run", "b", "--json").stdout)
    assert sorted((i["task_id"], i["sample"]) for i in items) == [
        ("median-0", 0),
        ("median-0", 1),
        ("median-1", 0),
        ("median-1", 1),
    ]
    assert {(i["status"], i["score"]) for i in items} == {("fail", 0.6)}
    assert items[0]["verdict"]["status"] == "fail"
    shown = run_cli("show", "b", "median-1", "--sample", "1")
    assert shown.exit_code == 0
    assert "median-1 sample 1  FAIL" in shown.stdout
    assert "→ write_file(" in shown.stdout
    records = json.loads(run_cli("show", "b", "--json").stdout)
    assert len(records) == 4
    assert records[0]["trajectory"]["verdict"]["status"] == "fail"
    out = tmp_path / "b.jsonl"
    exported = run_cli("export", "trajectories", "b", "--kind", "full", "--out", str(out))
    assert exported.exit_code == 0
    assert [t.task_id for t in read_jsonl(out)] == ["median-0", "median-0", "median-1", "median-1"]


def test_a_model_run_end_to_end_over_http(
    run_cli: Run, tasks_dir: Path, model_server: ModelServer
) -> None:
    model_server.models = ["test-model"]
    model_server.play(Reply(content=f"```python\n{REFERENCE.decode()}```"))
    args = ["--policy", "openai:test-model", "--base-url", model_server.base_url]
    ran = run_cli("run", str(tasks_dir), *args, "--k", "2", "--mode", "single", "--seed", "3")
    assert ran.exit_code == 0, ran.output
    assert "100.0% of 4" in ran.stdout
    assert "400 / 80" in ran.stdout
    # sample i of each task is sent seed + i: k samples are k draws, not one draw k times
    assert sorted(r.get("seed") for r in model_server.requests) == [3, 3, 4, 4]


def test_an_unreachable_model_server_is_one_line_and_exit_3_before_any_episode(
    run_cli: Run, tasks_dir: Path, tmp_path: Path
) -> None:
    args = ["--policy", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--run", "x"]
    line = one_line_error(run_cli("run", str(tasks_dir), *args), code=3)
    assert "cannot reach the model endpoint at http://127.0.0.1:9/v1" in line
    with Store(tmp_path / "store.db") as store:
        assert store.runs() == []


def test_a_server_without_tool_calling_stops_a_tools_run_before_any_episode(
    run_cli: Run, tasks_dir: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.models = ["test-model"]
    model_server.tools_refused = VLLM_NO_TOOLS
    model_server.play(Reply(content=f"```python\n{REFERENCE.decode()}```"))
    args = ["--policy", "openai:test-model", "--base-url", model_server.base_url, "--run", "t"]
    line = one_line_error(run_cli("run", str(tasks_dir), *args, "--mode", "tools"))
    assert "does not take tool calls" in line
    assert "--mode single" in line
    assert model_server.requests == []  # no episode asked anything
    with Store(tmp_path / "store.db") as store:
        assert store.runs() == []
    ran = run_cli("run", str(tasks_dir), *args, "--mode", "single")  # the same server, one turn
    assert ran.exit_code == 0, ran.output
    assert "100.0% of 2" in ran.stdout


def test_episodes_ending_in_error_exit_3_and_are_retried_on_resume(
    run_cli: Run, tasks_dir: Path, model_server: ModelServer
) -> None:
    model_server.models = ["test-model"]
    model_server.play(HTTPStatus(404, "no such route"))
    args = ["--policy", "openai:test-model", "--base-url", model_server.base_url, "--run", "e"]
    failed = run_cli("run", str(tasks_dir), *args, "--attempts", "1", "--mode", "single")
    line = one_line_error(failed, code=3)
    assert "2 episodes ended in error (infrastructure, not scored)" in line
    assert "errors (not scored)" in failed.stdout
    items = json.loads(run_cli("verdicts", "--run", "e", "--json").stdout)
    assert {(i["status"], i["score"]) for i in items} == {("error", None)}
    model_server.play(Reply(content=f"```python\n{REFERENCE.decode()}```"))
    resumed = run_cli("run", str(tasks_dir), *args, "--attempts", "1", "--mode", "single")
    assert resumed.exit_code == 0, resumed.output
    assert "2 that ended in error or without a score queued again" in resumed.stderr
    items = json.loads(run_cli("verdicts", "--run", "e", "--json").stdout)
    assert {(i["status"], i["score"]) for i in items} == {("pass", 1.0)}


def _broken_task(tasks_dir: Path) -> None:
    (tasks_dir / "median-1" / "task.toml").write_text("id = [")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--run", "a b"], "run: 'a b' is not a run name (use letters, digits"),
        (["--policy", "nope"], "policy: unknown policy 'nope' (use one of:"),
        (["--policy", "bad:absent"], "policy: task median-0 has no known-bad solution bad-absent"),
        (["--policy", "replay:gone"], "policy: no rollout run 'gone' to replay"),
        (["--prices", "PRICES"], "prices.toml: not valid toml"),
        (["TASKS=missing"], "missing: no such directory"),
        (["BROKEN"], "task.toml: not valid TOML"),
    ],
)
def test_bad_input_to_run_is_one_line_and_exit_2(
    run_cli: Run, tasks_dir: Path, tmp_path: Path, args: list[str], said: str
) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text("[m\n")
    target = str(tasks_dir)
    if args == ["TASKS=missing"]:
        target, args = str(tmp_path / "missing"), []
    if args == ["BROKEN"]:
        _broken_task(tasks_dir)
        args = []
    args = [str(prices) if a == "PRICES" else a for a in args]
    base = {"--policy": "reference"}
    flags = [f for pair in base.items() for f in pair if pair[0] not in args]
    line = one_line_error(run_cli("run", target, *flags, *args))
    assert said in line


def test_resuming_with_other_options_says_what_differs(run_cli: Run, tasks_dir: Path) -> None:
    assert run_cli("run", str(tasks_dir), "--policy", "reference", "--run", "r").exit_code == 0
    other = run_cli("run", str(tasks_dir), "--policy", "empty", "--k", "2", "--run", "r")
    line = one_line_error(other)
    assert "run 'r' was started with policy reference, not empty; k 1, not 2" in line


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0", "'--max-turn-seconds': 0.0 is not in the range 0<x<=86400"),
        ("-5", "'--max-turn-seconds': -5.0 is not in the range 0<x<=86400"),
        ("inf", "'--max-turn-seconds': inf is not in the range 0<x<=86400"),
        ("nan", "'--max-turn-seconds': 'nan' is not a number"),
        ("soon", "'--max-turn-seconds': 'soon' is not a valid float"),
    ],
)
def test_a_bad_turn_time_limit_is_one_line_naming_the_option(
    run_cli: Run, tasks_dir: Path, tmp_path: Path, value: str, said: str
) -> None:
    ran = run_cli("run", str(tasks_dir), "--policy", "reference", "--max-turn-seconds", value)
    line = one_line_error(ran)
    assert said in line
    assert line.endswith(" run --help`)")
    assert not (tmp_path / "store.db").exists()


def test_a_turn_slower_than_its_time_limit_is_cut_off_and_fails(
    run_cli: Run, tasks_dir: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.models = ["test-model"]
    model_server.play(Reply(content=f"```python\n{REFERENCE.decode()}```", delay_s=3.0))
    args = ["--policy", "openai:test-model", "--base-url", model_server.base_url, "--run", "t"]
    ran = run_cli("run", str(tasks_dir), *args, "--mode", "single", "--max-turn-seconds", "0.5")
    assert ran.exit_code == 0, ran.output
    [episode, _] = read_back(tmp_path / "store.db", "t")
    assert episode.budget.max_turn_s == 0.5
    assert episode.end.value == "budget"
    assert episode.end_detail.startswith("turn time limit passed (0.5 s)")
    # a model's retries that cannot all fit in a turn are said before the run, in one line
    [warning] = [line for line in ran.stderr.splitlines() if line.startswith("warning:")]
    assert warning.startswith(
        "warning: --max-turn-seconds: a turn may take 0.5 s, but openai:test-model may take "
        "720 s to answer one (5 attempts of up to 120 s, up to 30 s apart)"
    )
    resumed = run_cli("run", str(tasks_dir), *args, "--mode", "single")
    line = one_line_error(resumed)
    assert "run 't' was started with max-turn-seconds 0.5, not 1800" in line


def test_a_turn_time_limit_that_holds_a_models_retries_says_nothing(
    run_cli: Run, tasks_dir: Path, model_server: ModelServer
) -> None:
    model_server.models = ["test-model"]
    model_server.play(Reply(content=f"```python\n{REFERENCE.decode()}```"))
    args = ["--policy", "openai:test-model", "--base-url", model_server.base_url]
    ran = run_cli("run", str(tasks_dir), *args, "--mode", "single", "--max-turn-seconds", "720")
    assert ran.exit_code == 0, ran.output
    assert "warning" not in ran.stderr
    assert "100.0% of 2" in ran.stdout


def read_back(db: Path, run: str) -> list[Trajectory]:
    with Store(db) as store:
        return [episode.trajectory for episode in store.episodes(run)]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["show", "nope"], "run: no rollout run 'nope' (`assay runs` lists the runs)"),
        (["show", "r", "median-9"], "run: run 'r' holds no finished episode of task median-9"),
        (["export", "trajectories", "nope", "--out", "out.jsonl"], "no rollout run 'nope'"),
        (
            ["export", "trajectories", "r", "--kind", "full", "--out", "DIR/no/out.jsonl"],
            "cannot write here: no directory",
        ),
    ],
)
def test_bad_input_to_show_and_export_is_one_line_and_exit_2(
    run_cli: Run, tasks_dir: Path, tmp_path: Path, args: list[str], said: str
) -> None:
    assert run_cli("run", str(tasks_dir), "--policy", "reference", "--run", "r").exit_code == 0
    args = [a.replace("DIR", str(tmp_path)) for a in args]
    assert said in one_line_error(run_cli(*args))


def test_progress_counts_outcomes_as_they_come() -> None:
    from rich.progress import Progress  # noqa: PLC0415

    from assay._render_runs import RunProgress  # noqa: PLC0415
    from assay.runs import Outcome  # noqa: PLC0415
    from assay.store import JobCounts  # noqa: PLC0415
    from assay.verdicts import Status  # noqa: PLC0415

    with Progress(disable=True) as bar:
        progress = RunProgress(bar, JobCounts(total=5, done=1, passed=1))
        progress(Outcome("t", 0, Status.FAIL))
        progress(Outcome("t", 1, None, "down"))
        progress(Outcome("t", 1, Status.ERROR, "down"))
        progress(Outcome("t", 2, Status.PASS, kept=False))
        [task] = bar.tasks
    assert task.completed == 3
    assert "pass 1  fail 1  error 1  retried 1" in task.fields["tally"]


def test_progress_in_a_log_counts_the_episodes_done_before_a_resume() -> None:
    import io  # noqa: PLC0415

    from rich.progress import Progress  # noqa: PLC0415

    from assay._render import ProgressLines  # noqa: PLC0415
    from assay._render_runs import RunProgress  # noqa: PLC0415
    from assay.runs import Outcome  # noqa: PLC0415
    from assay.store import JobCounts  # noqa: PLC0415
    from assay.verdicts import Status  # noqa: PLC0415

    stream = io.StringIO()
    lines = ProgressLines("episodes", 5, stream=stream, every=0)
    with Progress(disable=True) as bar:
        progress = RunProgress(bar, JobCounts(total=5, done=1, passed=1), lines)
        progress(Outcome("t", 0, Status.FAIL))
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("episodes: 2 of 5 after 0 s, pass 1  fail 1")
