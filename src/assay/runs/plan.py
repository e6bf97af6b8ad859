"""What a rollout run is asked to do, and starting or resuming one by its name.

A run's identity is its tasks (each id at its content version), its policy (spec and sampling),
k and its mode. Resuming a run by name with any of these different is refused with one line
saying what differs: a run's episodes must all answer the same question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.episodes.records import Mode
from assay.errors import InputError, StoreError
from assay.families import family_of, version_label
from assay.families.base import gives_tools, no_episodes
from assay.policies.base import Sampling
from assay.store import NewJob, Store
from assay.tasks.model import Task

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A run's name, matched whole (``$`` would let a trailing newline through)."""


class RunSpec(BaseModel):
    """A rollout run's identity, kept with the run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tasks: dict[str, str] = Field(description="Task id to its content version.")
    root: str = Field(description="Where the tasks were loaded from (not compared on resume).")
    policy: str = Field(description="The policy spec.")
    sampling: Sampling = Field(default_factory=Sampling, description="Sampling parameters.")
    k: int = Field(ge=1, description="Episodes per task.")
    mode: Mode = Field(description="tools or single.")
    max_turns: int | None = Field(
        default=None,
        ge=1,
        description="Policy turns an episode may take (None: a run from before it was kept, "
        "not compared on resume).",
    )
    max_turn_s: float | None = Field(
        default=None,
        gt=0,
        description="Seconds one policy turn may take before it is cut off (None: a run from "
        "before it was kept, not compared on resume).",
    )

    @classmethod
    def of(
        cls,
        tasks: Sequence[Task],
        *,
        root: str,
        policy: str,
        k: int,
        mode: Mode,
        sampling: Sampling | None = None,
        max_turns: int | None = None,
        max_turn_s: float | None = None,
    ) -> RunSpec:
        """The spec of running ``tasks`` with ``policy``, ``k`` times each, in ``mode``, at
        most ``max_turns`` turns an episode and ``max_turn_s`` seconds a turn. Raises
        :class:`InputError` for a task no episode can be formed on (its family gives agents no
        tools), before any run is made of it."""
        for task in tasks:
            _require_episodes(task)
        versions = {task.id: task.content_version(version_label(family_of(task))) for task in tasks}
        return cls(
            tasks=versions,
            root=root,
            policy=policy,
            sampling=sampling or Sampling(),
            k=k,
            mode=mode,
            max_turns=max_turns,
            max_turn_s=max_turn_s,
        )

    def jobs(self) -> Iterator[NewJob]:
        """One job an episode: every task at sample 0, then every task at sample 1, and so on,
        so that an unfinished run has covered the tasks evenly. Made one at a time as they are
        queued: a run of many tasks at a large k holds millions."""
        tasks = sorted(self.tasks.items())
        for sample in range(self.k):
            for task, version in tasks:
                yield NewJob(
                    task_id=task,
                    task_version=version,
                    sample=sample,
                    policy=self.policy,
                    mode=self.mode,
                )


def kept_spec(name: str, stored: object, *, doing: str, field: str, fix: str) -> RunSpec:
    """The spec of run ``name`` as the store keeps it; a one-line :class:`InputError` saying it
    cannot be ``doing`` (resumed, profiled) when another assay wrote it."""
    try:
        return RunSpec.model_validate(stored)
    except ValidationError:
        raise InputError(
            f"run {name!r} was written by another assay and cannot be {doing}",
            field=field,
            fix=fix,
        ) from None


def _require_episodes(task: Task) -> None:
    """Refuse ``task`` when its family gives agents no tools: every episode of it would stop
    the run, which could then neither finish nor be resumed with these tasks."""
    family = family_of(task)
    if not gives_tools(family):
        raise InputError(
            f"task {task.id}: {no_episodes(family, task)}",
            field="family",
            fix="leave its tasks out of the run's task set (episodes run on families with "
            "tools, such as code)",
        )


@dataclass(frozen=True)
class Started:
    """The run as it starts: new, or resumed with what it already holds."""

    name: str
    spec: RunSpec
    state: Literal["new", "resumed"]
    reopened: int = 0
    """Episodes that had ended in error, or without a score, and are queued again (on a
    resume)."""


def start_run(store: Store, name: str, spec: RunSpec) -> Started:
    """Create rollout run ``name`` with its jobs, or resume it when it exists with this spec.

    On a resume, the episodes that ended in error or without a score (a judge that could not
    be reached) are queued again; the others are kept.
    Raises :class:`InputError` for a bad name, a name an audit run has, or a spec that differs
    from the run's (the message says what differs).
    """
    if not NAME.fullmatch(name):
        raise InputError(
            f"{name!r:.100} is not a run name",
            field="run",
            fix="use letters, digits, '.', '_' and '-', at most 100",
        )
    existing = store.run(name)
    if existing is None:
        try:
            store.create_rollout(name, spec.model_dump(mode="json"), spec.jobs())
        except StoreError:
            if store.run(name) is None:
                raise
            return start_run(store, name, spec)  # another runner created it just now
        return Started(name=name, spec=spec, state="new")
    if existing.kind != "rollout":
        raise InputError(
            f"{name!r} is the name of an {existing.kind} run", field="run", fix="pick another name"
        )
    kept = kept_spec(name, existing.spec, doing="resumed", field="run", fix="pick another name")
    differs = differences(kept, spec)
    if differs:
        raise InputError(
            f"run {name!r} was started with {differs}",
            field="run",
            fix="resume it with the same tasks, policy, k, mode, max-turns and "
            "max-turn-seconds, or pick another --run name",
        )
    return Started(name=name, spec=kept, state="resumed", reopened=store.reopen_errors(name))


def differences(kept: RunSpec, asked: RunSpec) -> str:
    """What differs between a run's spec and the one asked for, in words; empty when none."""
    parts = []
    if kept.policy != asked.policy:
        parts.append(f"policy {kept.policy}, not {asked.policy}")
    if kept.sampling != asked.sampling:
        parts.append(f"sampling {_sampling(kept.sampling)}, not {_sampling(asked.sampling)}")
    if kept.k != asked.k:
        parts.append(f"k {kept.k}, not {asked.k}")
    if kept.mode != asked.mode:
        parts.append(f"mode {kept.mode}, not {asked.mode}")
    if kept.max_turns is not None and kept.max_turns != asked.max_turns:
        parts.append(f"max-turns {kept.max_turns}, not {asked.max_turns}")
    if kept.max_turn_s is not None and kept.max_turn_s != asked.max_turn_s:
        asked_s = "none" if asked.max_turn_s is None else f"{asked.max_turn_s:g}"
        parts.append(f"max-turn-seconds {kept.max_turn_s:g}, not {asked_s}")
    if kept.tasks != asked.tasks:
        parts.append(_task_difference(kept.tasks, asked.tasks))
    return "; ".join(parts)


def _task_difference(kept: dict[str, str], asked: dict[str, str]) -> str:
    missing = sorted(set(kept) - set(asked))
    added = sorted(set(asked) - set(kept))
    changed = sorted(t for t in set(kept) & set(asked) if kept[t] != asked[t])
    words = []
    for count, what, examples in (
        (len(missing), "not given now", missing),
        (len(added), "not in the run", added),
        (len(changed), "changed since", changed),
    ):
        if count:
            words.append(
                f"{count} {'task' if count == 1 else 'tasks'} {what} ({examples[0]}"
                f"{', ...' if count > 1 else ''})"
            )
    return "other tasks: " + ", ".join(words)


def _sampling(sampling: Sampling) -> str:
    set_ = sampling.model_dump(exclude_none=True)
    return ", ".join(f"{key}={value}" for key, value in set_.items()) or "defaults"
