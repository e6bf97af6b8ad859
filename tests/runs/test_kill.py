"""``assay run`` as a process: killed with SIGKILL again and again, interrupted with Ctrl-C, two
runners sharing one run. Every episode is kept exactly once, whatever happens to the runners."""

from __future__ import annotations

import dataclasses
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from tests.conftest import REFERENCE
from tests.policies.server import ModelServer, Reply
from tests.runs.conftest import assay, assert_each_episode_kept_once, finish

TOTAL = 12  # 3 tasks x k 4
SLOW_ANSWER = Reply(content=f"```python\n{REFERENCE.decode()}```\n", delay_s=0.1)
# Slow enough that the runner cannot end the nine or more episodes left after a kill while this
# test, starved of CPU on a loaded machine, waits to see one more: the last kill must land midway.
SLOWER_ANSWER = dataclasses.replace(SLOW_ANSWER, delay_s=0.4)


def run_args(tasks_dir: Path, server: ModelServer, name: str) -> list[str]:
    return [
        "run",
        str(tasks_dir),
        "--policy",
        "openai:test-model",
        "--base-url",
        server.base_url,
        "--k",
        "4",
        "--mode",
        "single",
        "--run",
        name,
        "--max-requests",
        "2",
    ]


def done_episodes(db: Path, run: str) -> int:
    """Jobs of ``run`` marked done, read from another connection (0 before the run exists)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            row = connection.execute(
                "SELECT COUNT(*) FROM jobs WHERE run_name = ? AND state = 'done'", (run,)
            ).fetchone()
    except sqlite3.OperationalError:  # the tables are not there yet
        return 0
    return int(row[0])


def wait_for_more_than(db: Path, run: str, count: int, process: object) -> int:
    """Wait (up to a minute) until the run has more than ``count`` episodes done."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = done_episodes(db, run)
        if done > count:
            return done
        assert getattr(process, "poll")() is None, "the runner ended early"  # noqa: B009
        time.sleep(0.02)
    raise AssertionError(f"no progress past {count} episodes")


def test_sigkill_again_and_again_then_resume_keeps_each_episode_once(
    tmp_path: Path, tasks_dir: Path, model_server: ModelServer
) -> None:
    model_server.models = ["test-model"]
    model_server.play(SLOWER_ANSWER)
    db = tmp_path / "s.db"
    done = 0
    for _ in range(3):  # killed as soon as it has kept one more episode
        runner = assay(*run_args(tasks_dir, model_server, "killed"), db=db)
        done = wait_for_more_than(db, "killed", done, runner)
        runner.send_signal(signal.SIGKILL)
        runner.communicate()
    kept = done_episodes(db, "killed")
    assert kept < TOTAL  # the last kill was in the middle of the run
    code, out, err = finish(assay(*run_args(tasks_dir, model_server, "killed"), db=db))
    assert code == 0, err
    assert f"resuming run killed: {kept} of 12 episodes kept" in err
    assert "12 of 12" in out
    assert_each_episode_kept_once(db, "killed", TOTAL)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_cleanly_with_130_and_the_run_resumes(
    tmp_path: Path, tasks_dir: Path, model_server: ModelServer, stop: signal.Signals
) -> None:
    model_server.models = ["test-model"]
    model_server.play(SLOW_ANSWER)
    db = tmp_path / "s.db"
    runner = assay(*run_args(tasks_dir, model_server, "stopped"), db=db)
    wait_for_more_than(db, "stopped", 0, runner)
    runner.send_signal(stop)
    code, _, err = finish(runner)
    assert code == 130, err
    # after the run's first line, and any progress line (one each 30 s on a slow machine)
    lines = [line for line in err.splitlines()[1:] if not line.startswith("episodes: ")]
    assert len(lines) == 1, err
    [line] = lines
    assert line.startswith("error: interrupted; ")
    assert "episodes are kept in" in line
    assert line.endswith("run the same command with --run stopped to continue")
    with sqlite3.connect(db) as connection:
        leased = connection.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'")
        assert leased.fetchone() == (0,)
    code, _, err = finish(assay(*run_args(tasks_dir, model_server, "stopped"), db=db))
    assert code == 0, err
    assert_each_episode_kept_once(db, "stopped", TOTAL)


def test_sigterm_stops_a_run_started_in_background_where_ctrl_c_is_ignored(
    tmp_path: Path, tasks_dir: Path, model_server: ModelServer
) -> None:
    """A shell starts a background job with SIGINT ignored; SIGTERM must still stop it."""
    model_server.models = ["test-model"]
    model_server.play(SLOW_ANSWER)
    db = tmp_path / "s.db"
    ignore_ctrl_c = lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)  # noqa: E731
    runner = assay(*run_args(tasks_dir, model_server, "bg"), db=db, preexec_fn=ignore_ctrl_c)
    wait_for_more_than(db, "bg", 0, runner)
    runner.send_signal(signal.SIGTERM)
    code, _, err = finish(runner)
    assert code == 130, err
    # stopped as Ctrl-C stops a run: the episodes under way are stopped in order (no
    # KeyboardInterrupt torn through whatever task the signal landed in), their jobs given back
    lines = [line for line in err.splitlines()[1:] if not line.startswith("episodes: ")]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: interrupted; "), err
    with sqlite3.connect(db) as connection:
        leased = connection.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'")
        assert leased.fetchone() == (0,)


def test_two_runners_share_one_run_without_duplicates(
    tmp_path: Path, tasks_dir: Path, model_server: ModelServer
) -> None:
    model_server.models = ["test-model"]
    model_server.play(SLOW_ANSWER)
    db = tmp_path / "s.db"
    first = assay(*run_args(tasks_dir, model_server, "shared"), db=db)
    second = assay(*run_args(tasks_dir, model_server, "shared"), db=db)
    for process in (first, second):
        code, out, err = finish(process)
        assert code == 0, err
        assert "12 of 12" in out
    assert_each_episode_kept_once(db, "shared", TOTAL)
