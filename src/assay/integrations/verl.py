"""Rewards for verl: ``compute_score`` for its reward managers, loaded through
``reward.custom_reward_function.path`` (this file) and ``.name``. verl 0.9's trainer calls
``compute_score``, once per response, from its reward loop; ``compute_score_batch`` is for the
``BatchRewardManager`` verl still ships, which its trainer no longer uses.

The data's ``reward_model.ground_truth`` is the task id (``assay export tasks`` writes it as
``task_id``) and ``solution_str`` the decoded response, judged as a single-turn answer (its last
fenced block). The task set is ``extra_info["tasks_dir"]`` or the directory in ``ASSAY_TASKS``.
A task of the frozen split is refused unless the row's ``extra_info["frozen"]`` is true (an
evaluation).

An error verdict is retried; one that persists is never a silent 0. The batch form gives it the
mean score of the same task's judged responses in the batch (zero advantage under GRPO; see
:mod:`assay.integrations.rewards`) and marks it ``error: True``; the per-sample form has no batch
to take a mean from, so it raises :class:`assay.errors.RewardError`, which stops the step rather
than teach the model from the machine's failure (verl's reward loop runs on Ray, which raises it
again in the trainer as a ``RayTaskError`` that is also a ``RewardError``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from assay.errors import InputError, RewardError
from assay.integrations.rewards import Judge, Judgement, judge_for, neutral_scores


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: Mapping[str, Any] | None = None,
    **_: Any,
) -> dict[str, Any]:
    """The score of one response, with the verdict's details; see the module's docstring."""
    [judgement] = _judge(extra_info).judge([_task_id(ground_truth)], [str(solution_str)])
    if judgement.score is None:
        raise RewardError(
            f"task {ground_truth}: the verifier could not judge the response after "
            f"{judgement.attempts} attempts: {judgement.error}"
        )
    return _details(judgement, judgement.score, data_source)


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[Mapping[str, Any] | None],
    **_: Any,
) -> list[dict[str, Any]]:
    """The scores of a batch, judged concurrently, each row against the task set its own
    ``extra_info`` names; see the module's docstring."""
    task_ids = [_task_id(truth) for truth in ground_truths]
    solutions = [str(s) for s in solution_strs]
    infos = list(extra_infos) if extra_infos is not None else [None] * len(task_ids)
    if not len(data_sources) == len(solutions) == len(task_ids) == len(infos):
        raise InputError(
            f"the batch holds {len(solutions)} responses, {len(task_ids)} ground truths, "
            f"{len(data_sources)} data sources and {len(infos)} extra infos",
            field="batch",
            fix="pass one of each per response, as verl's BatchRewardManager does",
        )
    wheres = [(_tasks_dir(info), _frozen(info)) for info in infos]
    judgements: dict[int, Judgement] = {}
    for where in dict.fromkeys(wheres):
        rows = [row for row, its in enumerate(wheres) if its == where]
        judge = judge_for(where[0], frozen=where[1])
        judged = judge.judge([task_ids[r] for r in rows], [solutions[r] for r in rows])
        judgements.update(zip(rows, judged, strict=True))
    ordered = [judgements[row] for row in range(len(task_ids))]
    scores = neutral_scores(ordered, list(zip(wheres, task_ids, strict=True)))
    return [
        _details(j, score, source)
        for j, score, source in zip(ordered, scores, data_sources, strict=True)
    ]


def _task_id(ground_truth: object) -> str:
    """The task id a row's ``ground_truth`` holds; a row without one is refused in one line,
    not looked up as the task ``'None'``."""
    if ground_truth is None:
        raise InputError(
            "a row has no reward_model.ground_truth",
            field="ground_truth",
            fix="set each row's reward_model.ground_truth to its task_id from `assay export tasks`",
        )
    return str(ground_truth)


def _judge(extra_info: Mapping[str, Any] | None) -> Judge:
    return judge_for(_tasks_dir(extra_info), frozen=_frozen(extra_info))


def _frozen(extra_info: Mapping[str, Any] | None) -> bool:
    """Whether a row may be of the frozen split: only where its ``extra_info`` says
    ``frozen: True`` (an evaluation); a training row of it is refused (see :class:`Judge`)."""
    frozen = (extra_info or {}).get("frozen", False) if isinstance(extra_info, Mapping) else False
    if not isinstance(frozen, bool):
        raise InputError(
            f"extra_info.frozen is {frozen!r}", field="extra_info.frozen", fix="give true or false"
        )
    return frozen


def _tasks_dir(extra_info: Mapping[str, Any] | None) -> str:
    """The task set a row is judged against: its own ``tasks_dir``, else ``ASSAY_TASKS`` (a
    batch may mix rows of several sets, each judged against its own)."""
    if extra_info is not None and not isinstance(extra_info, Mapping):
        raise InputError(
            f"extra_info is {type(extra_info).__name__}, not a mapping",
            field="extra_info",
            fix="give each row's extra_info as a dict, or none",
        )
    where = (extra_info or {}).get("tasks_dir")
    if where:
        return str(where)
    if not os.environ.get("ASSAY_TASKS"):
        raise InputError(
            "no task set: extra_info has no tasks_dir and ASSAY_TASKS is not set",
            field="tasks",
            fix="set ASSAY_TASKS to the directory the dataset was exported from",
        )
    return os.environ["ASSAY_TASKS"]


def _details(judgement: Judgement, score: float, data_source: str) -> dict[str, Any]:
    verdict = judgement.verdict
    return {
        "score": score,
        "error": verdict is None,
        "status": "error" if verdict is None else verdict.status.value,
        "task_id": judgement.task_id,
        "data_source": data_source,
        "attempts": judgement.attempts,
        "summary": judgement.error if verdict is None else verdict.summary,
    }


__all__ = ["compute_score", "compute_score_batch"]
