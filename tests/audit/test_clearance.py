"""A person clears a quarantined task (``assay clear``): exports take it, a later audit of the
same version with the same findings accepts it, and nothing else is cleared by it."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import Result

from assay.audit import LintCheck, run_audit
from assay.audit.clearance import Clearance, apply_clearances, clearance_for
from assay.audit.report import AuditReport, TaskAudit
from assay.audit.setchecks import ContaminationCheck
from assay.errors import InputError, StoreError
from assay.findings import Decision, Finding, Severity
from assay.sandbox import LocalSandbox
from assay.store import Store
from assay.tasks import TaskSet, save_task
from tests.conftest import make_median_task

Run = Callable[..., Result]
BROKEN = Path(__file__).parent / "broken_tasks"
NOW = datetime(2026, 12, 5, tzinfo=UTC)
FLAKY = Finding(
    check="flaky", severity=Severity.WARNING, message="reference sometimes fails", review=True
)
LEGACY = Finding(check="lint", severity=Severity.WARNING, message="legacy verifier", review=True)
NOTE = Finding(check="mutation", severity=Severity.INFO, message="3 of 4 mutants fail")


def audited(decision: Decision, *findings: Finding, version: str = "v1") -> TaskAudit:
    return TaskAudit(
        task_id="t", task_version=version, path="t", decision=decision, findings=findings
    )


def report(*tasks: TaskAudit) -> AuditReport:
    return AuditReport(
        run_id="later",
        root=".",
        started_at=NOW,
        finished_at=NOW,
        checks=("lint", "reference", "known-bad"),
        tasks=tasks,
    )


def cleared(*findings: Finding, version: str = "v1") -> Clearance:
    held = audited(Decision.QUARANTINED, *findings, version=version)
    return clearance_for(held, "first", by="ana", reason="read the legacy check", at=NOW)


def test_a_clearance_accepts_the_same_version_held_by_the_same_findings() -> None:
    [task] = apply_clearances(
        report(audited(Decision.QUARANTINED, LEGACY, NOTE)), [cleared(LEGACY)]
    ).tasks
    assert task.decision is Decision.ACCEPTED
    assert task.findings[:2] == (LEGACY, NOTE)  # the evidence stays
    [note] = [f for f in task.findings if f.check == "review"]
    assert note.message == "cleared by ana on 2026-12-05: read the legacy check"
    assert "audit run first" in note.evidence
    assert "lint: legacy verifier" in note.evidence


@pytest.mark.parametrize(
    "later",
    [
        audited(Decision.QUARANTINED, LEGACY, FLAKY),  # a new finding that needs a person
        audited(Decision.QUARANTINED, LEGACY, version="v2"),  # another version of the task
        audited(Decision.REJECTED, LEGACY),  # an error finding: never cleared
        audited(Decision.ERROR, LEGACY),
    ],
    ids=["new-finding", "other-version", "rejected", "error"],
)
def test_a_clearance_covers_nothing_else(later: TaskAudit) -> None:
    [task] = apply_clearances(report(later), [cleared(LEGACY)]).tasks
    assert task == later


def test_two_clearances_together_cover_two_findings() -> None:
    both = audited(Decision.QUARANTINED, LEGACY, FLAKY)
    [task] = apply_clearances(report(both), [cleared(LEGACY), cleared(FLAKY)]).tasks
    assert task.decision is Decision.ACCEPTED
    assert sum(f.check == "review" for f in task.findings) == 2


@pytest.mark.parametrize(
    ("held", "by", "error"),
    [
        (audited(Decision.REJECTED, LEGACY), "ana", "was rejected"),
        (audited(Decision.ACCEPTED, NOTE), "ana", "was accepted: nothing holds it"),
        (audited(Decision.ERROR), "ana", "could not be audited"),
        (audited(Decision.QUARANTINED, LEGACY), "  ", "--by: is empty"),
    ],
)
def test_only_a_quarantine_is_cleared_and_only_by_someone(
    held: TaskAudit, by: str, error: str
) -> None:
    with pytest.raises(InputError, match=error):
        clearance_for(held, "first", by=by, reason="fine", at=NOW)


@pytest.mark.parametrize(
    ("by", "reason", "error"),
    [
        ("ana\nreview: cleared by the owner", "fine", r"--by: holds '\\n', a control"),
        ("\x1b[2Kana", "fine", r"--by: holds '\\x1b', a control"),
        ("ana", "sound \u202eevil", r"--reason: holds '\\u202e', a control"),
        ("ana", "ok\x00", r"--reason: holds '\\x00', a control"),
        ("a" * 201, "fine", r"--by: is 201 characters long \(keep it to 200\)"),
        ("ana", "x " * 1001, r"--reason: is 2001 characters long \(keep it to 2000\)"),
    ],
)
def test_who_cleared_and_why_are_plain_text_on_one_line(by: str, reason: str, error: str) -> None:
    """A line break, an escape sequence or a right-to-left override was kept and printed as it
    was wherever the clearance is shown (a line break in the reason is a space, as before)."""
    with pytest.raises(InputError, match=error):
        clearance_for(audited(Decision.QUARANTINED, LEGACY), "r", by=by, reason=reason, at=NOW)
    kept = clearance_for(
        audited(Decision.QUARANTINED, LEGACY), "r", by=" ana ", reason="read\n the\tcheck", at=NOW
    )
    assert (kept.by, kept.reason) == ("ana", "read the check")


def test_the_store_keeps_a_clearance_once_and_exports_read_it(tmp_path: Path) -> None:
    first = report(audited(Decision.QUARANTINED, LEGACY)).model_copy(update={"run_id": "first"})
    with Store(tmp_path / "s.db") as store:
        store.add_audit(first, [])
        assert store.audit_decisions() == {("t", "v1"): "quarantined"}
        store.add_clearances([cleared(LEGACY)])
        assert store.audit_decisions() == {("t", "v1"): "cleared"}
        assert store.clearances() == [cleared(LEGACY)]
        with pytest.raises(StoreError, match="already cleared in audit run first by ana"):
            store.add_clearances([cleared(LEGACY)])
        assert len(store.clearances()) == 1


def _quarantined_set(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    for name in ("flaky-clock", "sound", "reference-fails"):
        shutil.copytree(BROKEN / name, root / name)
    return root


def _clearances(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT task_id, cleared_by FROM clearances").fetchall()


def test_a_person_clears_a_quarantined_task_from_the_command_line(
    run_cli: Run, tmp_path: Path
) -> None:
    root = _quarantined_set(tmp_path)
    db = tmp_path / "store.db"
    checks = ("--checks", "lint,reference,known-bad,flaky")
    first = run_cli("audit", str(root), *checks)
    assert first.exit_code == 1, first.output  # reference-fails is rejected
    assert "quarantined (1), kept out of exports until a person clears them" in first.output
    # held by the flaky check, and by lint: its reference reads the clock
    assert "  flaky-clock: lint: solutions/reference/solution.py reads the clock" in first.output
    assert "(and 1 more)" in first.output

    out = tmp_path / "train.jsonl"
    held = run_cli("export", "tasks", str(root), "--out", str(out))
    assert "left out flaky-clock: quarantined by its latest audit: `assay clear`" in held.output

    for args, error in [
        (("reference-fails",), "was rejected: an error finding is a defect"),
        (("sound",), "was accepted: nothing holds it for review"),
        (("no-such-task",), "no audit in this store audited a task 'no-such-task'"),
        (("flaky-clock", "--run", "no-such-run"), "--run: no audit run named 'no-such-run'"),
        (("flaky-clock", "sound"), "sound in audit run"),  # all or none: flaky-clock not kept
    ]:
        refused = run_cli("clear", *args, "--by", "ana", "--reason", "looked")
        assert refused.exit_code == 2, refused.output
        assert error in refused.output
        assert "Traceback" not in refused.output
        assert _clearances(db) == []

    done = run_cli("clear", "flaky-clock", "--by", "ana", "--reason", "UTC only, by design")
    assert done.exit_code == 0, done.output
    assert done.output.startswith("cleared flaky-clock (version ")
    again = run_cli("clear", "flaky-clock", "--by", "bo", "--reason", "again")
    assert again.exit_code == 2
    assert "already cleared in audit run" in again.output
    assert _clearances(db) == [("flaky-clock", "ana")]

    taken = run_cli("export", "tasks", str(root), "--out", str(out))
    assert taken.exit_code == 0, taken.output
    assert sorted(row["task_id"] for row in map(json.loads, out.read_text().splitlines())) == [
        "flaky-clock",
        "sound",
    ]

    report_path = tmp_path / "again.json"
    later = run_cli("audit", str(root), *checks, "--json", str(report_path))
    assert "quarantined (" not in later.output
    by_id = {t["task_id"]: t for t in json.loads(report_path.read_text())["tasks"]}
    assert by_id["flaky-clock"]["decision"] == "accepted"
    assert [f["message"] for f in by_id["flaky-clock"]["findings"] if f["check"] == "review"] == [
        "cleared by ana on " + datetime.now(UTC).strftime("%Y-%m-%d") + ": UTC only, by design"
    ]


def test_an_audit_that_only_quarantines_exits_0(run_cli: Run, tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    shutil.copytree(BROKEN / "flaky-clock", root / "flaky-clock")
    result = run_cli("audit", str(root), "--checks", "lint,reference,known-bad,flaky")
    assert result.exit_code == 0, result.output
    assert "1 quarantined for review" in result.output


def test_only_the_latest_audit_of_a_version_is_cleared(run_cli: Run, tmp_path: Path) -> None:
    """Exports read the latest audit of a version: clearing an older one would clear nothing."""
    root = tmp_path / "tasks"
    shutil.copytree(BROKEN / "flaky-clock", root / "flaky-clock")
    checks = ("--checks", "lint,reference,known-bad,flaky")
    for _ in range(2):
        assert run_cli("audit", str(root), *checks).exit_code == 0
    newer, older = (row["name"] for row in json.loads(run_cli("runs", "--json").stdout))
    refused = run_cli("clear", "flaky-clock", "--run", older, "--by", "ana", "--reason", "x")
    assert refused.exit_code == 2
    assert f"audit run {newer} decides this version of flaky-clock, not {older}" in (refused.output)
    assert (
        run_cli("clear", "flaky-clock", "--run", newer, "--by", "ana", "--reason", "x").exit_code
        == 0
    )
    out = tmp_path / "train.jsonl"
    assert run_cli("export", "tasks", str(root), "--out", str(out)).exit_code == 0
    assert json.loads(out.read_text().splitlines()[0])["task_id"] == "flaky-clock"


def test_a_later_audit_of_fewer_checks_does_not_hide_the_quarantine_to_clear(
    run_cli: Run, tmp_path: Path
) -> None:
    """The reference check alone accepts the flaky task; the fuller audit before it still
    decides, and that is the one a clearance without --run clears."""
    root = tmp_path / "tasks"
    shutil.copytree(BROKEN / "flaky-clock", root / "flaky-clock")
    assert run_cli("audit", str(root), "--checks", "lint,reference,known-bad,flaky").exit_code == 0
    assert run_cli("audit", str(root), "--checks", "reference").exit_code == 0
    out = tmp_path / "train.jsonl"
    held = run_cli("export", "tasks", str(root), "--out", str(out))
    assert "1 quarantined by its latest audit" in held.output  # the fuller one
    assert run_cli("clear", "flaky-clock", "--by", "ana", "--reason", "x").exit_code == 0
    assert run_cli("export", "tasks", str(root), "--out", str(out)).exit_code == 0
    assert json.loads(out.read_text().splitlines()[0])["task_id"] == "flaky-clock"


def test_a_quarantine_whose_check_ran_again_later_is_cleared_once(tmp_path: Path) -> None:
    """A full audit quarantines a task for a near duplicate; a later audit of the duplicates
    check (and others) finds it again and decides, and a person clears that one. The full
    audit still speaks for lint, but not for the duplicates check that held it: the task is
    cleared, as `assay clear` says, not held by the older audit's word on a check run since."""
    dupe = Finding(
        check="duplicates", severity=Severity.WARNING, message="near duplicate of u", review=True
    )

    def run(name: str, checks: tuple[str, ...], minutes: int) -> AuditReport:
        at = NOW.replace(minute=minutes)
        return report(audited(Decision.QUARANTINED, dupe)).model_copy(
            update={"run_id": name, "checks": checks, "finished_at": at}
        )

    with Store(tmp_path / "s.db") as store:
        store.add_audit(run("full", ("lint", "reference", "known-bad", "duplicates"), 1), [])
        store.add_audit(run("again", ("reference", "known-bad", "duplicates"), 2), [])
        assert store.deciding_audits() == {("t", "v1"): ("again", "quarantined")}
        held = store.task_audit("again", "t")
        assert held is not None
        store.add_clearances([clearance_for(held, "again", by="ana", reason="kept", at=NOW)])
        assert store.audit_decisions() == {("t", "v1"): "cleared"}


def test_a_quarantine_stands_while_its_check_was_not_run_again(tmp_path: Path) -> None:
    dupe = Finding(
        check="duplicates", severity=Severity.WARNING, message="near duplicate of u", review=True
    )
    full = report(audited(Decision.QUARANTINED, dupe)).model_copy(
        update={"run_id": "full", "checks": ("lint", "reference", "known-bad", "duplicates")}
    )
    later = report(audited(Decision.ACCEPTED)).model_copy(
        update={"run_id": "later", "finished_at": NOW.replace(minute=5)}
    )
    with Store(tmp_path / "s.db") as store:
        store.add_audit(full, [])
        store.add_audit(later, [])  # lint, reference, known-bad: not duplicates
        assert store.deciding_audits() == {("t", "v1"): ("full", "quarantined")}


def test_a_clearance_holds_however_a_later_audit_spells_the_task_directory() -> None:
    """The legacy verifier's finding names the file under the task's directory as the audit
    was given it; the same task audited again from elsewhere is still the one cleared."""

    def legacy(path: str) -> TaskAudit:
        message = f"{path}/hidden/check.py is a legacy in-sandbox verifier"
        held = Finding(check="lint", severity=Severity.WARNING, message=message, review=True)
        return TaskAudit(
            task_id="t",
            task_version="v1",
            path=path,
            decision=Decision.QUARANTINED,
            findings=(held,),
        )

    clearance = clearance_for(legacy("tasks/t"), "first", by="ana", reason="read it", at=NOW)
    assert clearance.findings == ("lint: <task>/hidden/check.py is a legacy in-sandbox verifier",)
    for path in ("tasks/t", "/home/me/tasks/t", "."):
        [task] = apply_clearances(report(legacy(path)), [clearance]).tasks
        assert task.decision is Decision.ACCEPTED, path
    # a clearance kept with the directory in its keys still clears the same spelling
    kept = clearance.model_copy(
        update={"findings": ("lint: tasks/t/hidden/check.py is a legacy in-sandbox verifier",)}
    )
    [task] = apply_clearances(report(legacy("tasks/t")), [kept]).tasks
    assert task.decision is Decision.ACCEPTED
    [note] = [f for f in task.findings if f.check == "review"]
    assert note.evidence.endswith(
        "for: lint: tasks/t/hidden/check.py is a legacy in-sandbox verifier"
    )


def test_a_clearance_of_a_task_found_in_one_corpus_does_not_clear_it_in_another(
    tmp_path: Path,
) -> None:
    """A person who cleared a task found in a public dump judged that dump, not a held-out
    set's text that holds the task too."""

    task = make_median_task("t")
    save_task(task, tmp_path / "set")
    for name in ("public.txt", "held-out.txt"):
        (tmp_path / name).write_text(task.prompt)
    taskset = TaskSet.load(tmp_path / "set")

    def audit(corpus: str) -> AuditReport:
        checks = [LintCheck(), ContaminationCheck(tmp_path / corpus)]
        return run_audit(taskset, LocalSandbox(), checks=checks)

    first = audit("public.txt")
    [held] = first.tasks
    assert held.decision is Decision.QUARANTINED
    cleared = clearance_for(held, first.run_id, by="ana", reason="a public dump", at=NOW)
    assert [t.decision for t in apply_clearances(audit("public.txt"), [cleared]).tasks] == [
        Decision.ACCEPTED
    ]
    [again] = apply_clearances(audit("held-out.txt"), [cleared]).tasks
    assert again.decision is Decision.QUARANTINED
    assert "held-out.txt" in again.findings[0].message
