"""``assay demo``: generate a small suite, audit it, store the results, point at the report.

The demo writes ``<out>/tasks/`` and ``<out>/audit.json``. It replaces them on a later run only
when an earlier demo wrote them (it leaves :data:`DEMO_MARKER` in the tasks directory), so a
directory of someone's own tasks is never deleted.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay._output import require_directory, write_atomically
from assay.audit import AuditReport, TaskAudit, run_audit_into
from assay.errors import InputError
from assay.families.code.generator import generate_code_tasks
from assay.sandbox.protocol import Sandbox
from assay.store import Store
from assay.tasks import Task, TaskSet, save_task

DEMO_TASKS = 24
DEMO_SEED = 2026
DEMO_MARKER = ".assay-demo"
MARKER_TEXT = "Written by `assay demo`, which replaces this directory when it runs again.\n"


@dataclass(frozen=True)
class DemoResult:
    """Where the demo put things, and the audit it ran."""

    tasks_dir: Path
    report_path: Path
    report: AuditReport


def check_demo_out(out: Path) -> None:
    """Raise :class:`InputError` if the demo would replace, in ``out``, anything that an earlier
    demo did not write. Nothing is changed.
    """
    tasks_dir, report_path = out / "tasks", out / "audit.json"
    ours = (tasks_dir / DEMO_MARKER).is_file() and not tasks_dir.is_symlink()
    if ours:
        return
    for path in (tasks_dir, report_path):
        if _holds_anything(path):
            raise InputError(
                "already exists and was not written by assay demo",
                path=path,
                fix="choose another directory with --out, or move it away",
            )


def _holds_anything(path: Path) -> bool:
    """Whether ``path`` is anything but absent or an empty directory."""
    if path.is_symlink():
        return True
    if path.is_dir():
        return any(path.iterdir())
    return path.exists()


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
    """Generate ``n`` code tasks into ``out/tasks``, audit them, store and write the report.

    Raises :class:`InputError` before generating anything if ``out`` cannot take the demo's
    output without losing something (see :func:`check_demo_out`).
    """
    check_demo_out(out)
    require_directory(out)
    tasks_dir = out / "tasks"
    tasks = generate_code_tasks(n, DEMO_SEED, sandbox, workers=workers, on_task=on_generated)
    _write_tasks(tasks, tasks_dir)
    report = run_audit_into(
        store, TaskSet.load(tasks_dir), sandbox, workers=workers, on_task=on_audited
    )
    report_path = out / "audit.json"
    write_atomically(report_path, report.model_dump_json(indent=2))
    return DemoResult(tasks_dir=tasks_dir, report_path=report_path, report=report)


def _write_tasks(tasks: list[Task], tasks_dir: Path) -> None:
    """Write the tasks beside ``tasks_dir``, marked as the demo's, then swap them in."""
    staging = Path(tempfile.mkdtemp(prefix=".tasks.", dir=tasks_dir.parent))
    try:
        for task in tasks:
            save_task(task, staging)
        (staging / DEMO_MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        check_demo_out(tasks_dir.parent)
        if tasks_dir.exists():
            retired = Path(tempfile.mkdtemp(prefix=".tasks.old.", dir=tasks_dir.parent))
            tasks_dir.rename(retired / "tasks")
            staging.rename(tasks_dir)
            shutil.rmtree(retired)
        else:
            staging.rename(tasks_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
