"""``assay demo``: generate a small suite, audit it, profile it with a scripted policy, store
the results, point at the reports.

The demo writes ``<out>/tasks/``, ``<out>/audit.json`` and ``<out>/profile.json``. It replaces
them on a later run only when an earlier demo wrote them (it leaves :data:`DEMO_MARKER` in the
tasks directory), so a directory of someone's own tasks is never deleted.

The profile is of ``mix:SEED`` (:class:`assay.policies.MixedPolicy`), a scripted stand-in for a
model of uneven skill that submits each task's reference or one of its known-bad solutions:
it shows what a profile of a real model looks like (the histogram, the triage of the tails)
without a model. Its pass rates say nothing about the tasks.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from assay._output import require_directory, write_atomically
from assay.audit import AuditReport, TaskAudit, run_audit_into
from assay.errors import InputError
from assay.families.generators import generator_of
from assay.policies import MixedPolicy
from assay.profiles import Profile
from assay.runs import Outcome, RunnerOptions, RunSpec, run_profile, run_rollouts, start_run
from assay.sandbox.protocol import Sandbox
from assay.store import Store
from assay.tasks import Task, TaskSet, save_task

DEMO_TASKS = 24
"""Code tasks in the demo by default."""
DEMO_OTHERS: tuple[tuple[str, int], ...] = (
    ("sql", 4),
    ("config", 4),
    ("workflow", 2),
    ("repo", 2),
)
"""Tasks of the other built-in families beside :data:`DEMO_TASKS` code tasks; scaled with the
number of code tasks asked for, at least one of each."""
DEMO_SEED = 2026
DEMO_PROFILE_K = 8
"""Samples per task of the demo's profile."""
DEMO_MARKER = ".assay-demo"
MARKER_TEXT = "Written by `assay demo`, which replaces this directory when it runs again.\n"


@dataclass(frozen=True)
class DemoResult:
    """Where the demo put things, and the audit it ran."""

    tasks_dir: Path
    report_path: Path
    report: AuditReport
    profile_path: Path
    profile: Profile


def check_demo_out(out: Path) -> None:
    """Raise :class:`InputError` if the demo would replace, in ``out``, anything that an earlier
    demo did not write. Nothing is changed.
    """
    tasks_dir = out / "tasks"
    ours = (tasks_dir / DEMO_MARKER).is_file() and not tasks_dir.is_symlink()
    if ours:
        return
    for path in (tasks_dir, out / "audit.json", out / "profile.json"):
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
    on_episode: Callable[[Outcome], None] | None = None,
) -> DemoResult:
    """Generate ``n`` code tasks and a few of every other built-in family (:func:`demo_counts`)
    into ``out/tasks``, audit them, profile them with ``mix`` (:data:`DEMO_PROFILE_K` samples a
    task), store both and write both reports.

    Raises :class:`InputError` before generating anything if ``out`` cannot take the demo's
    output without losing something (see :func:`check_demo_out`).
    """
    check_demo_out(out)
    require_directory(out)
    tasks_dir = out / "tasks"
    tasks = []
    for family, count in demo_counts(n).items():
        generate = generator_of(family)
        tasks += generate(count, DEMO_SEED, sandbox, workers=workers, on_task=on_generated)
    _write_tasks(tasks, tasks_dir)
    report = run_audit_into(
        store, TaskSet.load(tasks_dir), sandbox, workers=workers, on_task=on_audited
    )
    report_path = out / "audit.json"
    write_atomically(report_path, report.model_dump_json(indent=2))
    profile = profile_demo(
        TaskSet.load(tasks_dir), store, sandbox, workers=workers, on_episode=on_episode
    )
    profile_path = out / "profile.json"
    write_atomically(profile_path, profile.model_dump_json(indent=2))
    return DemoResult(
        tasks_dir=tasks_dir,
        report_path=report_path,
        report=report,
        profile_path=profile_path,
        profile=profile,
    )


def demo_counts(n: int) -> dict[str, int]:
    """How many tasks of each family the demo makes for ``n`` code tasks."""
    others = {family: max(1, count * n // DEMO_TASKS) for family, count in DEMO_OTHERS}
    return {"code": n, **others}


def profile_demo(
    taskset: TaskSet,
    store: Store,
    sandbox: Sandbox,
    *,
    k: int = DEMO_PROFILE_K,
    workers: int = 2,
    on_episode: Callable[[Outcome], None] | None = None,
) -> Profile:
    """Run ``mix:SEED`` ``k`` times on every task as a new rollout run and return its profile."""
    policy = MixedPolicy(DEMO_SEED)
    spec = RunSpec.of(
        taskset.tasks, root=str(taskset.root.resolve()), policy=policy.spec, k=k, mode="tools"
    )
    name = f"demo-profile-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}"
    start_run(store, name, spec)
    run_rollouts(
        store,
        name,
        tasks={task.id: task for task in taskset.tasks},
        policy=policy,
        sandbox=sandbox,
        options=RunnerOptions(max_sandboxes=workers),
        on_outcome=on_episode,
    )
    store.mark_finished(name)
    return run_profile(store, name).profile


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
