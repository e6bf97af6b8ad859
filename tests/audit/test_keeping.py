"""What the audit keeps, and that nothing in a task set or around the store loses it: an
audit of fewer checks does not overrule a fuller one, a report never lands on the store, a task
that does not load never takes another's id, a locked store is waited for, a file name that is
not UTF-8 is shown."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from click.testing import Result

from assay.audit.report import AuditReport, TaskAudit
from assay.families import family_of, version_label
from assay.findings import Decision
from assay.integrations.exports import exportable
from assay.store import Store
from tests.audit.test_clearance import BROKEN, audited, report
from tests.conftest import make_median_task

Run = Callable[..., Result]


def test_an_audit_of_fewer_checks_does_not_overrule_a_fuller_one(tmp_path: Path) -> None:
    def run(name: str, checks: tuple[str, ...], decision: Decision) -> AuditReport:
        return report(audited(decision)).model_copy(update={"run_id": name, "checks": checks})

    with Store(tmp_path / "s.db") as store:
        store.add_audit(run("full", ("lint", "reference", "known-bad"), Decision.REJECTED), [])
        store.add_audit(run("lint-only", ("lint",), Decision.ACCEPTED), [])
        assert store.audit_decisions() == {("t", "v1"): "rejected"}
        store.add_audit(
            run("full-again", ("lint", "reference", "known-bad"), Decision.ACCEPTED), []
        )
        assert store.audit_decisions() == {("t", "v1"): "accepted"}


def test_a_check_left_out_of_a_later_audit_still_speaks_through_the_last_that_ran_it(
    tmp_path: Path,
) -> None:
    """Neither check set holds the other: the duplicates check quarantined the task, and an
    audit of other checks does not make it exportable until duplicates runs again."""

    runs = iter(range(10))

    def run(name: str, checks: tuple[str, ...], decision: Decision) -> AuditReport:
        kept = report(audited(decision))
        at = kept.finished_at + timedelta(minutes=next(runs))  # in the order they ran
        return kept.model_copy(update={"run_id": name, "checks": checks, "finished_at": at})

    with Store(tmp_path / "s.db") as store:
        store.add_audit(run("dups", ("lint", "duplicates"), Decision.QUARANTINED), [])
        store.add_audit(run("empty", ("lint", "empty"), Decision.ACCEPTED), [])
        assert store.deciding_audits() == {("t", "v1"): ("dups", "quarantined")}
        store.add_audit(run("ref", ("reference", "known-bad"), Decision.REJECTED), [])
        assert store.deciding_audits() == {("t", "v1"): ("ref", "rejected")}
        store.add_audit(
            run("all", ("lint", "duplicates", "reference", "known-bad"), Decision.ACCEPTED), []
        )
        assert store.deciding_audits() == {("t", "v1"): ("all", "accepted")}
        store.add_audit(
            run("all-again", ("lint", "duplicates", "reference", "empty"), Decision.ACCEPTED), []
        )
        assert store.deciding_audits() == {("t", "v1"): ("all-again", "accepted")}
        assert store.audit_decisions() == {("t", "v1"): "accepted"}


def test_audits_that_never_ran_the_reference_and_known_bad_checks_prove_nothing(
    tmp_path: Path,
) -> None:
    """``--checks lint`` accepts a task whose reference fails: no export may rely on it."""

    def run(name: str, checks: tuple[str, ...]) -> AuditReport:
        return report(audited(Decision.ACCEPTED)).model_copy(
            update={"run_id": name, "checks": checks}
        )

    with Store(tmp_path / "s.db") as store:
        store.add_audit(run("lint", ("lint",)), [])
        assert store.audit_decisions() == {("t", "v1"): "unproven"}
        store.add_audit(run("reference", ("reference",)), [])
        assert store.audit_decisions() == {("t", "v1"): "unproven"}
        store.add_audit(run("known-bad", ("known-bad", "empty")), [])
        assert store.audit_decisions() == {("t", "v1"): "accepted"}
    task = make_median_task("t")
    version = task.content_version(version_label(family_of(task)))
    chosen = exportable([task], {("t", version): "unproven"})
    assert chosen.tasks == ()
    assert [e.reason for e in chosen.excluded] == [
        "audited without the reference and known-bad checks: run them"
    ]


def test_a_report_is_never_written_over_the_store(run_cli: Run, tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    shutil.copytree(BROKEN / "sound", root / "sound")
    db = tmp_path / "store.db"
    assert run_cli("audit", str(root), "--checks", "lint").exit_code == 0
    kept = db.read_bytes()
    for flag, target in (("--json", db), ("--html", db), ("--json", Path(f"{db}-wal"))):
        refused = run_cli("audit", str(root), "--checks", "lint", flag, str(target))
        assert refused.exit_code == 2
        assert "is the results database (--db)" in refused.output
    assert db.read_bytes() == kept
    assert run_cli("runs").exit_code == 0
    both = tmp_path / "r.out"
    twice = run_cli(
        "audit", str(root), "--checks", "lint", "--json", str(both), "--html", str(both)
    )
    assert twice.exit_code == 2
    assert "is given for both --json and --html" in twice.output


def test_a_task_that_does_not_load_never_takes_another_tasks_id(
    run_cli: Run, tmp_path: Path
) -> None:
    root = tmp_path / "tasks"
    shutil.copytree(BROKEN / "sound", root / "alpha")
    toml = (root / "alpha" / "task.toml").read_text().replace('id = "sound"', 'id = "beta"')
    (root / "alpha" / "task.toml").write_text(toml)
    (root / "beta").mkdir()
    (root / "beta" / "task.toml").write_text("[broken\n")
    out = tmp_path / "r.json"
    result = run_cli("audit", str(root), "--checks", "lint", "--json", str(out))
    assert result.exit_code == 1, result.output  # the broken one is rejected, and stored
    ids = sorted(t["task_id"] for t in json.loads(out.read_text())["tasks"])
    assert ids == [str(root / "beta"), "beta"]


def test_a_finished_audit_waits_for_a_locked_store(tmp_path: Path) -> None:
    """Another writer holds the store past the store's own timeout: the audit is kept once
    the lock goes, not thrown away."""
    import threading  # noqa: PLC0415

    from assay.audit.runner import _keep  # noqa: PLC0415

    path = tmp_path / "s.db"
    with Store(path, timeout_s=0.2) as store:
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        release = threading.Timer(1.5, lambda: holder.execute("COMMIT"))
        release.start()
        try:
            _keep(store, report(audited(Decision.ACCEPTED)), [])
        finally:
            release.join()
            holder.close()
        assert [run.run_id for run in store.audit_runs()] == ["later"]


def test_a_directory_name_that_is_not_utf8_is_shown_not_fatal(run_cli: Run, tmp_path: Path) -> None:
    root = Path(os.fsdecode(bytes(tmp_path / "tasks") + b"\xff"))
    shutil.copytree(BROKEN / "sound", root / os.fsdecode(b"good\xfe"))
    (root / os.fsdecode(b"bad\xfd")).mkdir()
    (root / os.fsdecode(b"bad\xfd") / "task.toml").write_text("[broken\n")
    out = tmp_path / "r.json"
    result = run_cli("audit", str(root), "--checks", "lint", "--json", str(out))
    assert result.exit_code == 1, result.output  # the broken one is rejected; all is stored
    report = json.loads(out.read_text())
    assert report["root"].endswith("tasks\ufffd")
    assert sorted((t["task_id"], t["decision"]) for t in report["tasks"]) == [
        ("bad\ufffd", "rejected"),
        ("sound", "accepted"),
    ]


def test_the_list_of_runs_counts_the_quarantined_and_the_errors(tmp_path: Path) -> None:
    from assay._render_runs import _what  # noqa: PLC0415
    from assay.runs import list_runs  # noqa: PLC0415

    tasks = tuple(
        TaskAudit(task_id=f"t{i}", task_version="v", path="t", decision=decision)
        for i, decision in enumerate(
            (Decision.ACCEPTED, Decision.QUARANTINED, Decision.QUARANTINED, Decision.ERROR)
        )
    )
    with Store(tmp_path / "s.db") as store:
        store.add_audit(report(*tasks).model_copy(update={"run_id": "mixed"}), [])
        [run] = store.audit_runs()
        assert (run.accepted, run.rejected, run.quarantined, run.errors) == (1, 0, 2, 1)
        [row] = list_runs(store)
    assert _what(row).endswith("1 accepted, 0 rejected, 2 quarantined, 1 error")
    assert row.flat()["quarantined"] == 2
