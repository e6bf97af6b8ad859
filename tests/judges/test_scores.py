"""Rubric scores on verdicts: the README's example as written, judges in verify, status kept on
correctness, no made-up score when a judge fails, and verdicts stored before scores still load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.audit import default_checks
from assay.families.code import CodeFamily
from assay.sandbox import Sandbox
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task
from tests.judges import scripted
from tests.judges.conftest import JudgeServer, closed_port

README = Path(__file__).parents[2] / "README.md"
family = CodeFamily()


def readme_rubric() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Rubrics, judges and scores", 1)[1].split("\n## ", 1)[0]
    return section.split("```toml\n", 1)[1].split("```\n", 1)[0]


def readme_task() -> Task:
    task = make_median_task()
    hidden = {**task.hidden, "rubric.toml": readme_rubric().encode()}
    return task.model_copy(update={"hidden": hidden})


@pytest.fixture
def judged(judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> JudgeServer:
    monkeypatch.setenv("ASSAY_JUDGE_BASE_URL", judge_server.base_url)
    judge_server.responder = lambda body: scripted.answer(body, 8)
    return judge_server


def test_the_readme_rubric_scores_the_reference(judged: JudgeServer, sandbox: Sandbox) -> None:
    verdict = family.verify(readme_task(), {"solution.py": REFERENCE}, sandbox)
    assert verdict.status is Status.PASS
    assert verdict.scored
    rubric = {c.name: c for c in verdict.criteria if c.part == "rubric"}
    assert list(rubric) == ["correctness", "fast", "tidy", "documented"]
    assert [c.weight for c in rubric.values()] == [0.6, 0.2, 0.1, 0.1]
    assert rubric["correctness"].value == 1.0
    # the reference timed against itself: within the noise (a busy machine still leaves some)
    assert rubric["fast"].passed, rubric["fast"].evidence
    documented = rubric["documented"]
    assert (documented.kind, documented.score) == ("judge", 0.8)
    assert documented.judge is not None
    assert "Does median have a docstring" in documented.judge.prompt
    weighted = sum(c.weight * c.value for c in rubric.values())
    assert verdict.score == pytest.approx(weighted)
    assert verdict.versions.rubric is not None
    assert verdict.versions.rubric.startswith("rubric@1:")
    [judge] = verdict.versions.judges
    assert (judge.criterion, judge.model, judge.served_model) == (
        "documented",
        "judge-model",
        "judge-v1",
    )
    assert judge.base_url == judged.base_url
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict


def test_a_failing_submission_keeps_its_fail_and_no_judge_is_asked(
    judged: JudgeServer, sandbox: Sandbox
) -> None:
    verdict = family.verify(readme_task(), {"solution.py": BAD_NO_SORT}, sandbox)
    assert verdict.status is Status.FAIL
    assert verdict.scored
    assert judged.requests == []
    assert verdict.score < 0.6


def test_an_unreachable_judge_leaves_the_status_and_gives_no_score(
    monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox
) -> None:
    monkeypatch.setenv("ASSAY_JUDGE_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    rubric = readme_rubric().replace("scale = 10", "scale = 10\nretries = 0")
    task = readme_task()
    task = task.model_copy(update={"hidden": {**task.hidden, "rubric.toml": rubric.encode()}})
    verdict = family.verify(task, {"solution.py": REFERENCE}, sandbox)
    assert verdict.status is Status.PASS
    assert not verdict.scored
    assert verdict.score == 0.0
    assert verdict.score_error is not None
    assert verdict.score_error.startswith("documented: the judge could not be reached")
    assert "no score" in verdict.summary
    [documented] = [c for c in verdict.criteria if c.name == "documented"]
    assert documented.status is Status.ERROR


OLD: dict[str, Any] = {
    "task_id": "median-1",
    "status": "fail",
    "criteria": [
        {"name": "case-0", "passed": True, "weight": 1.0, "evidence": "matches"},
        {"name": "case-1", "passed": False, "weight": 1.0, "evidence": "expected 2, got 1"},
    ],
    "summary": "1/2 cases passed",
    "timings": {"wall_s": 0.1},
    "versions": {"task": "abc", "family": "code@2", "assay": "0.1.0"},
    "created_at": "2026-11-01T00:00:00Z",
}


def test_verdicts_stored_before_scores_and_rubrics_still_load() -> None:
    old = Verdict.model_validate(OLD)
    assert (old.status, old.score, old.score_error, old.scored) == (Status.FAIL, 0.5, None, True)
    assert old.criteria[0].part == "check"
    assert old.versions.rubric is None
    assert old.versions.judges == ()
    errored = Verdict.model_validate({**OLD, "status": "error"})
    assert (errored.score, errored.scored) == (0.0, False)
    stored = Verdict.model_validate({**OLD, "score": 0.25})
    assert stored.score == 0.25


def test_the_judge_red_team_check_runs_in_every_audit() -> None:
    assert "judge-red-team" in [check.name for check in default_checks()]
