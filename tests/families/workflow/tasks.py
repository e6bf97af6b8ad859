"""The hand-written workflow tasks of the tests (not made by the generator)."""

from __future__ import annotations

from pathlib import Path

from assay.families.workflow.state import CloudState
from assay.tasks import Task
from assay.tasks.taskdir import load_task

FIXTURES = Path(__file__).parent / "fixtures"
ROUTER = FIXTURES / "invoice-router"


def router_task() -> Task:
    """Route invoices to per-region queues, quarantine the malformed, log a summary."""
    return load_task(ROUTER)


def state_task(initial: CloudState, expected: CloudState, reference: str) -> Task:
    """The router task's settings with other states and reference, judged in one run."""
    task = router_task()
    config = {**task.spec.config, "rerun": "off"}
    return task.model_copy(
        update={
            "spec": task.spec.model_copy(update={"config": config}),
            "workspace": {"state.json": initial.to_json()},
            "hidden": {"expected.json": expected.to_json()},
            "solutions": {"reference": {"solution.py": reference.encode()}},
        }
    )
