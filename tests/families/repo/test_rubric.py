"""The optional weighted criteria: they shape the score, never the status."""

from __future__ import annotations

import pytest

from assay.families.repo import RepoFamily
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status

pytestmark = pytest.mark.sandbox
FAMILY = RepoFamily()
RUBRIC = {"correctness": 1.0, "visible_tests": 0.5, "diff_size": 0.5, "style": 0.5}


def _with_rubric(task: Task) -> Task:
    config = {**task.spec.config, "rubric": RUBRIC}
    return task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})


def _scores(task: Task, files: dict[str, bytes], pool: PoolSandbox) -> dict[str, float | None]:
    verdict = FAMILY.verify(task, files, pool)
    return {c.name: c.score for c in verdict.criteria if c.part == "rubric"} | {
        "status": 1.0 if verdict.status is Status.PASS else 0.0,
        "total": verdict.score,
    }


def test_the_reference_scores_full_marks(pool: PoolSandbox, decimal_comma: Task) -> None:
    task = _with_rubric(decimal_comma)
    scores = _scores(task, task.solutions["reference"], pool)
    assert scores == {
        "correctness": 1.0,
        "visible-tests": 1.0,
        "diff-size": 1.0,
        "style": 1.0,
        "status": 1.0,
        "total": 1.0,
    }


def test_a_fix_that_leaves_the_tests_broken_passes_with_a_lower_score(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    task = _with_rubric(decimal_comma)
    fixed_code_only = {
        **task.solutions["reference"],
        "tests/test_export.py": task.workspace["tests/test_export.py"],
    }
    scores = _scores(task, fixed_code_only, pool)
    assert scores["status"] == 1.0
    assert scores["visible-tests"] == 0.0
    assert scores["total"] is not None
    assert scores["total"] < 1.0


def test_a_sprawling_untidy_fix_loses_on_size_and_style(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    task = _with_rubric(decimal_comma)
    reference = task.solutions["reference"]
    path = "rota/export.py"
    padding = "".join(f"UNUSED_{i} = {i}\n" for i in range(40))
    untidy = reference[path].decode().replace("from rota.times", "import os\nfrom rota.times", 1)
    scores = _scores(task, {**reference, path: (untidy + padding).encode()}, pool)
    assert scores["status"] == 1.0
    assert scores["diff-size"] == 0.0
    assert scores["style"] is not None
    assert scores["style"] < 1.0


def test_editing_the_tests_to_pass_still_fails(pool: PoolSandbox, decimal_comma: Task) -> None:
    task = _with_rubric(decimal_comma)
    scores = _scores(task, task.solutions["bad-edited-tests"], pool)
    assert scores["status"] == 0.0
    assert scores["visible-tests"] == 1.0
    assert scores["correctness"] is not None
    assert scores["correctness"] < 1.0


def test_doing_nothing_scores_nothing_under_a_rubric(
    pool: PoolSandbox, decimal_comma: Task
) -> None:
    """The project as given keeps its tests passing, changes no line and writes nothing untidy:
    those criteria scale correctness and never add to it, so doing nothing scores 0."""
    task = _with_rubric(decimal_comma)
    scores = _scores(task, FAMILY.empty_solution(task), pool)
    assert scores["status"] == 0.0
    assert scores["visible-tests"] == scores["diff-size"] == scores["style"] == 1.0
    assert scores["total"] == 0.0
    fixed_code_only = {
        **task.solutions["reference"],
        "tests/test_export.py": task.workspace["tests/test_export.py"],
    }
    scores = _scores(task, fixed_code_only, pool)  # every case, its tests left broken
    assert scores["total"] == pytest.approx(2 / 3)  # 1 x (0 x 0.5 + 1 x 0.5 + 1 x 0.5) / 1.5
