"""The hand-written workflow task of the tests (not made by the generator)."""

from __future__ import annotations

from pathlib import Path

from assay.tasks import Task
from assay.tasks.taskdir import load_task

FIXTURES = Path(__file__).parent / "fixtures"
ROUTER = FIXTURES / "invoice-router"


def router_task() -> Task:
    """Route invoices to per-region queues, quarantine the malformed, log a summary."""
    return load_task(ROUTER)
