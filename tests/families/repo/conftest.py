"""Repo tasks for the tests, generated (a task directory holds the whole project once per
solution, so none is stored): two named ones, and one of each template."""

from __future__ import annotations

import pytest

from assay.families.repo.generator import make_task
from assay.families.repo.templates import TEMPLATES
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task

NAMED = {
    "repo-shift-exporter-decimal-comma": ("shift-exporter", "decimal-comma", "ticket"),
    "repo-ledger-reconciler-sorted-leftovers": ("ledger-reconciler", "sorted-leftovers", "precise"),
}
"""Tasks by id: the shift exporter's decimal comma (its visible tests encode the bug), and the
reconciler's sorted leftovers (a vague request with two readings)."""


def named_task(task_id: str, sandbox: Sandbox) -> Task:
    """The task of :data:`NAMED` called ``task_id``, the same on every call."""
    template_id, change_id, style = NAMED[task_id]
    [template] = [t for t in TEMPLATES if t.id == template_id]
    [change] = [c for c in template.changes if c.id == change_id]
    task = make_task((template, change, style), 5, 0, sandbox)
    return task.model_copy(update={"spec": task.spec.model_copy(update={"id": task_id})})


@pytest.fixture(scope="module")
def decimal_comma(pool: PoolSandbox) -> Task:
    return named_task("repo-shift-exporter-decimal-comma", pool)


@pytest.fixture(scope="module")
def sorted_leftovers(pool: PoolSandbox) -> Task:
    return named_task("repo-ledger-reconciler-sorted-leftovers", pool)


@pytest.fixture(scope="module")
def generated(pool: PoolSandbox) -> list[Task]:
    """One freshly generated task of each template, in different prompt styles."""
    styles = ("traceback", "forwarded", "ticket", "precise")
    return [
        make_task((template, template.changes[0], styles[index % len(styles)]), 9, index, pool)
        for index, template in enumerate(TEMPLATES)
    ]
