"""What rewards keep between batches: the error count of each batch is that batch's, however
the calls interleave, the totals add up over a run, and a task set rewritten on disk during a
run is the one the next batch is judged against."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from assay.errors import InputError
from assay.integrations.rewards import Judge, judge_for
from assay.integrations.trl import AssayRewards
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import save_task
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task
from tests.integrations.test_rewards import Flaky

GOOD = f"```python\n{REFERENCE.decode()}```\n"
LOST = f"```python\n{BAD_NO_SORT.decode()}```\n"  # the sandbox fails every job that holds it


def _rewards(pool: PoolSandbox) -> AssayRewards:
    doomed: Sandbox = Flaky(pool, failures=0, doomed=b"middle = len(values) // 2")  # type: ignore[assignment]
    return AssayRewards([make_median_task()], sandbox=doomed, retries=0)


def test_errors_reports_the_batch_it_is_given_not_the_last_one_judged(
    pool: PoolSandbox,
) -> None:
    rewards = _rewards(pool)
    first, second = [GOOD, LOST], [GOOD, GOOD + "\n"]
    ids = ["median-1"] * 2
    rewards.reward(["p"] * 2, first, task_id=ids)
    rewards.reward(["p"] * 2, second, task_id=ids)  # another thread's batch, judged meanwhile
    assert rewards.errors(["p"] * 2, first, task_id=ids) == [0.0, 1.0]
    assert rewards.errors(["p"] * 2, second, task_id=ids) == [0.0, 0.0]
    # listed before the reward, it would report the previous batch's errors as this one's
    with pytest.raises(InputError, match=r"list rewards\.errors after rewards\.reward"):
        rewards.errors(["p"] * 2, [LOST, LOST], task_id=ids)


def test_the_totals_add_up_over_batches_judged_from_many_threads(pool: PoolSandbox) -> None:
    rewards = _rewards(pool)
    ids = ["median-1"] * 2
    seen: dict[int, list[float]] = {}
    all_judged = threading.Barrier(6)

    def batch(index: int) -> None:
        answers = [GOOD + "\n" * index, LOST if index % 2 else GOOD]
        rewards.reward(["p"] * 2, answers, task_id=ids)
        all_judged.wait(timeout=120)  # every batch judged before any error is asked for
        seen[index] = rewards.errors(["p"] * 2, answers, task_id=ids)

    threads = [threading.Thread(target=batch, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {i: [0.0, 1.0 if i % 2 else 0.0] for i in range(6)}
    assert (rewards.judged, rewards.unjudged) == (9, 3)


@pytest.fixture
def watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A task directory of one task, looked at again before every batch."""
    monkeypatch.setattr("assay.integrations.rewards.RECHECK_S", 0.0)
    root = tmp_path / "tasks"
    save_task(make_median_task(), root)
    return root


def _rewrite(root: Path) -> None:
    """Edit the first case of ``root``'s median-1 in place, as a person would: one character,
    the file's size unchanged, so that the reference answer is now wrong."""
    path = root / "median-1" / "hidden" / "cases.json"
    text = path.read_text()
    assert '"expected": 2\n' in text
    path.write_text(text.replace('"expected": 2\n', '"expected": 3\n', 1))


def test_a_task_set_rewritten_during_a_run_is_the_one_judged_next(
    pool: PoolSandbox, watched: Path
) -> None:
    root = watched
    judge = Judge(root, sandbox=pool)
    [before] = judge.judge(["median-1"], [GOOD])
    assert before.score == 1.0
    _rewrite(root)  # a task edited in place: the reference answer is now wrong
    [after] = judge.judge(["median-1"], [GOOD])
    assert after.score is not None
    assert after.score < 1.0
    # a new release written in place: median-1 gone, median-2 new
    save_task(make_median_task("median-2"), root)
    for leftover in sorted((root / "median-1").rglob("*"), reverse=True):
        leftover.unlink() if leftover.is_file() else leftover.rmdir()
    (root / "median-1").rmdir()
    [released] = judge.judge(["median-2"], [GOOD])
    assert released.score == 1.0
    with pytest.raises(InputError, match="no task 'median-1'"):
        judge.judge(["median-1"], [GOOD])


def test_the_judge_for_a_directory_reloads_it_when_it_changes(
    pool: PoolSandbox, watched: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("assay.integrations._pool._pool", pool)
    root = watched
    [before] = judge_for(root).judge(["median-1"], [GOOD])
    _rewrite(root)
    [after] = judge_for(root).judge(["median-1"], [GOOD])
    assert (before.score, after.score is not None and after.score < 1.0) == (1.0, True)
    unchanged = judge_for(root).tasks
    judge_for(root).judge(["median-1"], [GOOD])  # judging reads the files, changing none
    assert judge_for(root).tasks is unchanged  # nothing changed: nothing loaded again


def test_a_directory_that_is_gone_is_refused_in_one_line(
    pool: PoolSandbox, watched: Path, tmp_path: Path
) -> None:
    root = watched
    judge = Judge(root, sandbox=pool)
    root.rename(tmp_path / "moved")
    with pytest.raises(InputError, match="no such directory"):
        judge.judge(["median-1"], [GOOD])


def test_a_look_at_the_directory_stands_for_recheck_seconds(
    pool: PoolSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a reward called once a response would otherwise stat the whole set on every call
    monkeypatch.setattr("assay.integrations.rewards.RECHECK_S", 0.5, raising=False)
    root = tmp_path / "tasks"
    save_task(make_median_task(), root)
    judge = Judge(root, sandbox=pool)
    _rewrite(root)
    [within] = judge.judge(["median-1"], [GOOD])
    time.sleep(0.55)
    [after] = judge.judge(["median-1"], [GOOD])
    assert within.score == 1.0
    assert after.score is not None
    assert after.score < 1.0
