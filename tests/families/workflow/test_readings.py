"""Vague requests: every reading's reference passes and the verdict names the reading; a reading
counts only where the request was vague; a task in German verifies like one in English."""

from __future__ import annotations

import random

import pytest

from assay.families.workflow import WorkflowFamily
from assay.families.workflow.generator import draft_task, self_check
from assay.families.workflow.prompts import VAGUE
from assay.families.workflow.templates import TEMPLATES
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.families.workflow.test_prompts import in_locale, language_of_text

pytestmark = pytest.mark.sandbox
family = WorkflowFamily()


def vague_and_precise(template_id: str) -> tuple[Task, Task]:
    chosen = next(t for t in TEMPLATES if t.id == template_id)
    return (
        draft_task(chosen, random.Random(7), 3, 7, style=VAGUE),
        draft_task(chosen, random.Random(7), 3, 7, style="spec"),
    )


def test_every_reading_of_a_vague_request_passes_and_is_named() -> None:
    task, precise = vague_and_precise("log-archive")
    references = task.references()
    assert set(references) == {"reference", "reference-through-cutoff"}
    for name, files in references.items():
        verdict = family.verify(task, files, LocalSandbox())
        assert verdict.status is Status.PASS, (name, verdict.summary)
        if name != "reference":
            assert verdict.summary.endswith("(reading through-cutoff)")
    other = references["reference-through-cutoff"]
    verdict = family.verify(precise, other, LocalSandbox())
    assert verdict.status is Status.FAIL  # the precise request said "strictly before"
    failed = {c.name for c in verdict.criteria if not c.passed}
    assert any(name.startswith("bucket:") for name in failed)


def test_a_vague_task_is_sound_for_another_template() -> None:
    task, _ = vague_and_precise("job-retry")
    assert isinstance(self_check(family, task, LocalSandbox()), int)


def test_a_german_task_verifies() -> None:
    chosen = next(t for t in TEMPLATES if t.id == "invoice-routing")
    task = in_locale(chosen, "de-DE", "ticket")
    assert language_of_text(task.prompt) == "de"
    assert ";" in task.workspace["state.json"].decode()  # the data follows the locale too
    assert isinstance(self_check(family, task, LocalSandbox()), int)
