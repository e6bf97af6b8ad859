"""The first audit: sound tasks are accepted, and each kind of broken task is rejected."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from assay.audit import (
    AuditContext,
    CheckOutcome,
    Decision,
    EmptySubmissionCheck,
    Severity,
    default_checks,
    run_audit,
)
from assay.audit.report import SolutionResult, TaskAudit
from assay.errors import SandboxError
from assay.families import get_family
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Files, Task, TaskSet, save_task
from assay.verdicts import Status, Verdict
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task, with_checker
from tests.families.config.conftest import fixture_task


def audit_one(task: Task, tmp_path: Path, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    report = run_audit(TaskSet.load(save_task(task, tmp_path)), sandbox)
    assert len(report.tasks) == 1
    return report.tasks[0]


def messages(audit) -> str:  # type: ignore[no-untyped-def]
    return " | ".join(f"[{f.check}] {f.message}" for f in audit.findings)


def test_sound_task_is_accepted(tmp_path: Path, sandbox: Sandbox) -> None:
    audit = audit_one(make_median_task(), tmp_path, sandbox)
    assert audit.decision is Decision.ACCEPTED, messages(audit)
    assert {s.solution for s in audit.solutions} == {"reference", "bad-unsorted", "empty"}
    assert audit.known_bad_caught == audit.known_bad == 1


def test_known_bad_that_passes_rejects_the_task(tmp_path: Path, sandbox: Sandbox) -> None:
    task = make_median_task()
    task = task.model_copy(
        update={"solutions": {**task.solutions, "bad-sorted": {"solution.py": REFERENCE}}}
    )
    audit = audit_one(task, tmp_path, sandbox)
    assert audit.decision is Decision.REJECTED
    assert "bad-sorted passes" in messages(audit)


def test_a_known_bad_that_fails_alike_everywhere_is_said_to_prove_nothing(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    """A known-bad with a syntax error is "caught" on every case by the same load failure:
    it shows nothing the verifier tells apart."""
    task = make_median_task()
    broken = {"solution.py": b"def median(values)\n    return 0\n"}
    task = task.model_copy(update={"solutions": {**task.solutions, "bad-syntax": broken}})
    audit = audit_one(task, tmp_path, sandbox)
    [finding] = [f for f in audit.findings if f.check == "known-bad"]
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith("bad-syntax fails every criterion the same way")
    assert "SyntaxError" in finding.evidence
    assert "bad-unsorted" not in messages(audit)  # a known-bad that answers wrongly is fine


def test_failing_reference_rejects_the_task(tmp_path: Path, sandbox: Sandbox) -> None:
    task = make_median_task()
    task = task.model_copy(
        update={"solutions": {**task.solutions, "reference-alt": {"solution.py": BAD_NO_SORT}}}
    )
    audit = audit_one(task, tmp_path, sandbox)
    assert audit.decision is Decision.REJECTED
    assert "reference-alt does not pass" in messages(audit)


def test_task_an_empty_submission_passes_is_rejected(tmp_path: Path, sandbox: Sandbox) -> None:
    accept_anything = b"def check(args, output, expected):\n    return True\n"
    task = with_checker(make_median_task(), accept_anything)
    audit = audit_one(task, tmp_path, sandbox)
    assert audit.decision is Decision.REJECTED
    assert "[empty]" in messages(audit)


def test_leaks_into_prompt_or_workspace_are_lint_errors(tmp_path: Path, sandbox: Sandbox) -> None:
    task = make_median_task()
    leaky = task.model_copy(
        update={
            "prompt": task.prompt + "\nFor example median([3, 1, 2]) gives 2.\n",
            "workspace": {"notes.py": REFERENCE, "cases.json": task.hidden["cases.json"]},
        }
    )
    audit = audit_one(leaky, tmp_path, sandbox)
    text = messages(audit)
    assert audit.decision is Decision.REJECTED
    assert "hidden case case-0 is shown in prompt.md" in text
    assert "a line of solutions/reference appears in workspace/notes.py" in text
    assert "workspace/cases.json is a copy of hidden/cases.json" in text


def test_malformed_task_in_a_set_is_rejected_and_the_rest_audited(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    save_task(make_median_task("good"), tmp_path)
    broken = save_task(make_median_task("broken"), tmp_path)
    (broken / "task.toml").write_text('id = "broken"\nfamily = "code"\n[code]\nfunction = 3\n')
    unknown = save_task(make_median_task("alien"), tmp_path)
    (unknown / "task.toml").write_text('id = "alien"\nfamily = "telepathy"\n')
    report = run_audit(TaskSet.load(tmp_path), sandbox)
    by_id = {t.task_id: t for t in report.tasks}
    assert by_id["good"].decision is Decision.ACCEPTED
    assert by_id["broken"].decision is Decision.REJECTED
    assert "code.function" in messages(by_id["broken"])
    assert by_id["alien"].decision is Decision.REJECTED
    assert "unknown family 'telepathy'" in messages(by_id["alien"])
    assert not report.all_accepted


class Exploding:
    """A check that raises on one task, as a buggy check or family might."""

    name = "exploding"

    def __init__(self, victim: str, error: Exception) -> None:
        self.victim = victim
        self.error = error

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        if task.id == self.victim:
            raise self.error
        return CheckOutcome()


@pytest.mark.parametrize(
    "error",
    [
        RecursionError("maximum recursion depth exceeded"),
        TypeError("'NoneType' object is not iterable"),
        SandboxError("the worker died"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_check_that_raises_leaves_its_task_in_error_and_the_rest_go_on(
    tmp_path: Path, pool: Sandbox, error: Exception
) -> None:
    for task_id in ("a-good", "b-boom", "c-good"):
        save_task(make_median_task(task_id), tmp_path)
    checks = [*default_checks(), Exploding("b-boom", error)]
    report = run_audit(TaskSet.load(tmp_path), pool, checks=checks)
    by_id = {t.task_id: t for t in report.tasks}
    assert by_id["a-good"].decision is Decision.ACCEPTED
    assert by_id["c-good"].decision is Decision.ACCEPTED
    boom = by_id["b-boom"]
    assert boom.decision is Decision.ERROR
    [finding] = [f for f in boom.findings if f.check == "exploding"]
    assert finding.severity is Severity.ERROR
    assert finding.evidence == f"{type(error).__name__}: {error}"
    assert {s.solution for s in boom.solutions} == {"reference", "bad-unsorted", "empty"}


def test_a_family_that_raises_while_verifying_leaves_only_that_task_in_error(
    tmp_path: Path, pool: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    family = get_family("code")
    verify = family.verify

    def deep(task: Task, files: Files, sandbox: Sandbox) -> Verdict:
        if task.id == "boom":
            raise RecursionError("maximum recursion depth exceeded in comparison")
        return verify(task, files, sandbox)

    def deep_many(items: Sequence[tuple[Task, Files]], sandbox: Sandbox) -> list[Verdict]:
        if any(task.id == "boom" for task, _ in items):
            raise RecursionError("maximum recursion depth exceeded in comparison")
        return verify_many(items, sandbox)

    verify_many = family.verify_many  # type: ignore[attr-defined]
    monkeypatch.setattr(family, "verify", deep)
    monkeypatch.setattr(family, "verify_many", deep_many)
    save_task(make_median_task("boom"), tmp_path)
    save_task(make_median_task("fine"), tmp_path)
    report = run_audit(TaskSet.load(tmp_path), pool)
    by_id = {t.task_id: t for t in report.tasks}
    assert by_id["fine"].decision is Decision.ACCEPTED
    assert by_id["boom"].decision is Decision.ERROR
    assert report.count(Decision.ERROR) == 1
    evidence = {f.check: f.evidence for f in by_id["boom"].findings}
    assert evidence["reference"].startswith("RecursionError: maximum recursion depth")
    assert {"reference", "known-bad", "empty"} <= set(evidence)


def test_the_checks_of_a_task_share_its_verdicts_and_never_keep_an_error(
    tmp_path: Path, pool: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    family = get_family("code")
    verify = family.verify
    plain: list[bytes] = []  # the solutions verified on the task as it is, in the pool itself
    original = make_median_task()

    def counted(task: Task, files: Files, sandbox: Sandbox) -> Verdict:
        as_it_is = task.spec.limits == original.spec.limits and task.hidden == original.hidden
        if sandbox is pool and as_it_is:
            plain.append(files["solution.py"])
        return verify(task, files, sandbox)

    verify_many = family.verify_many  # type: ignore[attr-defined]

    def counted_many(items: Sequence[tuple[Task, Files]], sandbox: Sandbox) -> list[Verdict]:
        for task, files in items:
            as_it_is = task.spec.limits == original.spec.limits and task.hidden == original.hidden
            if sandbox is pool and as_it_is:
                plain.append(files["solution.py"])
        return verify_many(items, sandbox)

    monkeypatch.setattr(family, "verify", counted)
    monkeypatch.setattr(family, "verify_many", counted_many)
    audit = audit_one(make_median_task(), tmp_path, pool)
    assert audit.decision is Decision.ACCEPTED, messages(audit)
    # reference, mutation, red-team and flaky read one verdict; sensitivity verifies it anew with
    # its probes (one run), and headroom takes that fresh verdict
    assert plain.count(REFERENCE) == 2
    assert plain.count(BAD_NO_SORT) == 1  # the known-bad check's, which the flaky check reuses

    calls: list[int] = []

    def error_once(task: Task, files: Files, sandbox: Sandbox) -> Verdict:
        calls.append(1)
        verdict = verify(task, files, sandbox)
        return verdict.model_copy(update={"status": Status.ERROR}) if len(calls) == 1 else verdict

    monkeypatch.setattr(family, "verify", error_once)
    context = AuditContext(family=family, sandbox=pool)
    task = make_median_task()
    reference = {"solution.py": REFERENCE}
    assert context.verify(task, reference).status is Status.ERROR
    assert context.verify(task, reference).status is Status.PASS  # the error was not kept
    assert context.verify(task, reference).status is Status.PASS  # the pass was
    assert len(calls) == 2
    assert context.verify(task.model_copy(), reference).status is Status.PASS
    assert len(calls) == 3  # another task object is another verification


def _audited_empty(task: Task, pool: PoolSandbox) -> tuple[TaskAudit, SolutionResult]:
    """The empty check's audit of ``task``, and its one verdict (a fail)."""
    report = run_audit(
        TaskSet(root=Path("set"), tasks=(task,)), pool, checks=[EmptySubmissionCheck()]
    )
    [audit] = report.tasks
    [empty] = audit.solutions
    assert empty.status is Status.FAIL
    return audit, empty


def test_the_score_doing_nothing_earns_is_said(pool: PoolSandbox) -> None:
    """The median task's do-nothing stub returns None, which one hidden case (the empty list)
    expects: it fails, yet earns that case's share, and the audit says so."""
    audit, empty = _audited_empty(make_median_task(), pool)
    assert empty.score > 0
    [note] = audit.findings
    assert note.message.startswith(f"doing nothing fails but scores {empty.score:.2f}")
    assert note.severity is (Severity.WARNING if empty.score >= 0.5 else Severity.INFO)
    assert audit.decision is Decision.ACCEPTED


def test_what_the_cluster_meets_as_it_is_earns_nothing(pool: PoolSandbox) -> None:
    """A config task's do-nothing submission meets the requirements the cluster meets as it
    is; they scale the score of the changes asked for and do not add to it, so it scores 0,
    and the empty check has nothing to say."""
    task = fixture_task()
    audit, empty = _audited_empty(task, pool)
    assert empty.score == 0
    assert not audit.findings
    verdict = get_family("config").verify(task, {"empty.yaml": b"# nothing\n"}, pool)
    kept = [c for c in verdict.criteria if c.met_at_start]
    assert kept
    assert all(c.passed for c in kept)
    assert not any(c.passed for c in verdict.criteria if not c.met_at_start)
