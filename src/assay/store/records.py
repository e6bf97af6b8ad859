"""What the store gives back: runs of both kinds, verdicts, jobs of the queue, episodes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.episodes.records import Trajectory
from assay.verdicts import Verdict

RunKind = Literal["audit", "rollout"]


class StoredVerdict(BaseModel):
    """A verdict as kept in the store, with what it judged."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(description="Row id.")
    run_id: str | None = Field(description="The run that produced it, if any.")
    solution: str = Field(description="What was judged: a solution's label or path, or a policy.")
    sample: int | None = Field(
        default=None, description="The sample index, for a verdict of a rollout run's episode."
    )
    verdict: Verdict = Field(description="The verdict itself.")


class StoredRun(BaseModel):
    """The totals of one audit run as kept in the store."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(description="Unique id of the audit run.")
    root: str = Field(description="The directory audited.")
    started_at: datetime = Field(description="When the run started (UTC).")
    finished_at: datetime = Field(description="When the run finished (UTC).")
    checks: tuple[str, ...] = Field(description="Names of the checks applied.")
    tasks: int = Field(description="Tasks audited.")
    accepted: int = Field(description="Tasks accepted.")
    rejected: int = Field(description="Tasks rejected.")
    quarantined: int = Field(default=0, description="Tasks quarantined for review.")
    errors: int = Field(default=0, description="Tasks that could not be audited (error).")
    known_bad: int = Field(description="Known-bad solutions across the set.")
    known_bad_caught: int = Field(description="Known-bad solutions that failed, as they must.")


class RunRecord(BaseModel):
    """One run of either kind, by its name: audit runs and rollout runs share the names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="The run's name, unique across kinds.")
    kind: RunKind = Field(description="audit or rollout.")
    created_at: datetime = Field(description="When the run was started first (UTC).")
    finished_at: datetime | None = Field(
        default=None, description="When it last finished (UTC); None while unfinished."
    )
    spec: dict[str, Any] = Field(
        default_factory=dict, description="What the run was asked to do, as it was asked."
    )


class NewJob(BaseModel):
    """One episode to run: a task version, a policy, a sample index and a mode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="Id of the task.")
    task_version: str = Field(description="Content version of the task.")
    sample: int = Field(ge=0, description="Sample index, from 0 to k - 1.")
    policy: str = Field(description="The policy spec.")
    mode: str = Field(description="tools or single.")


class Job(BaseModel):
    """A job as claimed: the lease token proves the claim when the job is finished."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    job_id: int = Field(description="Row id of the job.")
    run_name: str = Field(description="The run it belongs to.")
    task_id: str = Field(description="Id of the task.")
    task_version: str = Field(description="Content version of the task.")
    sample: int = Field(description="Sample index.")
    policy: str = Field(description="The policy spec.")
    mode: str = Field(description="tools or single.")
    attempts: int = Field(description="Attempts that ended in error so far.")
    lease_token: str = Field(description="The claim that holds the job now.")


class JobCounts(BaseModel):
    """Where a run's jobs are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    total: int = Field(default=0, description="Jobs in the run.")
    done: int = Field(default=0, description="Jobs finished: a verdict is kept for each.")
    passed: int = Field(default=0, description="Finished with a pass.")
    failed: int = Field(default=0, description="Finished with a fail.")
    errors: int = Field(default=0, description="Finished with an error, retries spent.")
    leased: int = Field(default=0, description="Held by a runner now.")
    retrying: int = Field(
        default=0, description="Waiting for a retry after an error or a verdict without a score."
    )

    @property
    def unfinished(self) -> int:
        """Jobs without a verdict yet."""
        return self.total - self.done


class Finished(BaseModel):
    """An episode that ended, to be kept with its job marked done, in one transaction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    job: Job = Field(description="The job, as claimed.")
    trajectory: Trajectory = Field(description="The whole episode, verdict included.")
    error: str | None = Field(default=None, description="Set when the episode ended in error.")


class EpisodeTotals(BaseModel):
    """Sums over a run's finished episodes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episodes: int = Field(default=0, description="Episodes kept.")
    passed: int = Field(default=0, description="Episodes that passed.")
    failed: int = Field(default=0, description="Episodes that failed.")
    errors: int = Field(default=0, description="Episodes that ended in error (never scored).")
    input_tokens: int = Field(default=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, description="Completion tokens.")
    usd: float | None = Field(
        default=None, description="Price of the tokens; None when some model had no price."
    )
    sandbox_cpu_s: float = Field(default=0.0, description="Sandbox CPU-seconds.")
    wall_s: float = Field(default=0.0, description="Wall time of the episodes, summed.")

    @property
    def pass_rate(self) -> float | None:
        """Passes over the scored episodes (errors left out); None when none was scored."""
        scored = self.passed + self.failed
        return self.passed / scored if scored else None


class StoredEpisode(BaseModel):
    """A rollout run's finished episode: its sample index and its whole trajectory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_name: str = Field(description="The run.")
    sample: int = Field(description="Sample index.")
    trajectory: Trajectory = Field(description="The episode, verdict included.")


class FrozenPrint(BaseModel):
    """What the contamination check needs to recognise a copy of a frozen task that is not in
    the set audited: kept by each audit for every frozen task it saw, the latest for each id.
    Neither its words nor its hidden data are kept in clear text."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    task_version: str
    run_id: str
    """The audit run that recorded it."""
    grams: frozenset[str]
    """A hash of each word n-gram of its prompt (:func:`assay.audit.setchecks.gram_hash`)."""
    verifier: frozenset[str]
    """Its verifier fingerprints (:func:`assay.audit.verifier_copies.verifier_fingerprints`)."""
