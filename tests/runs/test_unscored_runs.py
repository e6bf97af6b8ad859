"""An episode whose verdict has no score (a rubric's judge could not be reached: the status
stands, the score does not) is infrastructure's failure, as an error is: retried within the
run, kept apart after its attempts, and run again when the run is resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.policies import parse_policy
from assay.runs import RunSpec, start_run
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.tasks import Task
from tests.conftest import make_median_task
from tests.integrations.test_unscored import UNREACHABLE_JUDGE
from tests.runs.conftest import FAST, run_tasks


@pytest.fixture
def judged_by_nobody(monkeypatch: pytest.MonkeyPatch) -> Task:
    monkeypatch.setenv("ASSAY_JUDGE_API_KEY", "unused")
    task = make_median_task("median-1")
    return task.model_copy(update={"hidden": {**task.hidden, "rubric.toml": UNREACHABLE_JUDGE}})


def test_an_episode_without_a_score_is_retried_and_reopened_on_resume(
    pool: PoolSandbox, judged_by_nobody: Task, tmp_path: Path
) -> None:
    policy = parse_policy("reference")
    with Store(tmp_path / "assay.db") as store:
        counts, outcomes = run_tasks(store, "judged", [judged_by_nobody], policy, pool, k=1)
        # two attempts queued again, the third kept: its pass stands, without a score
        assert [outcome.status for outcome in outcomes] == [None, None, "pass"]
        assert all(
            "no score: documented: the judge could not be reached" in o.detail for o in outcomes
        )
        assert (counts.done, counts.passed, counts.errors) == (1, 1, 0)
        assert store.unscored("judged") == 1
        [kept] = store.verdicts(run_id="judged")
        assert kept.verdict.score_error is not None
        # resumed, it is run again with fresh attempts, never left as it was
        spec = RunSpec.of([judged_by_nobody], root="tasks", policy=policy.spec, k=1, mode="tools")
        assert start_run(store, "judged", spec).reopened == 1
        assert store.job_counts("judged", now=0).done == 0
        assert store.verdicts(run_id="judged") == []
        assert store.episodes("judged") == []
        counts, outcomes = run_tasks(store, "judged", [judged_by_nobody], policy, pool, k=1)
        assert len(outcomes) == FAST.max_attempts
        assert (counts.done, counts.passed, store.unscored("judged")) == (1, 1, 1)


def test_a_scored_episode_is_kept_at_once_and_left_alone_on_resume(
    pool: PoolSandbox, tmp_path: Path
) -> None:
    task = make_median_task("median-1")
    policy = parse_policy("reference")
    with Store(tmp_path / "assay.db") as store:
        _, outcomes = run_tasks(store, "scored", [task], policy, pool, k=1)
        assert [outcome.status for outcome in outcomes] == ["pass"]
        assert store.unscored("scored") == 0
        spec = RunSpec.of([task], root="tasks", policy=policy.spec, k=1, mode="tools")
        assert start_run(store, "scored", spec).reopened == 0
        assert len(store.verdicts(run_id="scored")) == 1
