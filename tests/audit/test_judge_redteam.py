"""The judge red-team check against a judge that needs no flattery: one that pays the do-nothing
answer as it is can be outscored by no attack, and must be held for a person all the same."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.audit import AuditContext, Decision, Severity
from assay.audit.judge_redteam import JudgeRedTeamCheck
from assay.audit.report import decide
from assay.families.code import CodeFamily
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from tests.conftest import make_median_task
from tests.judges import scripted
from tests.judges.conftest import JudgeServer
from tests.policies.server import Reply, serve


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    yield from serve(JudgeServer)


def _task(base_url: str) -> Task:
    rubric = (
        "[[criteria]]\n"
        'name = "right"\nkind = "judge"\nmodel = "judge-model"\n'
        'question = "Does median return the median of the list?"\n'
        f'base_url = "{base_url}"\nretries = 0\n'
    )
    task = make_median_task()
    return task.model_copy(update={"hidden": {**task.hidden, "rubric.toml": rubric.encode()}})


def _rubber_stamp(body: dict[str, Any]) -> Reply:
    return scripted.answer(body, 10)


def test_a_judge_that_passes_the_do_nothing_answer_as_it_is_is_caught(
    judge_server: JudgeServer,
) -> None:
    judge_server.responder = _rubber_stamp
    context = AuditContext(family=CodeFamily(), sandbox=LocalSandbox())
    findings = JudgeRedTeamCheck().run(_task(judge_server.base_url), context).findings
    assert [(f.severity, f.review) for f in findings] == [(Severity.WARNING, True)]
    assert "'right' gives the do-nothing answer as it is 1.00" in findings[0].message
    assert "pays for nothing" in findings[0].message
    assert decide(findings) is Decision.QUARANTINED


def test_an_honest_judge_is_still_left_alone(judge_server: JudgeServer) -> None:
    judge_server.responder = scripted.honest
    context = AuditContext(family=CodeFamily(), sandbox=LocalSandbox())
    assert JudgeRedTeamCheck().run(_task(judge_server.base_url), context).findings == []
