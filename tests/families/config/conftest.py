"""Fixtures of the config family's tests: the hand-written task and ways to change it."""

from __future__ import annotations

from pathlib import Path

from assay.tasks import Task
from assay.tasks.taskdir import load_task

FIXTURES = Path(__file__).parent / "fixtures"
ONLY_API = "netpol-only-api-reaches-db"


def fixture_task(name: str = ONLY_API) -> Task:
    """One of the hand-written tasks."""
    return load_task(FIXTURES / name)


def with_config(task: Task, **config: object) -> Task:
    """``task`` with its ``[config]`` table changed."""
    merged = {**task.spec.config, **config}
    return task.model_copy(update={"spec": task.spec.model_copy(update={"config": merged})})


def with_hidden(task: Task, name: str, data: bytes) -> Task:
    """``task`` with one hidden file replaced."""
    return task.model_copy(update={"hidden": {**task.hidden, name: data}})


def with_workspace(task: Task, name: str, data: bytes) -> Task:
    """``task`` with one workspace file replaced."""
    return task.model_copy(update={"workspace": {**task.workspace, name: data}})
