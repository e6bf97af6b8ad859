"""``assay demo``: generate a small suite, audit it, store the results, point at the report."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.audit import AuditReport, TaskAudit, run_audit
from assay.families.code.generator import generate_code_tasks
from assay.sandbox.protocol import Sandbox
from assay.store import Store
from assay.tasks import Task, TaskSet, save_task
from assay.verdicts import Verdict

DEMO_TASKS = 24
DEMO_SEED = 2026


@dataclass(frozen=True)
class DemoResult:
    """Where the demo put things, and the audit it ran."""

    tasks_dir: Path
    report_path: Path
    report: AuditReport


def run_demo(
    out: Path,
    store: Store,
    sandbox: Sandbox,
    *,
    n: int = DEMO_TASKS,
    workers: int = 2,
    on_generated: Callable[[Task], None] | None = None,
    on_audited: Callable[[TaskAudit], None] | None = None,
) -> DemoResult:
    """Generate ``n`` code tasks into ``out/tasks``, audit them, store and write the report."""
    tasks_dir = out / "tasks"
    if tasks_dir.exists():
        shutil.rmtree(tasks_dir)
    tasks = generate_code_tasks(n, DEMO_SEED, sandbox, workers=workers, on_task=on_generated)
    for task in tasks:
        save_task(task, tasks_dir)
    verdicts: list[tuple[str, Verdict]] = []
    report = run_audit(
        TaskSet.load(tasks_dir),
        sandbox,
        workers=workers,
        on_task=on_audited,
        on_verdict=lambda _task, v: verdicts.append((v.solution, v.verdict)),
    )
    store.add_audit(report, verdicts)
    report_path = out / "audit.json"
    report_path.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    return DemoResult(tasks_dir=tasks_dir, report_path=report_path, report=report)
