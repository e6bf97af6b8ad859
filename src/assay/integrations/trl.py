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
last assistant message is the answer (a tool's output after it is none of the model's).

Errors: TRL turns a ``None`` reward into NaN and sums the reward functions with ``nansum``, so
with one reward function a ``None`` becomes a 0, a false failure. Instead an error verdict is
retried, and one that persists gets the mean score of the judged completions of the same task in
the batch (TRL's group: its advantage is then zero; see :mod:`assay.integrations.rewards`).
``rewards.errors``, listed with weight 0, adds nothing to the reward and is logged by TRL like
every reward function (``rewards/errors/mean``): the share of the batch that could not be judged.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.integrations.rewards import Judge, Judgement, neutral_scores
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task


class AssayRewards:
    """The reward function (:meth:`reward`) and its error count (:meth:`errors`) over one task
    set; see the module's docstring."""

    def __init__(
        self,
        tasks: str | Path | Sequence[Task] | None = None,
        *,
        sandbox: Sandbox | None = None,
        retries: int = 2,
    ) -> None:
        self.judge = Judge(tasks, sandbox=sandbox, retries=retries)
        self._last: list[Judgement] = []
        self._lock = threading.Lock()
        self.judged = 0
        self.unjudged = 0

    def reward(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        """One reward per completion: its verdict's score (errors: see the module's docstring)."""
        task_ids = kwargs.get("task_id")
        if task_ids is None:
            raise InputError(
                "the dataset has no task_id column",
                field="task_id",
                fix="train on `assay export tasks` output, which has one",
            )
        if len(prompts) != len(completions):
            raise InputError(
                f"{len(prompts)} prompts for {len(completions)} completions",
                field="prompts",
                fix="pass one prompt per completion, as TRL does",
            )
        ids = [str(task_id) for task_id in task_ids]
        judgements = self.judge.judge(ids, [_text(c) for c in completions])
        with self._lock:
            self._last = judgements
            failed = sum(j.score is None for j in judgements)
            self.unjudged += failed
            self.judged += len(judgements) - failed
        return neutral_scores(judgements, [(i, _key(p)) for i, p in zip(ids, prompts, strict=True)])

    def errors(self, prompts: Sequence[Any], completions: Sequence[Any], **_: Any) -> list[float]:
        """1.0 for each completion of the last batch that could not be judged, else 0.0; give it
        weight 0 so that it is only logged."""
        with self._lock:
            last = self._last
        if len(last) != len(completions):
            return [0.0] * len(completions)
        return [1.0 if j.score is None else 0.0 for j in last]


def _text(completion: Any) -> str:
    """The answer: the text, or the content of the assistant's last message (of a
    conversation, or a message alone), whose content may be a list of parts as in OpenAI's chat
    format. A conversation that ends with a tool's answer (its turns ran out) is judged on what
    the model said last, never on what a tool printed, which is no answer of the model's."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
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


__all__ = ["AssayRewards"]
