"""The generator: deterministic, diverse, and every task it writes passes its own audit."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from assay.audit import Decision, run_audit
from assay.families.code import generator
from assay.families.code.generator import generate_code_tasks
from assay.families.code.templates import TEMPLATES, Template
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


@pytest.mark.slow(minutes=0.5)
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


def test_redraws_keep_the_first_fresh_draft_and_skip_worn_templates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one template whose every draft repeats itself; the others always give fresh wordings
    stuck = TEMPLATES[0]
    others = sorted(t.id for t in TEMPLATES if t.id != stuck.id)
    drafted: Counter[str] = Counter()
    fresh = itertools.count()
    lock = threading.Lock()

    def draft(template: Template, seed: int, index: int, sandbox: object, *, first_draw: int = 0):  # type: ignore[no-untyped-def]
        with lock:
            drafted[template.id] += 1
            number = next(fresh)
        if template.id == stuck.id:
            return SimpleNamespace(prompt="sort the numbers in the list and return them " * 3)
        if template.id in others[:12]:  # the earlier in order, the later a draft is done
            time.sleep(0.02 * (12 - others.index(template.id)))
        words = " ".join(f"word{number}x{i}" for i in range(40))
        return SimpleNamespace(prompt=f"{template.id} {words}")

    monkeypatch.setattr(generator, "_make_task", draft)
    order = [stuck] * 8
    first = [draft(stuck, 7, index, None) for index in range(8)]
    drafted.clear()
    kept = generator._distinct(first, order, 7, cast(Sandbox, None), 4)
    assert kept[0] is first[0]
    # each later task: its own redraws repeat it, so the least used other template (by id) is
    # drawn, and kept although the drafts made beside it finished first
    assert [task.prompt.split()[0] for task in kept[1:]] == others[: len(order) - 1]
    # once WORN_AFTER of its drafts in a row repeated earlier tasks (each task's first draft
    # and its own redraws), the template is worn out: the later tasks draw from it no more
    redrawn = generator.WORN_AFTER // (generator.REDRAWS + 1)
    assert redrawn < len(order) - 1
    assert drafted[stuck.id] == redrawn * generator.REDRAWS
