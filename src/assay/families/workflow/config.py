"""The workflow family's task settings (``[workflow]`` in task.toml) and its state files."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.errors import TaskFormatError
from assay.families.workflow.state import CloudState, parse_state
from assay.tasks.model import Task
from assay.tasks.spec import Count, Number

SCRIPT = "solution.py"
"""The file of a solution directory that holds its script."""
READING_SEPARATOR = "-"
"""Between the expected file's stem and a reading's name: ``expected-<reading>.json``."""


class WorkflowConfig(BaseModel):
    """Where the states are and what else is judged, from ``[workflow]`` of task.toml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    initial: str = Field(
        default="state.json",
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.json$",
        description="The initial state in workspace/ (the agent sees it; the emulator is seeded "
        "with it).",
    )
    expected: str = Field(
        default="expected.json",
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.json$",
        description="The expected final state in hidden/.",
    )
    rerun: Literal["required", "scored", "off"] = Field(
        default="required",
        description="Whether a script submission whose final state is right is run a second "
        "time on that state: required (a change is a fail), scored (a change lowers the score "
        "only), off.",
    )
    rerun_weight: Number = Field(
        default=1.0, ge=0, le=10, description="Weight of the idempotence criterion."
    )
    reference_calls: Count | None = Field(
        default=None,
        ge=1,
        description="API requests the reference's first run made (recorded by the generator).",
    )
    calls_weight: Number = Field(
        default=0.0,
        ge=0,
        le=10,
        description="Weight of the api-calls criterion: the reference's requests over the "
        "submission's, at most 1; it counts in the score only. 0 (or no reference_calls): "
        "the count is shown, not scored.",
    )
    seed: Count = Field(default=0, description="Seed the task was generated with (provenance).")


def workflow_config(task: Task) -> WorkflowConfig:
    """The task's ``[workflow]`` settings; raises :class:`TaskFormatError` naming the field."""
    try:
        return WorkflowConfig.model_validate(task.spec.config)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "workflow." + ".".join(str(part) for part in first["loc"])
        raise TaskFormatError(
            first["msg"],
            path=f"{task.id}/task.toml",
            field=field,
            fix="correct the [workflow] table",
        ) from None


def initial_state(task: Task, config: WorkflowConfig) -> CloudState:
    """The state the task starts from, from ``workspace/``. It holds no settings: the emulator
    is seeded with contents only."""
    state = _state(task, task.workspace, "workspace", config.initial, "initial")
    if state.settings:
        raise TaskFormatError(
            "the initial state holds settings, which the emulator is not seeded with",
            path=f"{task.id}/workspace/{config.initial}",
            field="settings",
            fix="start from resources at their default settings, or make the change part of "
            "the task",
        )
    return state


def expected_state(task: Task, config: WorkflowConfig) -> CloudState:
    """The state the task must end with, from ``hidden/``."""
    return _state(task, task.hidden, "hidden", config.expected, "expected")


def expected_states(task: Task, config: WorkflowConfig) -> dict[str, CloudState]:
    """Every reasonable reading's final state: ``""`` for the expected file, and ``<reading>``
    for each other reading's file (see :func:`reading_files`). Raises
    :class:`TaskFormatError` for any that is missing or malformed."""
    states = {"": expected_state(task, config)}
    for reading, name in reading_files(task, config).items():
        states[reading] = _state(task, task.hidden, "hidden", name, "expected")
    return states


def reading_files(task: Task, config: WorkflowConfig) -> dict[str, str]:
    """The hidden files of a vague request's other readings by reading:
    ``<expected stem>-<reading>.json`` beside the expected file."""
    stem = config.expected.removesuffix(".json") + READING_SEPARATOR
    found = {}
    for name in sorted(task.hidden):
        reading = name.removeprefix(stem).removesuffix(".json")
        if name.startswith(stem) and name.endswith(".json") and reading:
            found[reading] = name
    return found


def _state(task: Task, files: dict[str, bytes], where: str, name: str, field: str) -> CloudState:
    path = f"{task.id}/{where}/{name}"
    data = files.get(name)
    if data is None:
        raise TaskFormatError(
            "the file is missing",
            path=path,
            field=f"workflow.{field}",
            fix=f"add {where}/{name} or name the right file in [workflow] {field}",
        )
    return parse_state(data, path)
