"""Mutants of the reference script: real edits of it, killed by the verifier, survivors when the
verifier is weakened."""

from __future__ import annotations

import ast
import datetime as dt
import random

import pytest

from assay.families.base import MutationFamily
from assay.families.workflow import WorkflowFamily
from assay.families.workflow import family as family_module
from assay.families.workflow.generator import draft_task
from assay.families.workflow.mutants import MAX_MUTANTS, OPERATORS, workflow_mutants
from assay.families.workflow.prompts import VAGUE
from assay.families.workflow.state import CloudState
from assay.families.workflow.templates import TEMPLATES, Template
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.families.workflow.tasks import router_task

family = WorkflowFamily()


def template(template_id: str) -> Template:
    return next(t for t in TEMPLATES if t.id == template_id)


def drafted(template_id: str, draw: int = 0) -> Task:
    return draft_task(template(template_id), random.Random(draw), 1, draw, style="spec")


def kinds(task: Task) -> set[str]:
    return {mutant.name.split(":", 1)[0] for mutant in workflow_mutants(task)}


def test_the_family_makes_mutants_for_the_audit() -> None:
    assert isinstance(family, MutationFamily)
    assert family.mutants(router_task()) == workflow_mutants(router_task())


@pytest.mark.parametrize("chosen", TEMPLATES, ids=lambda t: t.id)
def test_every_template_has_mutants_that_are_edits_of_its_reference(chosen: Template) -> None:
    task = draft_task(chosen, random.Random(4), 1, 4)
    reference = task.solutions["reference"]["solution.py"].decode()
    mutants = workflow_mutants(task)
    assert 3 <= len(mutants) <= MAX_MUTANTS
    texts = {mutant.files["solution.py"] for mutant in mutants}
    assert len(texts) == len(mutants)  # no two alike
    for mutant in mutants:
        mutated = mutant.files["solution.py"].decode()
        assert ast.unparse(ast.parse(mutated)) != ast.unparse(ast.parse(reference))
        assert mutant.name.split(":", 1)[0] in OPERATORS
        assert mutant.diff.startswith("@@")
        assert "\n+" in mutant.diff
        assert mutant.files.keys() == task.solutions["reference"].keys()


def test_the_mutants_cover_the_mistakes_workflows_make() -> None:
    found = set().union(*(kinds(drafted(t.id)) for t in TEMPLATES))
    assert found == set(OPERATORS)
    assert {"skipped-call", "duplicate-write", "destination", "parameter"} <= kinds(
        drafted("invoice-routing")
    )


def test_a_routing_mutant_sends_to_another_destination() -> None:
    mutants = {m.name: m for m in workflow_mutants(drafted("dlq-redrive"))}
    routed = next(m for name, m in mutants.items() if name.startswith("destination: send_message"))
    assert "send_message(QueueUrl=dlq" in routed.files["solution.py"].decode()


def test_a_date_boundary_moves_by_one_day() -> None:
    task = drafted("log-archive")
    mutants = [m for m in workflow_mutants(task) if m.name.startswith("parameter: CUTOFF")]
    assert len(mutants) == 1
    old, new = mutants[0].name.split(": ", 2)[2].split(" -> ")
    assert f"CUTOFF = {old!r}" in task.solutions["reference"]["solution.py"].decode()
    assert old in task.prompt
    day = dt.date.fromisoformat(old) + dt.timedelta(days=1)
    assert new == f"{day.isoformat()} (a day later)"
    assert f"CUTOFF = {day.isoformat()!r}" in mutants[0].files["solution.py"].decode()


def test_first_page_mutants_only_where_the_data_spans_pages() -> None:
    paged = [m for m in workflow_mutants(drafted("worker-heartbeats")) if "first page" in m.name]
    assert len(paged) == 1  # more log streams than one describe_log_streams call returns
    assert "[:1]" in paged[0].files["solution.py"].decode()
    assert "first-page" not in kinds(drafted("log-archive"))  # a few objects: one page holds all


def test_a_receiving_loop_is_cut_after_one_batch_when_a_queue_holds_more() -> None:
    task = drafted("dlq-redrive")
    assert not any("first batch" in m.name for m in workflow_mutants(task))
    state = CloudState.model_validate_json(task.workspace["state.json"])
    many = state.model_copy(update={"queues": {**state.queues, "payments-dlq": ("{}",) * 11}})
    crowded = task.model_copy(update={"workspace": {"state.json": many.to_json()}})
    cut = [m for m in workflow_mutants(crowded) if "first batch of receive_message" in m.name]
    assert len(cut) == 1
    loop = cut[0].files["solution.py"].decode().split("while True:", 1)[1]
    assert loop.split("\nfor handle in kept")[0].rstrip().endswith("break")


def test_no_mutants_of_a_reference_that_cannot_be_read() -> None:
    task = router_task()
    broken = {"reference": {"solution.py": b"def (:\n"}}
    assert workflow_mutants(task.model_copy(update={"solutions": broken})) == []
    not_text = {"reference": {"solution.py": b"\xff\xfe"}}
    assert workflow_mutants(task.model_copy(update={"solutions": not_text})) == []
    assert workflow_mutants(task.model_copy(update={"solutions": {}})) == []
    spec = task.spec.model_copy(update={"config": {"rerun": "sometimes"}})
    assert workflow_mutants(task.model_copy(update={"spec": spec})) == []


@pytest.mark.sandbox
@pytest.mark.slow(minutes=1)
def test_the_verifier_kills_the_mutants_of_a_generated_task() -> None:
    task = drafted("log-archive")
    mutants = workflow_mutants(task)
    statuses = {m.name: family.verify(task, m.files, LocalSandbox()).status for m in mutants}
    assert Status.ERROR not in statuses.values()
    killed = [name for name, status in statuses.items() if status is Status.FAIL]
    assert len(killed) >= 0.8 * len(mutants), statuses


@pytest.mark.sandbox
def test_a_weakened_verifier_lets_mutants_survive(monkeypatch: pytest.MonkeyPatch) -> None:
    task = router_task()
    skipped = [m for m in workflow_mutants(task) if m.name.startswith("skipped-call")]
    assert skipped
    first = skipped[0]
    assert family.verify(task, first.files, LocalSandbox()).status is Status.FAIL
    monkeypatch.setattr(family_module, "DECIDING", frozenset({"script"}))  # only: did it run
    assert family.verify(task, first.files, LocalSandbox()).status is Status.PASS


@pytest.mark.parametrize("draw", range(6))
def test_no_mutant_is_another_reading_the_task_accepts(draw: int) -> None:
    task = draft_task(template("log-archive"), random.Random(draw), 1, draw, style=VAGUE)
    others = {
        ast.unparse(ast.parse(files["solution.py"].decode()))
        for name, files in task.references().items()
        if name != "reference"
    }
    assert others  # the cutoff day read as included is accepted too
    for mutant in workflow_mutants(task):
        assert ast.unparse(ast.parse(mutant.files["solution.py"].decode())) not in others, (
            mutant.name
        )
