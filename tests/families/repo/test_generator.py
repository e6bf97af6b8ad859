"""The generator: every change of every template makes a sound task, tasks are deterministic
and complete, and a generated set passes its own audit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import Decision, run_audit
from assay.families.repo.generator import combo_order, generate_repo_tasks, make_task
from assay.families.repo.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.tasks import TaskSet, load_task, save_task

pytestmark = pytest.mark.sandbox


@pytest.mark.parametrize(
    ("template", "change"),
    [(t, c) for t in TEMPLATES for c in t.changes],
    ids=lambda item: item.id,
)
def test_every_change_makes_a_sound_task(
    pool: PoolSandbox, template: object, change: object
) -> None:
    # make_task itself checks that every reference passes and every known-bad fails
    task = make_task((template, change, "precise"), 2, 0, pool)  # type: ignore[arg-type]
    cases = json.loads(task.hidden["cases.json"])["cases"]
    kinds = {case["kind"] for case in cases}
    assert kinds == {"fail-to-pass", "pass-to-pass"}
    assert {"bad-does-nothing", "bad-edited-tests", "bad-special-cases-report"} <= set(
        task.known_bad()
    )
    assert task.workspace != task.solutions["reference"]
    for case in cases:  # expected outcomes stay hidden
        shown = json.dumps(case["expect"]["value"], ensure_ascii=False)
        assert len(shown) < 12 or shown not in task.prompt


def test_the_set_is_deterministic_and_covers_the_bank(pool: PoolSandbox, tmp_path: Path) -> None:
    tasks = generate_repo_tasks(6, 4, pool)
    assert generate_repo_tasks(6, 4, pool) == tasks
    for task in tasks:
        assert load_task(save_task(task, tmp_path)) == task
    combos = combo_order(sum(len(t.changes) for t in TEMPLATES) * 4, 1)
    assert len({(t.id, c.id, s) for t, c, s in combos}) == len(combos)


def test_a_generated_set_passes_its_audit(
    pool: PoolSandbox, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    out = tmp_path / "tasks"
    result = run_cli("generate", "repo", "--count", "6", "--seed", "8", "--out", str(out))
    assert result.exit_code == 0, result.output
    report = run_audit(TaskSet.load(out), pool)
    assert [t.task_id for t in report.tasks if t.decision is not Decision.ACCEPTED] == []
    assert report.known_bad_caught == report.known_bad >= 6 * 4
    assert all(t.red_team is not None and t.red_team.tried >= 10 for t in report.tasks)
    assert all(t.red_team is not None and not t.red_team.won for t in report.tasks)


def test_generated_tasks_play_through_assay_run(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "tasks"
    assert (
        run_cli("generate", "repo", "--count", "3", "--seed", "5", "--out", str(out)).exit_code == 0
    )
    for policy, mode, passed in (
        ("reference", "tools", "3"),
        ("reference", "single", "3"),
        ("empty", "tools", "0"),
        ("empty", "single", "0"),
    ):
        result = run_cli(
            "run", str(out), "--policy", policy, "--mode", mode, "--run", f"{policy}-{mode}"
        )
        assert result.exit_code == 0, result.output
        [line] = [line for line in result.output.splitlines() if "│ passed" in line]
        assert line.split("│")[2].strip() == passed, (policy, mode, result.output)
