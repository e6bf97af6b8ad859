"""The sensitivity check: a verifier that still passes the reference once an expected value is
changed is not looking at that value."""

from __future__ import annotations

import json

import pytest

from assay.audit import SensitivityCheck
from assay.audit.base import AuditContext
from assay.audit.runner import default_checks
from assay.families.base import SensitivityFamily
from assay.families.code import CodeFamily
from assay.families.code.casefile import Case, cases_json, hidden_cases
from assay.families.code.sensitivity import CHANGED, MAX_PROBES, code_probes
from assay.findings import Finding, Severity
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task
from assay.verdicts import Verdict
from tests.conftest import make_median_task, with_checker


def with_cases(task: Task, cases: list[Case], **config: object) -> Task:
    spec = task.spec.model_copy(update={"config": {**task.spec.config, **config}})
    return task.model_copy(update={"spec": spec, "hidden": {"cases.json": cases_json(cases)}})


def run_check(task: Task, sandbox: Sandbox, family: CodeFamily | None = None) -> list[Finding]:
    context = AuditContext(family=family or CodeFamily(), sandbox=sandbox)
    return SensitivityCheck().run(task, context).findings


def test_it_is_a_default_check_and_the_code_family_makes_probes() -> None:
    assert "sensitivity" in [check.name for check in default_checks()]
    assert isinstance(CodeFamily(), SensitivityFamily)


def test_each_kind_of_value_is_changed_beyond_any_right_answer() -> None:
    values: list[object] = [
        3,
        True,
        2.5,
        -1.0,
        "abc",
        "",
        [1, 2],
        {"a": 1},
        None,
        [],
    ]
    cases = [Case(id=f"c{i}", args=[i], expected=v) for i, v in enumerate(values)][:MAX_PROBES]
    cases.append(Case(id="boom", args=[-1], raises="ValueError"))
    task = with_cases(make_median_task(), cases)
    probes = code_probes(task)
    assert [p.name for p in probes] == [c.id for c in cases][: len(probes)]
    for probe, case in zip(probes, cases, strict=False):
        changed = {c.id: c for c in hidden_cases(probe.task)}[case.id]
        assert probe.task.solutions == task.solutions
        others = [c for c in hidden_cases(probe.task) if c.id != case.id]
        assert others == [c for c in cases if c.id != case.id]  # one value changed, no more
        if case.raises is not None:
            assert changed.raises is None
            assert changed.expected == CHANGED
        else:
            assert changed.expected != case.expected
            assert type(changed.expected) is type(case.expected) or case.expected in (None,)
    changed_float = {c.id: c for c in hidden_cases(probes[3].task)}["c3"].expected
    assert abs(changed_float - (-1.0)) >= 1.0


def test_probes_are_capped_spread_and_skipped_for_checkers_and_broken_cases() -> None:
    cases = [Case(id=f"c{i}", args=[i], expected=i) for i in range(40)]
    probes = code_probes(with_cases(make_median_task(), cases))
    assert len(probes) == MAX_PROBES
    assert probes[0].name == "c0"
    assert probes[-1].name == "c35"
    checked = with_checker(
        make_median_task(), b"def check(args, output, expected):\n    return True\n"
    )
    assert code_probes(checked) == []
    broken = make_median_task().model_copy(update={"hidden": {"cases.json": b"{"}})
    assert code_probes(broken) == []


@pytest.mark.sandbox
def test_a_sound_verifier_fails_the_reference_on_every_probe(pool: PoolSandbox) -> None:
    task = make_median_task()
    assert len(code_probes(task)) >= 5
    assert run_check(task, pool) == []


class SkipsFirstCase(CodeFamily):
    """A verifier with the bug of an off-by-one loop over its cases: case-0 is never checked."""

    def verify(self, task: Task, solution: dict[str, bytes], sandbox: Sandbox) -> Verdict:
        cases = json.loads(task.hidden["cases.json"])
        cases["cases"] = [c for c in cases["cases"] if c["id"] != "case-0"]
        hidden = {**task.hidden, "cases.json": json.dumps(cases).encode()}
        return super().verify(task.model_copy(update={"hidden": hidden}), solution, sandbox)


@pytest.mark.sandbox
def test_a_case_the_verifier_never_checks_is_an_error_naming_it(pool: PoolSandbox) -> None:
    findings = run_check(make_median_task(), pool, SkipsFirstCase())
    assert len(findings) == 1
    assert findings[0].severity is Severity.ERROR
    assert findings[0].message.startswith("the verifier ignores case-0:")
    assert "expected 2 -> 3" in findings[0].evidence


@pytest.mark.sandbox
def test_a_tolerance_so_wide_it_sees_nothing_is_caught_on_each_float_case(
    pool: PoolSandbox,
) -> None:
    task = make_median_task()
    blind = task.model_copy(
        update={
            "spec": task.spec.model_copy(
                update={"config": {**task.spec.config, "float_tolerance": 1e6}}
            )
        }
    )
    floats = {c.id for c in hidden_cases(task) if isinstance(c.expected, float)}
    assert floats
    findings = run_check(blind, pool)
    probed = {p.name for p in code_probes(task)}
    assert {f.message.split()[3].rstrip(":") for f in findings} == floats & probed
