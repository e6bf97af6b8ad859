"""Static checks of repo tasks: sound tasks are clean, each defect is named."""

from __future__ import annotations

import json

from assay.families.repo import RepoFamily
from assay.tasks import Task

FAMILY = RepoFamily()


def _with_cases(task: Task, edit: dict[str, object]) -> Task:
    data = json.loads(task.hidden["cases.json"])
    data.update(edit)
    return task.model_copy(update={"hidden": {"cases.json": json.dumps(data).encode()}})


def test_generated_tasks_are_clean(generated: list[Task], sorted_leftovers: Task) -> None:
    for task in [*generated, sorted_leftovers]:
        assert FAMILY.lint(task) == [], task.id


def test_each_defect_is_one_finding(decimal_comma: Task) -> None:
    cases = json.loads(decimal_comma.hidden["cases.json"])["cases"]
    only_p2p = _with_cases(
        decimal_comma, {"cases": [c for c in cases if c["kind"] != "fail-to-pass"]}
    )
    assert ["no fail-to-pass case" in f.message for f in FAMILY.lint(only_p2p)] == [True]
    shadowing = decimal_comma.model_copy(
        update={"workspace": {**decimal_comma.workspace, "json.py": b"x = 1\n"}}
    )
    assert any("standard library" in f.message for f in FAMILY.lint(shadowing))
    unread = _with_cases(decimal_comma, {"readings": ["by-amount"]})
    assert any("reference-by-amount" in f.message for f in FAMILY.lint(unread))
    broken = decimal_comma.model_copy(update={"hidden": {"cases.json": b'{"cases": []}'}})
    [finding] = FAMILY.lint(broken)
    assert "cases.json" in finding.message
    moved = {k: v for k, v in decimal_comma.solutions["reference"].items() if k != "rota/export.py"}
    lost = decimal_comma.model_copy(
        update={"solutions": {**decimal_comma.solutions, "reference": moved}}
    )
    assert any("has no module rota.export" in f.message for f in FAMILY.lint(lost))


def test_the_hidden_cases_copied_into_the_workspace_are_named(decimal_comma: Task) -> None:
    cases = decimal_comma.hidden["cases.json"]
    for copied in (cases, json.dumps(json.loads(cases), separators=(",", ":")).encode()):
        leaky = decimal_comma.model_copy(
            update={"workspace": {**decimal_comma.workspace, "tests/fixtures/c.json": copied}}
        )
        assert [f.message for f in FAMILY.lint(leaky)] == [
            "workspace/tests/fixtures/c.json is a copy of hidden/cases.json"
        ]
