"""A stored audit run gives back its whole report, as it was written; a run kept before the
store held reports (schema 3) gives back what was kept of it."""

from __future__ import annotations

import shutil
from pathlib import Path

from assay.store import Store
from tests.cli.test_render_html import hostile_report

FIXTURE = Path(__file__).parent / "schema-1.db"


def test_a_report_comes_back_as_it_was_written(tmp_path: Path) -> None:
    report = hostile_report()
    with Store(tmp_path / "store.db") as store:
        store.add_audit(report, [])
        assert store.audit_report(report.run_id) == report
        assert store.audit_report("nope") is None


def test_a_run_kept_before_reports_were_comes_back_without_a_diversity(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    with Store(path) as store:
        [run] = store.audit_runs()
        report = store.audit_report(run.run_id)
    assert report is not None
    assert report.format == 2
    assert report.diversity is None
    assert report.profile_run is None
    assert (report.root, report.checks, report.started_at) == (run.root, run.checks, run.started_at)
    assert len(report.tasks) == run.tasks == 2
    assert all(task.mutation is None and task.red_team is None for task in report.tasks)
