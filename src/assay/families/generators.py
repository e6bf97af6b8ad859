"""The built-in families' task generators, found by family name and imported only when asked
for (each pulls in its family's dependencies: sqlglot, moto, the Kubernetes schemas)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task

GENERATED_FAMILIES = ("code", "sql", "config", "workflow", "repo")
"""The families with a generator, in the order the demo makes them."""


class Generator(Protocol):
    """``generate_<family>_tasks``: ``count`` self-checked tasks, the same for the same seed."""

    def __call__(
        self,
        count: int,
        seed: int,
        sandbox: Sandbox,
        /,
        *,
        workers: int = ...,
        on_task: Callable[[Task], None] | None = ...,
    ) -> list[Task]:
        """Generate the tasks."""
        ...


def in_parallel(
    n: int,
    make: Callable[[int], Task],
    *,
    workers: int,
    on_task: Callable[[Task], None] | None,
) -> list[Task]:
    """``make(0)`` to ``make(n - 1)`` on ``workers`` threads, in index order; ``on_task`` is
    told of each task as it is made."""

    def made(index: int) -> Task:
        task = make(index)
        if on_task is not None:
            on_task(task)
        return task

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(made, range(n)))


def generator_of(family: str) -> Generator:
    """The generator of the built-in ``family`` (one of :data:`GENERATED_FAMILIES`)."""
    if family == "sql":
        from assay.families.sql.generator import generate_sql_tasks  # noqa: PLC0415

        return generate_sql_tasks
    if family == "config":
        from assay.families.config.generator import generate_config_tasks  # noqa: PLC0415

        return generate_config_tasks
    if family == "workflow":
        from assay.families.workflow.generator import generate_workflow_tasks  # noqa: PLC0415

        return generate_workflow_tasks
    if family == "code":
        from assay.families.code.generator import generate_code_tasks  # noqa: PLC0415

        return generate_code_tasks
    if family == "repo":
        from assay.families.repo.generator import generate_repo_tasks  # noqa: PLC0415

        return generate_repo_tasks
    raise ValueError(f"no generator for family {family!r}")
