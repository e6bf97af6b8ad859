"""A model judge: one rubric criterion graded by a model behind an OpenAI-compatible endpoint.

The judge is asked through :class:`assay.policies.OpenAIPolicy`, the client episodes use, with its
retries and backoff. Outcomes:

- a score: the answer parsed strictly (:func:`assay.judges.prompt.parse_answer`);
- unreachable: the endpoint failed after its retries (infrastructure): the criterion is ``error``
  and the verdict gets no score, never a made-up one;
- unparseable: an answer came back but not in the one form allowed (or the model refused). Whose
  fault? The submission's text may have made the judge babble, and a candidate must not turn a
  low score into an error that is never scored. So the judge is asked again about the task's own
  reference solution: if it answers there, the submission broke it and the criterion scores 0;
  if it does not, the judge cannot judge the task and the criterion is ``error``.

The API key goes only to the endpoint the operator configured (``ASSAY_JUDGE_BASE_URL``, then
``OPENAI_BASE_URL``, then OpenAI's): a rubric is task content, and a ``base_url`` it names
elsewhere gets no key, so that auditing or verifying a task set cannot send the key where the
task says.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.errors import InputError, PolicyError
from assay.judges.prompt import MAX_ANSWER_CHARS, PROMPT_VERSION, build_prompt, parse_answer
from assay.policies.base import PolicyRequest, Sampling
from assay.policies.openai_chat import DEFAULT_BASE_URL, OpenAIPolicy, endpoint_origin
from assay.settings import JUDGE_API_KEY, JUDGE_BASE_URL
from assay.tasks.model import Task
from assay.verdicts import Criterion, JudgeRecord, JudgeVersion

BASE_URL_ENV = JUDGE_BASE_URL.env
"""Where judges are asked when a criterion names no base_url (then ``OPENAI_BASE_URL``)."""
API_KEY_ENV = JUDGE_API_KEY.env
"""The judges' API key (then ``OPENAI_API_KEY``)."""
MAX_PROMPT_EVIDENCE = 40_000
UNKEYED = "EMPTY"
"""The key sent to an endpoint a rubric names that the operator did not configure."""
UNKEYED_FIX = f"set {BASE_URL_ENV} to it to send the key there"
T = TypeVar("T")
EVIDENCE_LIMIT = 300


class JudgeSpec(BaseModel):
    """How one criterion is judged by a model, as a rubric declares it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1, description="The judge model's name at the endpoint.")
    question: str = Field(
        min_length=1, max_length=4000, description="The criterion, as a question to the judge."
    )
    base_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description=f"The endpoint; default {BASE_URL_ENV}, then OPENAI_BASE_URL.",
    )
    scale: int = Field(default=10, ge=1, le=100, description="The judge answers 0..scale.")
    pass_at: float = Field(
        default=0.5, ge=0, le=1, description="The criterion passes at this score (0..1) or above."
    )
    max_chars: int = Field(
        default=12_000,
        ge=100,
        le=100_000,
        description="Characters of the submission shown to the judge; the rest is cut, and the "
        "judge is told so.",
    )
    retries: int = Field(default=3, ge=0, le=10, description="Retries on transport failures.")
    timeout_s: float = Field(default=60.0, gt=0, le=600, description="Per request.")

    @field_validator("base_url")
    @classmethod
    def _url(cls, url: str | None) -> str | None:
        if url is not None and endpoint_origin(url) is None:
            raise ValueError(f"{url[:200]!r} is not a URL a request can be sent to")
        return url


@dataclass(frozen=True)
class Graded:
    """One judge request: the score, if the answer parsed, and the record of it."""

    score: float | None
    """In [0, 1]; None when no parseable answer came back."""
    record: JudgeRecord
    """The prompt, model, raw answer and score, as evidence."""
    unreachable: bool = False
    """The endpoint failed after its retries: infrastructure."""


class ModelJudge:
    """Asks one judge model about submissions, for one criterion."""

    def __init__(self, spec: JudgeSpec, *, backoff_s: float = 0.5) -> None:
        self.spec = spec
        variable, configured = _configured_url()
        if spec.base_url is None and endpoint_origin(configured) is None:
            raise InputError(
                f"{configured[:200]!r} is not a URL a request can be sent to",
                field=variable,
                fix="set it to an http:// or https:// URL such as http://127.0.0.1:8000/v1",
            )
        self.base_url = spec.base_url or configured
        # the API key is sent only to the configured endpoint's origin
        self.keyed = spec.base_url is None or (
            endpoint_origin(spec.base_url) == endpoint_origin(configured)
        )
        self.backoff_s = backoff_s

    def grade(self, task: Task, submission: str) -> Graded:
        """Ask the judge about ``submission`` (blocking; safe inside a running event loop)."""
        return _blocking(self.agrade(task, submission))

    async def agrade(self, task: Task, submission: str) -> Graded:
        """Ask the judge about ``submission``; see the module docstring for the outcomes."""
        spec = self.spec
        prompt = build_prompt(
            spec.question, submission, task=task.prompt, scale=spec.scale, max_chars=spec.max_chars
        )
        client = OpenAIPolicy(
            spec.model,
            base_url=self.base_url,
            api_key=(os.environ.get(API_KEY_ENV) or None) if self.keyed else UNKEYED,
            sampling=Sampling(temperature=0.0, max_tokens=64, seed=0),
            concurrency=1,
            retries=spec.retries,
            backoff_s=self.backoff_s,
            timeout_s=spec.timeout_s,
        )
        record = {
            "model": spec.model,
            "base_url": self.base_url,
            "prompt_version": PROMPT_VERSION,
            "prompt": prompt.text()[:MAX_PROMPT_EVIDENCE],
        }
        try:
            turn = await client.act(PolicyRequest(messages=prompt.messages, tools=(), task=task))
        except PolicyError as exc:
            note = f"the judge could not be reached: {exc}"
            if not self.keyed:
                note += f" (no API key is sent to {self.base_url}: {UNKEYED_FIX})"
            return Graded(None, JudgeRecord(**record, note=note), unreachable=True)
        finally:
            await client.aclose()
        answer = turn.message.content
        score = None if turn.failure else parse_answer(answer, prompt)
        if turn.failure:
            note = turn.failure
        elif score is None:
            note = 'the answer is not exactly {"id": <the request\'s id>, "score": N}'
        else:
            note = f"scored {round(score * spec.scale)}/{spec.scale}"
        return Graded(
            score,
            JudgeRecord(
                **record,
                served_model=turn.served_model,
                answer=None if answer is None else answer[:MAX_ANSWER_CHARS],
                score=score,
                retries=turn.retries,
                note=note,
            ),
        )

    def version(self, name: str, served_model: str | None) -> JudgeVersion:
        """What identifies this judge on a verdict."""
        return JudgeVersion(
            criterion=name,
            model=self.spec.model,
            served_model=served_model,
            base_url=self.base_url,
            prompt_version=PROMPT_VERSION,
        )


def judge_criterion(
    judge: ModelJudge,
    task: Task,
    submission: str,
    reference: str | None,
    *,
    name: str,
    weight: float,
) -> Criterion:
    """The rubric criterion ``name`` judged on ``submission``; ``reference`` (the task's own
    solution, as text) tells whose fault an unparseable answer is."""
    graded = judge.grade(task, submission)
    if graded.unreachable:
        return _criterion(name, weight, graded.record, error=graded.record.note)
    if graded.score is not None:
        passed = graded.score >= judge.spec.pass_at
        return _criterion(name, weight, graded.record, passed=passed, score=graded.score)
    if reference is None:
        error = "the judge's answer could not be parsed, and the task has no reference to ask about"
        return _criterion(name, weight, graded.record, error=error)
    calibration = judge.grade(task, reference)
    if calibration.score is None:
        error = (
            "the judge's answer could not be parsed, nor its answer on the task's reference "
            f"({calibration.record.note}): it cannot judge this task"
        )
        return _criterion(name, weight, graded.record, error=error)
    note = (
        "the judge's answer on this submission could not be parsed while its answer on the "
        "task's reference could: the submission's text broke the judge, and scores 0"
    )
    record = graded.record.model_copy(update={"note": f"{graded.record.note}; {note}"})
    return _criterion(name, weight, record, passed=False, score=0.0)


def _criterion(
    name: str,
    weight: float,
    record: JudgeRecord,
    *,
    passed: bool = False,
    score: float | None = None,
    error: str | None = None,
) -> Criterion:
    return Criterion(
        name=name,
        passed=passed,
        weight=weight,
        evidence=(error or record.note)[:EVIDENCE_LIMIT],
        part="rubric",
        kind="judge",
        score=score,
        error=error[:EVIDENCE_LIMIT] if error else None,
        judge=record,
    )


def _configured_url() -> tuple[str | None, str]:
    """The endpoint the operator configured for judges, and the variable that set it (None for
    the default)."""
    for name in (BASE_URL_ENV, "OPENAI_BASE_URL"):
        url = os.environ.get(name)
        if url:
            return name, url
    return None, DEFAULT_BASE_URL


def _blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion from synchronous code, in a thread of its own when this
    thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    values: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            values.append(asyncio.run(coroutine))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=run, name="assay-judge")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return values[0]
