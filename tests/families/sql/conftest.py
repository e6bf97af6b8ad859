"""Fixtures of the sql family's tests: the hand-written retail tasks and a private engine cache."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.families.sql import databases
from assay.tasks import Task
from assay.tasks.taskdir import load_task

FIXTURES = Path(__file__).parent / "fixtures"
REVENUE = "retail-q1-revenue-by-category"
ORDERS = "retail-orders-per-customer"
CITIES = "retail-cities-with-email"


@pytest.fixture(scope="session", autouse=True)
def engine_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Engine files built by these tests go to a directory of their own. The engine files that
    tests of other directories made before, in this process, are forgotten: kept in memory, they
    would be used without a file in this directory."""
    home = tmp_path_factory.mktemp("cache")
    databases.engine_data.cache_clear()
    databases.engine_bytes.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(home))
        yield home / "assay" / "sql"


def fixture_task(name: str) -> Task:
    """One of the hand-written retail tasks."""
    return load_task(FIXTURES / name)


def visible_only(task: Task) -> Task:
    """``task`` with its neighbour databases taken away: the visible database alone."""
    return task.model_copy(update={"hidden": {}})


def hashes(directory: Path) -> dict[str, str]:
    """The content hash of every file under ``directory``."""
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }
