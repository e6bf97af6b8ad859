"""``assay generate config``: every template makes sound tasks (references pass, known-bad
solutions and doing nothing fail) in every style and locale, the same seed gives the same tasks,
and a generated batch passes its own audit."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.families.config import ConfigFamily
from assay.families.config.generator import draft, self_check
from assay.families.config.prompts import styles_for
from assay.families.config.templates import LOCALES, TEMPLATES, Template
from assay.sandbox import PoolSandbox
from assay.verdicts import Status

family = ConfigFamily()
KNOWN_BAD = {
    "allow-all",
    "selector-typo",
    "missing-namespace-selector",
    "wildcard-verbs",
    "cluster-role-binding",
    "missing-limits",
}


def test_the_bank_has_the_templates_and_mistakes_asked_for() -> None:
    assert len(TEMPLATES) >= 15
    assert len({t.id for t in TEMPLATES}) == len(TEMPLATES)
    assert {t.category for t in TEMPLATES} >= {
        "networkpolicy",
        "rbac",
        "resources",
        "security-context",
        "service",
    }
    labels = set()
    for template in TEMPLATES:
        problem = template.build(random.Random(template.id))
        assert len(problem.bad) >= 2, template.id
        labels |= set(problem.bad)
    assert labels >= KNOWN_BAD


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_each_template_makes_sound_tasks_in_each_style_and_locale(
    template: Template, pool: PoolSandbox
) -> None:
    problem = template.build(random.Random(0))
    for number, style in enumerate(styles_for(problem)):
        locale = LOCALES[number % len(LOCALES)]
        task = draft(template, random.Random(number), 5, number, style=style, locale=locale)
        assert self_check(family, task, pool) == [], (style, locale)
        if number == 0:  # the reference's near misses are told apart from it
            mutants = family.mutants(task)
            assert mutants
            for mutant in mutants:
                verdict = family.verify(task, mutant.files, pool)
                assert verdict.status is Status.FAIL, mutant.diff
        assert family.lint(task) == []
        assert task.spec.locale == locale
        assert f"style:{style}" in task.spec.tags
        if style == "vague":
            readings = [name for name in task.solutions if name.startswith("reference-")]
            assert readings, "a vague task has a reference per other reading"
            assert any(name.startswith("expected-") for name in task.hidden)


def test_the_same_seed_gives_the_same_tasks() -> None:
    for template in TEMPLATES:
        first = draft(template, random.Random("s"), 1, 2)
        again = draft(template, random.Random("s"), 1, 2)
        assert first == again
        other = draft(template, random.Random("t"), 1, 2)
        assert other.workspace != first.workspace or other.prompt != first.prompt


def test_prompts_speak_their_locale() -> None:
    template = TEMPLATES[0]
    english = draft(template, random.Random(1), 0, 0, style="precise", locale="en")
    german = draft(template, random.Random(1), 0, 0, style="precise", locale="de")
    french = draft(template, random.Random(1), 0, 0, style="precise", locale="fr")
    assert "Requirement" in english.prompt
    assert "Anforderung" in german.prompt
    assert "Exigence" in french.prompt
    pods = [line for line in english.prompt.splitlines() if line.startswith("  pod ")]
    assert pods, "a precise prompt summarises the cluster's pods"
    assert all(pod in german.prompt for pod in pods)
    overruled = draft(template, random.Random(1), 0, 0, style="overruled", locale="en")
    assert "what counts in the end" in overruled.prompt
    assert set(LOCALES) == {"en", "de", "fr"}


def test_a_generated_batch_passes_its_own_audit(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "tasks"
    result = run_cli(
        "generate", "config", "--n", str(len(TEMPLATES)), "--seed", "4", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {len(TEMPLATES)} tasks" in result.output
    assert {path.name.split("-")[1] for path in out.iterdir()} >= {"netpol", "rbac"}
    result = run_cli("audit", str(out), "--json", str(tmp_path / "audit.json"))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "audit.json").read_text())
    assert [t["decision"] for t in report["tasks"]] == ["accepted"] * len(TEMPLATES)
