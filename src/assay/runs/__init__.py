"""Durable runs: every episode of a run is a job in the store that runs to completion at most
once, so that a run survives crashes, is resumed by its name, and can be shared by several
runner processes.

:func:`start_run` creates or resumes a run (:class:`RunSpec` is what it is asked to do);
:func:`run_rollouts` (or a :class:`Runner` on a running event loop) runs its jobs;
:func:`open_policy` parses a policy spec with the store at hand (``replay:RUN``), and
:func:`turn_time_note` says when a budget's time for a turn is shorter than its retries;
:func:`run_profile` reads a run's pass-rate profile.
"""

from assay.runs.listing import RunRow, list_runs, rollout_episodes, verdict_items
from assay.runs.plan import RunSpec, Started, differences, start_run
from assay.runs.policies import check_policy, open_policy, recorded_episodes, turn_time_note
from assay.runs.profiling import run_profile
from assay.runs.runner import (
    Outcome,
    Runner,
    RunnerOptions,
    SampledPolicy,
    interrupt_rollouts,
    run_rollouts,
)

__all__ = [
    "Outcome",
    "RunRow",
    "RunSpec",
    "Runner",
    "RunnerOptions",
    "SampledPolicy",
    "Started",
    "check_policy",
    "differences",
    "interrupt_rollouts",
    "list_runs",
    "open_policy",
    "recorded_episodes",
    "rollout_episodes",
    "run_profile",
    "run_rollouts",
    "start_run",
    "turn_time_note",
    "verdict_items",
]
