"""An episode of every built-in family through the client: the reference passes, a known-bad
solution fails, each over the family's own tools."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from assay.families import get_family
from assay.families.base import ToolFamily
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.tasks.taskdir import load_task
from tests.families.repo.conftest import named_task
from tests.server.conftest import Running, running

pytestmark = pytest.mark.sandbox
FAMILIES = Path(__file__).parents[1] / "families"
TASKS = {
    "sql": ("sql/fixtures/retail-orders-per-customer", "bad-inner-join", ("schema", {})),
    "config": ("config/fixtures/netpol-only-api-reaches-db", "bad-any-namespace", ("cluster", {})),
    "workflow": (
        "workflow/fixtures/invoice-router",
        "bad-wrong-routing",
        ("aws", {"service": "sqs", "operation": "ListQueues"}),
    ),
    "repo": (
        "repo-shift-exporter-decimal-comma",  # generated: see tests/families/repo/conftest.py
        "bad-comma-everywhere",
        ("search", {"text": "hours_text"}),
    ),
}


@pytest.fixture(scope="module")
def family_tasks(pool: PoolSandbox) -> list[Task]:
    stored = [load_task(FAMILIES / path) for name, (path, _, _) in TASKS.items() if name != "repo"]
    return [*stored, named_task(TASKS["repo"][0], pool)]


@pytest.fixture(scope="module")
def server(
    pool: PoolSandbox, family_tasks: list[Task], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Running]:
    with pytest.MonkeyPatch.context() as patch:  # the sql family's engine files
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        with running(family_tasks, pool) as live:
            yield live


def _calls(task: Task, solution: str) -> list[tuple[str, dict[str, Any]]]:
    family = cast(ToolFamily, get_family(task.family))
    return family.tools(task).script(task.solutions[solution])


@pytest.mark.parametrize("family", sorted(TASKS))
@pytest.mark.parametrize("solution", ["reference", "bad"])
def test_an_episode_of_each_family(
    server: Running, pool: PoolSandbox, family_tasks: list[Task], family: str, solution: str
) -> None:
    [task] = [task for task in family_tasks if task.family == family]
    _, bad, (look, arguments) = TASKS[family]
    with server.client() as client, client.session(task.id) as session:
        names = [tool["function"]["name"] for tool in session.observation.tools]
        assert look in names
        assert "submit" in names
        looked = session.step(look, arguments)
        assert looked.ok, looked.output
        assert not looked.done
        result = None
        for name, call in _calls(task, "reference" if solution == "reference" else bad):
            result = session.step(name, call)
        assert result is not None
        assert result.done
        assert result.verdict is not None
        if solution == "reference":
            assert result.verdict.status == "pass", result.verdict.summary
            assert result.reward is not None
            assert result.reward > 0.5
        else:
            assert result.verdict.status == "fail", result.verdict.summary
            assert result.reward is not None
            assert result.reward < 1.0
            _shows_no_evidence(task, bad, result.model_dump_json(), pool)


def _shows_no_evidence(task: Task, bad: str, answer: str, pool: PoolSandbox) -> None:
    """The family's own verdict explains the failure with expected values: none reach the
    client."""
    full = get_family(task.family).verify(task, task.solutions[bad], pool)
    evidence = [c.evidence for c in full.criteria if not c.passed and c.evidence]
    assert evidence
    for text in evidence:
        assert text not in answer
        assert text[:40] not in answer
