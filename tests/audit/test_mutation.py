"""The mutation check: near misses of the reference are made for every kind of mistake, a strong
verifier kills them, a weak one lets them survive and is told so with the survivors' diffs."""

from __future__ import annotations

import ast
from collections.abc import Sequence

import pytest

from assay.audit import MutationCheck
from assay.audit.base import AuditContext
from assay.audit.fitting import fitted_to_reference
from assay.audit.mutation import (
    CPU_FACTOR,
    MIN_CPU_S,
    WEAK_SCORE,
    MutationScore,
    _finding,
    mutation_score,
)
from assay.audit.runner import default_checks
from assay.families.base import Mutant, MutationFamily
from assay.families.code import CodeFamily
from assay.families.code.casefile import Case, cases_json
from assay.families.code.mutants import MAX_MUTANTS, code_mutants
from assay.findings import Finding, Severity
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task
from assay.verdicts import Status, Timings, Verdict, Versions
from tests.conftest import make_median_task

CASE = [Case(id="a", args=[1], expected=1)]

SOURCE = b'''"""Module docstring."""

LIMIT = 10


def clip_sum(values, low=0):
    """Sum of the values above low, clipped at LIMIT."""
    total = 0
    for index in range(len(values)):
        value = values[index]
        if value > low and not value == 7:
            total += value * 2
    head = values[1:3]
    return min(total, LIMIT) if head else total
'''


def task_with(source: bytes, cases: list[Case], function: str = "clip_sum") -> Task:
    task = make_median_task()
    spec = task.spec.model_copy(update={"config": {"function": function}})
    return task.model_copy(
        update={
            "spec": spec,
            "hidden": {"cases.json": cases_json(cases)},
            "solutions": {"reference": {"solution.py": source}},
        }
    )


def run_check(task: Task, sandbox: Sandbox, family: CodeFamily | None = None) -> list[Finding]:
    context = AuditContext(family=family or CodeFamily(), sandbox=sandbox)
    return MutationCheck().run(task, context).findings


def test_it_is_a_default_check_and_the_code_family_makes_mutants() -> None:
    assert "mutation" in [check.name for check in default_checks()]
    assert isinstance(CodeFamily(), MutationFamily)


def test_every_kind_of_mistake_is_made_and_each_mutant_is_new_valid_python() -> None:
    task = task_with(SOURCE, [Case(id="a", args=[[1, 2]], expected=6)])
    mutants = code_mutants(task)
    kinds = {mutant.name.split(" (line")[0] for mutant in mutants}
    assert {
        "Add -> Sub",
        "Mult -> FloorDiv",
        "Gt -> GtE",
        "Eq -> NotEq",
        "And -> Or",
        "dropped not",
        "negated condition",
        "constant 0 -> 1",
        "constant 2 -> 3",
        "return None",
        "range bound +1",
        "slice lower +1",
        "slice upper +1",
        "dropped statement",
    } <= kinds
    original = ast.unparse(ast.parse(SOURCE.decode()))
    texts = [mutant.files["solution.py"].decode() for mutant in mutants]
    assert len(set(texts)) == len(texts)
    for text in texts:
        assert text != original
        ast.parse(text)
        assert '"""Module docstring."""' in text or "'Module docstring.'" in text
        assert "LIMIT = " in text  # module-level statements are never dropped
    # the diff shows the change against the reference
    dropped_not = next(m for m in mutants if m.name.startswith("dropped not"))
    assert "-        if value > low and (not value == 7):" in dropped_not.diff
    assert "+        if value > low and value == 7:" in dropped_not.diff


def test_mutants_are_capped_and_none_are_made_without_a_parseable_reference() -> None:
    long_source = (
        "def f(x):\n" + "".join(f"    x = x + {i}\n" for i in range(60)) + "    return x\n"
    )
    task = task_with(long_source.encode(), [Case(id="a", args=[1], expected=1771)], "f")
    assert len(code_mutants(task)) == MAX_MUTANTS
    assert code_mutants(task_with(b"def f(:\n", CASE, "f")) == []
    assert code_mutants(task_with(b"\xff\xfe", CASE, "f")) == []
    no_reference = task.model_copy(update={"solutions": {}})
    assert code_mutants(no_reference) == []


@pytest.mark.sandbox
def test_strong_cases_kill_every_mutant_of_the_median_reference(pool: PoolSandbox) -> None:
    task = make_median_task()
    mutants = code_mutants(task)
    assert len(mutants) >= 10
    context = AuditContext(family=CodeFamily(), sandbox=pool)
    score = mutation_score(task, mutants, context)
    survivors = [m.name for m in score.survivors]
    assert score.errors == 0
    assert score.score is not None
    assert score.score >= 0.9, survivors
    assert [f for f in run_check(task, pool) if f.severity is not Severity.INFO] == []


@pytest.mark.sandbox
def test_a_weak_verifier_is_a_warning_that_shows_the_survivors(pool: PoolSandbox) -> None:
    # one case, with an odd length: every mutant of the even-length branch survives
    task = make_median_task()
    weak = task.model_copy(
        update={"hidden": {"cases.json": cases_json([Case(id="a", args=[[3]], expected=3)])}}
    )
    findings = run_check(weak, pool)
    assert len(findings) == 1
    finding = findings[0]
    assert finding.severity is Severity.WARNING
    assert finding.review  # a person decides: the task is quarantined, not accepted
    assert finding.message.startswith("weak verifier: only ")
    assert f"under {WEAK_SCORE}" in finding.message
    assert "+++ mutant" not in finding.evidence  # headers dropped, the change kept
    assert "\n-" in finding.evidence
    assert "\n+" in finding.evidence
    # the same task with its real cases is not weak
    assert all(f.severity is Severity.INFO for f in run_check(task, pool))


@pytest.mark.sandbox
def test_a_mutant_that_loops_forever_is_a_kill_within_a_fitted_limit(pool: PoolSandbox) -> None:
    source = b"def count(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
    task = task_with(source, [Case(id="a", args=[3], expected=3)], "count")
    task = task.model_copy(
        update={
            "spec": task.spec.model_copy(
                update={
                    "limits": task.spec.limits.model_copy(
                        update={"timeout_s": 120.0, "cpu_s": 120.0}
                    )
                }
            )
        }
    )
    looping = [m for m in code_mutants(task) if "Add -> Sub" in m.name]
    assert looping  # i -= 1 never reaches n
    recorded: list[tuple[float, float]] = []
    looping_files = [m.files for m in looping]

    looping_cpu: list[float] = []

    class Recording(CodeFamily):
        def verify_many(
            self, items: Sequence[tuple[Task, dict[str, bytes]]], sandbox: Sandbox
        ) -> list[Verdict]:
            verdicts = super().verify_many(items, sandbox)
            for (task, solution), verdict in zip(items, verdicts, strict=True):
                recorded.append((task.spec.limits.timeout_s, task.spec.limits.cpu_s))
                if solution in looping_files:
                    assert verdict.status is Status.FAIL
                    looping_cpu.append(verdict.timings.sandbox_cpu_s)
            return verdicts

    family = Recording()
    findings = run_check(task, pool, family)
    assert recorded  # the mutants, under limits fitted to the reference (which the task's are not)
    assert all(wall < 120.0 and MIN_CPU_S <= cpu < 1.0 for wall, cpu in recorded)
    assert not any("Add -> Sub" in f.evidence for f in findings)
    # the looping mutant was stopped by its CPU limit, not after the wall limit's 2 s or more
    assert looping_cpu
    assert max(looping_cpu) < 4 * max(cpu for _, cpu in recorded)


class HalfBroken(CodeFamily):
    """Verifies every other mutant as an infrastructure error."""

    def __init__(self) -> None:
        self.calls = 0

    def verify(self, task: Task, solution: dict[str, bytes], sandbox: Sandbox) -> Verdict:
        verdict = super().verify(task, solution, sandbox)
        self.calls += 1
        if self.calls > 1 and self.calls % 2 == 0:
            return verdict.model_copy(update={"status": Status.ERROR})
        return verdict


@pytest.mark.sandbox
def test_mutants_that_end_in_error_are_left_out_of_the_score(pool: PoolSandbox) -> None:
    task = make_median_task()
    mutants = code_mutants(task)
    family = HalfBroken()
    score = mutation_score(task, mutants, AuditContext(family=family, sandbox=pool))
    assert score.errors == len(mutants) // 2
    assert score.killed + len(score.survivors) + score.errors == len(mutants)


class NoMutants(CodeFamily):
    def mutants(self, task: Task) -> list[Mutant]:
        return []


def test_nothing_to_do_without_mutants_or_a_passing_reference(pool: PoolSandbox) -> None:
    task = make_median_task()
    assert run_check(task, pool, NoMutants()) == []
    broken = task.model_copy(
        update={"solutions": {"reference": {"solution.py": b"def median(values):\n    return 0\n"}}}
    )
    assert run_check(broken, pool) == []


class _Measured:
    """A context whose reference verification passes, having used ``cpu_s`` of CPU."""

    def __init__(self, cpu_s: float) -> None:
        self.cpu_s = cpu_s

    def verify(self, task: Task, files: dict[str, bytes]) -> Verdict:
        return Verdict(
            task_id=task.id,
            status=Status.PASS,
            score=1.0,
            timings=Timings(wall_s=0.01, sandbox_cpu_s=self.cpu_s),
            versions=Versions(task="1", family="code@1", assay="0"),
        )


@pytest.mark.parametrize(
    ("reference_cpu_s", "mutant_cpu_s"), [(0.001, MIN_CPU_S), (0.1, CPU_FACTOR * 0.1)]
)
def test_mutants_may_use_a_multiple_of_the_references_cpu_never_under_the_floor(
    reference_cpu_s: float, mutant_cpu_s: float
) -> None:
    task = task_with(b"def f():\n    return 1\n", [Case(id="a", args=[], expected=1)], "f")
    context = _Measured(reference_cpu_s)
    fitted = fitted_to_reference(
        task,
        context,  # type: ignore[arg-type]
        min_cpu_s=MIN_CPU_S,
        cpu_factor=CPU_FACTOR,
    )
    assert fitted is not None
    assert fitted.spec.limits.cpu_s == pytest.approx(mutant_cpu_s)


def test_survivors_of_a_reference_with_a_long_line_keep_the_report_small() -> None:
    """A table written on one line of the reference puts the whole line into each of its
    mutants' diffs, twice: 40 survivors of a 400 kB line made a 36 MB report (and the finding's
    evidence 4 MB), where every other finding's evidence is a few kB."""
    line = "TABLE = [" + ", ".join(str(i) for i in range(60_000)) + "]"
    diff = f"@@ -1,1 +1,1 @@\n-{line}\n+{line.replace('[0,', '[1,')}\n"
    survivors = [
        Mutant(name=f"constant {i} -> {i + 1} (line 1)", diff=diff, files={}) for i in range(40)
    ]
    result = MutationScore(killed=1, survivors=survivors, errors=0)
    record = result.record()
    assert len(record.survivors) == 40
    assert all(len(s.diff) < 3000 for s in record.survivors)
    assert record.survivors[0].diff.startswith("@@ -1,1 +1,1 @@\n-TABLE = [0, 1, 2")
    assert record.survivors[0].diff.endswith("\n[...]")
    finding = _finding("mutation", result, 41)
    assert finding is not None
    assert finding.review
    assert len(finding.evidence) < 5 * 3000
    assert finding.evidence.endswith("[35 more survivors of 41 mutants]")
