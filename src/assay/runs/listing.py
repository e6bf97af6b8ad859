"""Runs of both kinds as one list, and one run's verdicts as a reader wants them."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.errors import InputError
from assay.store import JobCounts, RunKind, RunRecord, Store, StoredEpisode, StoredVerdict


class RunRow(BaseModel):
    """One run in the list of runs: its kind and its totals."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="The run's name.")
    kind: RunKind = Field(description="audit or rollout.")
    created_at: datetime = Field(description="When it was started first (UTC).")
    finished_at: datetime | None = Field(description="When it last finished; None if not yet.")
    details: dict[str, Any] = Field(
        description="An audit's totals (tasks, accepted, rejected, ...), or a rollout's policy, "
        "k, mode, task count and job counts."
    )

    def flat(self) -> dict[str, Any]:
        """The row as one JSON object: the details beside name, kind and times."""
        head = self.model_dump(mode="json", exclude={"details"})
        return {**head, **self.details}


def list_runs(store: Store) -> list[RunRow]:
    """Every run, audit and rollout, newest first."""
    audits = {run.run_id: run for run in store.audit_runs()}
    rows = []
    for record in store.runs():
        if record.kind == "audit" and record.name in audits:
            details = audits[record.name].model_dump(mode="json")
        else:
            details = _rollout_details(record, store.job_counts(record.name, now=time.time()))
        rows.append(
            RunRow(
                name=record.name,
                kind=record.kind,
                created_at=record.created_at,
                finished_at=record.finished_at,
                details=details,
            )
        )
    return rows


def _rollout_details(record: RunRecord, counts: JobCounts) -> dict[str, Any]:
    """What a rollout run was asked, as far as its record says: a record another assay wrote
    may lack a field or hold it in another shape, and is listed all the same."""
    spec = record.spec
    tasks = spec.get("tasks")
    return {
        "policy": spec.get("policy"),
        "k": spec.get("k"),
        "mode": spec.get("mode"),
        "tasks": len(tasks) if isinstance(tasks, (dict, list)) else None,
        **counts.model_dump(),
    }


def verdict_items(kept: list[StoredVerdict]) -> list[dict[str, Any]]:
    """Verdicts as JSON objects with ``task_id``, ``sample``, ``status`` and ``score`` on top;
    the score is null for an error (never scored) and for a verdict whose score could not be
    computed (``score_error``: a judge could not be reached)."""
    items = []
    for stored in kept:
        verdict = stored.verdict
        score = verdict.score if verdict.scored else None
        items.append(
            {
                "task_id": verdict.task_id,
                "sample": stored.sample,
                "status": verdict.status.value,
                "score": score,
                **stored.model_dump(mode="json"),
            }
        )
    return items


def rollout_episodes(
    store: Store, run: str, *, task_id: str | None = None, sample: int | None = None
) -> list[StoredEpisode]:
    """The finished episodes of rollout run ``run``. Raises :class:`InputError` when there is
    no such run, or it holds no episode of the task or sample asked for."""
    record = store.run(run)
    if record is None or record.kind != "rollout":
        what = "no rollout run" if record is None else f"an {record.kind} run, not a rollout:"
        raise InputError(f"{what} {run!r}", field="run", fix="`assay runs` lists the runs")
    episodes = store.episodes(run, task_id=task_id, sample=sample)
    if not episodes:
        asked = "" if task_id is None else f" of task {task_id}"
        asked += "" if sample is None else f" with sample {sample}"
        raise InputError(
            f"run {run!r} holds no finished episode{asked}",
            field="run",
            fix="check the task id, or let the run go on (`assay run` with the same --run)",
        )
    return episodes
