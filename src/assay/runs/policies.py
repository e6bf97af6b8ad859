"""Policies for a run: parsed with access to the store (``replay:RUN``), checked against the
run's tasks before any episode starts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from assay.episodes.records import Budget, EndReason, Mode
from assay.errors import InputError, PolicySpecError
from assay.policies import parse_policy
from assay.policies.base import Policy, PolicyTurn, Sampling
from assay.policies.openai_chat import OpenAIPolicy
from assay.policies.replay import Recorded, ReplayPolicy
from assay.policies.scripted import ScriptedPolicy
from assay.store import Store
from assay.tasks.model import Task


def open_policy(
    spec: str,
    store: Store,
    *,
    base_url: str | None = None,
    sampling: Sampling | None = None,
    max_requests: int = 16,
) -> Policy:
    """The policy ``spec`` names; ``replay:RUN`` reads run ``RUN`` from ``store``."""
    return parse_policy(
        spec,
        base_url=base_url,
        sampling=sampling,
        concurrency=max_requests,
        recorded=lambda run: recorded_episodes(store, run),
    )


def recorded_episodes(store: Store, run: str) -> dict[tuple[str, int], Recorded]:
    """The episodes of rollout run ``run`` as a replay needs them, by task id and sample.

    Raises :class:`PolicySpecError` when there is no such rollout run.
    """
    record = store.run(run)
    if record is None or record.kind != "rollout":
        known = ", ".join(r.name for r in store.runs() if r.kind == "rollout")[:300] or "none"
        raise PolicySpecError(
            f"no rollout run {run!r} to replay", field="policy", fix=f"rollout runs: {known}"
        )
    return {
        (stored.trajectory.task_id, stored.sample): Recorded(
            turns=tuple(
                PolicyTurn(
                    message=step.message,
                    failure=step.failure,
                    dropped_tool_calls=step.dropped_tool_calls,
                )
                for step in stored.trajectory.steps
            ),
            infrastructure_error=stored.trajectory.end is EndReason.INFRASTRUCTURE,
            mode=stored.trajectory.mode,
        )
        for stored in store.episodes(run)
    }


def check_policy(
    policy: Policy, tasks: Sequence[Task], k: int, *, mode: Mode | None = None
) -> None:
    """Refuse, before any episode, a policy that cannot act on every episode of the run: a
    ``bad:LABEL`` some task lacks, a replay of a run without some task or sample, a model
    endpoint that cannot be reached (:class:`assay.errors.ModelUnreachableError`), does not
    serve the model, or refuses a short request shaped as the run's episodes would send it
    (:class:`PolicySpecError`): an option it does not take, or, in ``mode`` tools, any tool
    calls at all; or that answers only as a stream (:class:`assay.errors.PolicyError`); or a
    replay of episodes recorded in another ``mode``. When ``mode`` is None the probe sends no
    tools and a replay's modes are not compared."""
    if isinstance(policy, OpenAIPolicy):
        asyncio.run(_ping(policy, tools=mode == "tools"))
    if isinstance(policy, ScriptedPolicy) and policy.kind == "bad":
        for task in tasks:
            if f"bad-{policy.label}" not in task.solutions:
                known = ", ".join(f"bad:{n.removeprefix('bad-')}" for n in task.known_bad())
                raise InputError(
                    f"task {task.id} has no known-bad solution bad-{policy.label}",
                    field="policy",
                    fix=f"its known-bad policies are: {known or 'none'}",
                )
    if isinstance(policy, ReplayPolicy):
        for task in tasks:
            for sample in range(k):
                if not policy.has(task.id, sample):
                    raise InputError(
                        f"run {policy.run!r} has no episode of task {task.id} sample {sample}",
                        field="policy",
                        fix="replay a run over the same tasks with at least this k",
                    )
                recorded = policy.mode_of(task.id, sample)
                if mode is not None and recorded != mode:
                    raise InputError(
                        f"run {policy.run!r} ran its episodes in mode {recorded}, not {mode}: "
                        "its recorded turns would not act the same",
                        field="mode",
                        fix=f"replay it with --mode {recorded}",
                    )


def turn_time_note(policy: Policy, budget: Budget) -> str | None:
    """Why ``budget``'s time for one turn may cut a model policy off before its own retries
    have run out, in one line; None when they fit in it (or the policy is no model). A turn cut
    off is a fail, kept and scored, where the retries run out would have been an error, retried
    and never scored: an endpoint slow to recover then reads as a model that failed."""
    limit = budget.max_turn_s
    if limit is None or not isinstance(policy, OpenAIPolicy):
        return None
    attempts = policy.retries + 1
    longest = attempts * policy.timeout_s + policy.retries * policy.max_backoff_s
    if longest <= limit:
        return None
    return (
        f"a turn may take {limit:g} s, but {policy.spec} may take {longest:g} s to answer one "
        f"({attempts} attempts of up to {policy.timeout_s:g} s, up to "
        f"{policy.max_backoff_s:g} s apart): a turn whose requests keep failing is cut off and "
        f"judged a fail, not an error that is retried; allow at least {longest:g} s a turn"
    )


async def _ping(policy: OpenAIPolicy, *, tools: bool) -> None:
    try:
        await policy.check()
        await policy.probe(tools=tools)
    finally:
        await policy.aclose()
