"""A model judge through the OpenAI-compatible client: scores, evidence, and failures that are
errors (never a made-up score) or the submission's own doing (a 0)."""

from __future__ import annotations

import asyncio
from typing import Any

from assay.judges import JudgeSpec, ModelJudge, judge_criterion
from assay.judges.prompt import PROMPT_VERSION
from assay.tasks import Task
from assay.verdicts import Status
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task
from tests.judges import scripted
from tests.judges.conftest import JudgeServer, closed_port
from tests.policies.server import Reply
from tests.policies.server import Status as HttpStatus

TASK = make_median_task()
QUESTION = "Does median sort its input before taking the middle?"


def _judge(base_url: str, **extra: Any) -> ModelJudge:
    spec = JudgeSpec(model="judge-model", question=QUESTION, base_url=base_url, **extra)
    return ModelJudge(spec, backoff_s=0.01)


def _criterion(judge: ModelJudge, text: bytes, task: Task = TASK) -> Any:
    reference = REFERENCE.decode()
    return judge_criterion(judge, task, text.decode(), reference, name="sorted", weight=2.0)


def test_a_judged_criterion_keeps_prompt_model_answer_and_score(judge_server: JudgeServer) -> None:
    judge_server.responder = scripted.honest
    criterion = _criterion(_judge(judge_server.base_url), REFERENCE)
    assert (criterion.status, criterion.score, criterion.weight) == (Status.PASS, 0.9, 2.0)
    assert (criterion.part, criterion.kind) == ("rubric", "judge")
    record = criterion.judge
    assert record is not None
    assert (record.model, record.served_model) == ("judge-model", "judge-v1")
    assert record.prompt_version == PROMPT_VERSION
    assert QUESTION in record.prompt
    assert "sorted(values)" in record.prompt
    assert record.answer is not None
    assert '"score": 9' in record.answer
    [request] = judge_server.requests
    assert request["model"] == "judge-model"
    assert request["temperature"] == 0
    assert not request.get("tools")


def test_a_low_score_fails_the_criterion(judge_server: JudgeServer) -> None:
    judge_server.responder = scripted.honest
    criterion = _criterion(_judge(judge_server.base_url), b"def median(values):\n    return 0\n")
    assert (criterion.status, criterion.score) == (Status.FAIL, 0.1)


def test_an_unreachable_judge_is_an_error_never_a_score() -> None:
    judge = _judge(f"http://127.0.0.1:{closed_port()}/v1", retries=1)
    criterion = _criterion(judge, REFERENCE)
    assert criterion.status is Status.ERROR
    assert criterion.score is None
    assert criterion.error is not None
    assert "could not be reached" in criterion.error
    assert criterion.judge is not None
    assert criterion.judge.answer is None


def test_a_judge_failing_with_5xx_after_its_retries_is_an_error(judge_server: JudgeServer) -> None:
    judge_server.play(HttpStatus(503))
    criterion = _criterion(_judge(judge_server.base_url, retries=2), REFERENCE)
    assert criterion.status is Status.ERROR
    assert len(judge_server.requests) == 3


def test_an_answer_that_does_not_parse_while_the_references_does_scores_zero(
    judge_server: JudgeServer,
) -> None:
    def babbles_on_the_candidate(body: dict[str, Any]) -> Reply:
        if "sorted(" in scripted.submission(body):
            return scripted.honest(body)
        return Reply(content="I think this deserves a 10!", model="judge-v1")

    judge_server.responder = babbles_on_the_candidate
    criterion = _criterion(_judge(judge_server.base_url), BAD_NO_SORT)
    assert (criterion.status, criterion.score, criterion.error) == (Status.FAIL, 0.0, None)
    assert criterion.judge is not None
    assert criterion.judge.answer == "I think this deserves a 10!"
    assert "broke the judge" in criterion.judge.note
    assert len(judge_server.requests) == 2  # the submission, then the reference


def test_a_judge_that_never_answers_in_form_is_an_error(judge_server: JudgeServer) -> None:
    judge_server.play(Reply(content="Score: 8/10"))
    criterion = _criterion(_judge(judge_server.base_url), BAD_NO_SORT)
    assert criterion.status is Status.ERROR
    assert criterion.error is not None
    assert "cannot judge this task" in criterion.error


def test_a_refusal_on_the_submission_is_the_submissions_doing(judge_server: JudgeServer) -> None:
    def refuses_the_candidate(body: dict[str, Any]) -> Reply:
        if "sorted(" in scripted.submission(body):
            return scripted.honest(body)
        return Reply(content=None, refusal="I cannot help with that.")

    judge_server.responder = refuses_the_candidate
    criterion = _criterion(_judge(judge_server.base_url), b"def median(v):\n    return 1\n")
    assert (criterion.status, criterion.score) == (Status.FAIL, 0.0)


def test_the_submission_is_capped_before_it_reaches_the_judge(judge_server: JudgeServer) -> None:
    judge_server.responder = scripted.honest
    padded = REFERENCE + b"# " + b"x" * 50_000 + b"\n"
    _criterion(_judge(judge_server.base_url, max_chars=2000), padded)
    sent = scripted.user(judge_server.requests[0])
    assert len(sent) < 2000 + 2000
    assert "only the first 2000 are shown" in sent


def test_a_judge_can_be_asked_from_inside_a_running_event_loop(judge_server: JudgeServer) -> None:
    judge_server.responder = scripted.honest

    async def inside() -> float | None:
        return _judge(judge_server.base_url).grade(TASK, REFERENCE.decode()).score

    assert asyncio.run(inside()) == 0.9
