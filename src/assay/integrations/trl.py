"""Rewards for TRL's ``GRPOTrainer``: each completion judged as a single-turn answer to the task
its row names, in the sandbox pool, the batch at once.

::

    rewards = AssayRewards("tasks/")          # or AssayRewards() with ASSAY_TASKS set
    trainer = GRPOTrainer(
        model=...,
        reward_funcs=[rewards.reward, rewards.errors],
        args=GRPOConfig(..., reward_weights=[1.0, 0.0]),
        train_dataset=load_dataset("json", data_files="train.jsonl")["train"],
    )

The dataset is ``assay export tasks`` output: TRL passes its ``task_id`` column to reward
functions as a keyword (with ``prompts``, ``completions`` and columns of its own, hence
``**kwargs``). Completions are plain text or, for conversational prompts, lists of messages whose
last assistant message is the answer (a tool's output after it is none of the model's). In a
dataset that mixes assay's tasks with others, a row whose ``task_id`` is None gets None from both
functions, which TRL leaves out of that row's reward (its way for multi-task reward functions).

Errors: TRL turns a ``None`` reward into NaN and sums the reward functions with ``nansum``. A
row where every reward function gave ``None`` is set aside (TRL 1.16 gives it no advantage), but
beside any reward function that gave a number (``rewards.errors`` among them) the ``None``
becomes a 0, a false failure. Instead an error verdict is
retried, and one that persists gets the mean score of the judged completions of the same task in
the batch (TRL's group: its advantage is then zero; see :mod:`assay.integrations.rewards`).
``rewards.errors``, listed after ``rewards.reward`` with weight 0, adds nothing to the reward and
is logged by TRL like every reward function (``rewards/errors/mean``): for each batch, 1.0 for a
completion that could not be judged, so that the mean TRL logs over its logging steps is the
share of the completions of those steps that could not be judged. ``rewards.judged`` and
``rewards.unjudged`` are the run's totals, for a trainer that logs on its own schedule.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.integrations.rewards import Judge, neutral_scores
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task

KEPT_BATCHES = 16
"""Batches whose errors :meth:`AssayRewards.errors` can still report: TRL asks right after the
reward; more are kept for batches judged at once from several threads."""


class AssayRewards:
    """The reward function (:meth:`reward`) and its error count (:meth:`errors`) over one task
    set; see the module's docstring.

    ``judged`` and ``unjudged`` count the completions judged, and those that could not be,
    since this object was made: running totals, never reset, so that a trainer logging every N
    steps logs the difference between two readings."""

    def __init__(
        self,
        tasks: str | Path | Sequence[Task] | None = None,
        *,
        sandbox: Sandbox | None = None,
        retries: int = 2,
        frozen: bool = False,
    ) -> None:
        self.judge = Judge(tasks, sandbox=sandbox, retries=retries, frozen=frozen)
        self._unjudged_by_batch: OrderedDict[bytes, list[bool | None]] = OrderedDict()
        self._lock = threading.Lock()
        self.judged = 0
        self.unjudged = 0

    def reward(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        """One reward per completion: its verdict's score (errors: see the module's docstring).
        A row whose ``task_id`` is None is none of assay's (a dataset mixing tasks of other
        kinds): it gets None, which TRL leaves out of that row's reward, as its multi-task
        reward functions do."""
        ids = _task_ids(kwargs.get("task_id"))
        if len(prompts) != len(completions):
            raise InputError(
                f"{len(prompts)} prompts for {len(completions)} completions",
                field="prompts",
                fix="pass one prompt per completion, as TRL does",
            )
        if len(ids) != len(completions):
            raise InputError(
                f"{len(ids)} task ids for {len(completions)} completions",
                field="task_id",
                fix="give one task id per completion",
            )
        texts = [_text(c) for c in completions]
        ours = [row for row, task_id in enumerate(ids) if task_id is not None]
        judgements = self.judge.judge([str(ids[r]) for r in ours], [texts[r] for r in ours])
        unjudged: list[bool | None] = [None] * len(ids)
        for row, judgement in zip(ours, judgements, strict=True):
            unjudged[row] = judgement.score is None
        lost = sum(1 for j in judgements if j.score is None)
        key = _batch_key(prompts, texts)
        with self._lock:
            self._unjudged_by_batch[key] = unjudged
            self._unjudged_by_batch.move_to_end(key)
            while len(self._unjudged_by_batch) > KEPT_BATCHES:
                self._unjudged_by_batch.popitem(last=False)
            self.unjudged += lost
            self.judged += len(judgements) - lost
        groups = [(ids[r], _key(prompts[r])) for r in ours]
        rewards: list[float | None] = [None] * len(ids)
        for row, score in zip(ours, neutral_scores(judgements, groups), strict=True):
            rewards[row] = score
        return rewards

    def errors(
        self, prompts: Sequence[Any], completions: Sequence[Any], **_: Any
    ) -> list[float | None]:
        """For the batch given (matched by its prompts and completions, however other batches'
        calls interleave), 1.0 for each completion :meth:`reward` could not judge, else 0.0,
        and None for a row that is none of assay's; give it weight 0 so that it is only logged.
        A batch :meth:`reward` has not judged (this function listed before it) raises
        :class:`InputError`: its errors are not known yet."""
        key = _batch_key(prompts, [_text(c) for c in completions])
        with self._lock:
            unjudged = self._unjudged_by_batch.get(key)
        if unjudged is None:
            raise InputError(
                "rewards.errors was given a batch that rewards.reward has not judged",
                field="reward_funcs",
                fix="list rewards.errors after rewards.reward in reward_funcs",
            )
        return [None if lost is None else 1.0 if lost else 0.0 for lost in unjudged]


def _task_ids(column: object) -> list[object]:
    """The ``task_id`` column TRL passes, one entry per completion (None: a row of another
    kind of task; so is a NaN, pandas' missing value). One string, or anything that is no
    column, is refused: a string's letters would be taken for the column."""
    if column is None:
        raise InputError(
            "the dataset has no task_id column",
            field="task_id",
            fix="train on `assay export tasks` output, which has one",
        )
    if isinstance(column, str | bytes) or not isinstance(column, Iterable):
        shown = repr(column[:100] if isinstance(column, str | bytes) else column)[:100]
        raise InputError(
            f"task_id is one {type(column).__name__}, {shown}, not a column",
            field="task_id",
            fix="pass one task id per completion, as TRL passes a dataset's column",
        )
    return [None if _missing(task_id) else str(task_id) for task_id in column]


def _missing(task_id: object) -> bool:
    """None, or the NaN pandas and a dataset's float column stand for a missing value with
    (never the task ``'nan'``)."""
    return task_id is None or (isinstance(task_id, float) and math.isnan(task_id))


def _batch_key(prompts: Sequence[Any], texts: Sequence[str]) -> bytes:
    """A digest of a batch (its prompts, and its completions' answers) that stands for it
    without keeping its text."""
    digest = hashlib.blake2b(digest_size=16)
    for part in [*(_key(p) for p in prompts), "", *texts]:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.digest()


def _text(completion: Any) -> str:
    """The answer: the text (bytes read as UTF-8), or the content of the assistant's last
    message (of a conversation, or a message alone), whose content may be a list of parts as in
    OpenAI's chat format. A conversation that ends with a tool's answer (its turns ran out) is
    judged on what the model said last, never on what a tool printed, which is no answer of the
    model's."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, bytes):  # its repr, b'...', would hide every fenced block
        return completion.decode("utf-8", "replace")
    if isinstance(completion, list | tuple):
        said = [m for m in completion if not isinstance(m, dict) or _spoken(m)]
        completion = said[-1] if said else None
    if isinstance(completion, dict):
        content = completion.get("content")
        if isinstance(content, list):
            parts = [part for part in content if isinstance(part, dict)]
            return "".join(str(p.get("text") or "") for p in parts if p.get("type") == "text")
        return str(content or "")
    return "" if completion is None else str(completion)


def _spoken(message: dict[str, Any]) -> bool:
    """Whether ``message`` is the model's own (an assistant's, or one naming no role)."""
    return bool(message.get("role", "assistant") == "assistant")


def _key(prompt: Any) -> str:
    return prompt if isinstance(prompt, str) else repr(prompt)


__all__ = ["KEPT_BATCHES", "AssayRewards"]
