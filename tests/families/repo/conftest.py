"""Repo tasks for the tests: two stored fixtures and one generated task of each template."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.families.repo.generator import make_task
from assay.families.repo.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.tasks import Task, load_task

FIXTURES = Path(__file__).parent / "fixtures"
collect_ignore_glob = ["fixtures/*"]  # whole projects, with test files of their own


def fixture_task(name: str) -> Task:
    """A stored repo task: ``repo-shift-exporter-decimal-comma`` or
    ``repo-ledger-reconciler-sorted-leftovers`` (a vague request with two readings)."""
    return load_task(FIXTURES / name)


@pytest.fixture(scope="module")
def decimal_comma() -> Task:
    return fixture_task("repo-shift-exporter-decimal-comma")


@pytest.fixture(scope="module")
def sorted_leftovers() -> Task:
    return fixture_task("repo-ledger-reconciler-sorted-leftovers")


@pytest.fixture(scope="module")
def generated(pool: PoolSandbox) -> list[Task]:
    """One freshly generated task of each template, in different prompt styles."""
    styles = ("traceback", "forwarded", "ticket")
    return [
        make_task((template, template.changes[0], style), 9, index, pool)
        for index, (template, style) in enumerate(zip(TEMPLATES, styles, strict=False))
    ]
