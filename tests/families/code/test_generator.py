"""The generator: deterministic, diverse, and every task it writes passes its own audit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from assay.audit import Decision, run_audit
from assay.families.code.generator import generate_code_tasks
from assay.families.code.templates import TEMPLATES
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task, TaskSet, load_task, save_task
from assay.tasks.similarity import near_duplicates
from tests.conftest import expected_outputs


def test_same_seed_same_tasks_other_seed_other_tasks(sandbox: Sandbox) -> None:
    first = generate_code_tasks(4, 11, sandbox)
    again = generate_code_tasks(4, 11, sandbox)
    other = generate_code_tasks(4, 12, sandbox)
    assert first == again
    assert {t.id for t in first}.isdisjoint({t.id for t in other})


def test_tasks_are_complete_and_keep_answers_hidden(sandbox: Sandbox, tmp_path: Path) -> None:
    tasks = generate_code_tasks(6, 3, sandbox)
    for task in tasks:
        assert load_task(save_task(task, tmp_path)) == task
        assert task.workspace == {}
        assert "reference" in task.solutions
        assert len(task.known_bad()) >= 3
        assert "bad-hardcoded-examples" in task.known_bad()
        cases = json.loads(task.hidden["cases.json"])["cases"]
        assert len(cases) >= 6
        assert len(expected_outputs(task)) == len(cases)
        function = task.spec.config["function"]
        assert function in task.prompt
        assert "solution.py" in task.prompt


def test_a_large_set_covers_the_bank_in_every_style(sandbox: Sandbox) -> None:
    tasks = generate_code_tasks(len(TEMPLATES) + 6, 5, sandbox)
    templates = Counter(
        tag for t in tasks for tag in t.spec.tags if tag in {x.id for x in TEMPLATES}
    )
    assert set(templates) == {x.id for x in TEMPLATES}
    styles = Counter(tag for t in tasks for tag in t.spec.tags if tag.startswith("style:"))
    assert set(styles) == {"style:formal", "style:ticket", "style:examples"}
    assert {t.spec.difficulty for t in tasks} == {"easy", "medium", "hard"}
    assert len({_first_line(t) for t in tasks}) > len(TEMPLATES) / 2
    locales = {t.spec.locale for t in tasks if t.spec.locale}
    assert len(locales) >= 3


def _first_line(task: Task) -> str:
    return task.prompt.splitlines()[0]


def test_generated_set_passes_its_audit(sandbox: Sandbox, tmp_path: Path) -> None:
    for task in generate_code_tasks(12, 21, sandbox):
        save_task(task, tmp_path)
    report = run_audit(TaskSet.load(tmp_path), sandbox)
    assert [t.task_id for t in report.tasks if t.decision is not Decision.ACCEPTED] == []
    assert report.known_bad_caught == report.known_bad >= 36


def test_a_set_twice_the_bank_holds_no_near_duplicates(pool: PoolSandbox) -> None:
    # past one task a template, wordings repeat: they are drawn again, or taken from the least
    # used templates, so the audit's duplicates check has nothing to quarantine
    tasks = generate_code_tasks(2 * len(TEMPLATES) + 8, 7, pool)
    assert near_duplicates({t.id: t.prompt for t in tasks}) == []
    assert len({t.id for t in tasks}) == len(tasks)
    assert generate_code_tasks(2 * len(TEMPLATES) + 8, 7, pool) == tasks  # still deterministic
