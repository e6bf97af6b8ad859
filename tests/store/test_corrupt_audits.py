"""A store whose audit records were changed by something else (or written by an assay whose
reports have another layout): reading them is refused in one line that names the file and the
record, as for verdicts and trajectories, never an internal error."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay.audit.clearance import clearance_for
from assay.errors import StoreError
from assay.store import Store
from tests.cli.test_render_html import hostile_report

RUN = hostile_report().run_id


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    db = tmp_path / "audits.db"
    report = hostile_report()
    held = next(task for task in report.tasks if task.task_id == "held")
    with Store(db) as store:
        store.add_audit(report, [])
        at = datetime(2026, 12, 2, tzinfo=UTC)
        store.add_clearances([clearance_for(held, RUN, by="ana", reason="read it", at=at)])
    return db


READS: dict[str, Callable[[Store], object]] = {
    "report": lambda store: store.audit_report(RUN),
    "task audits": lambda store: store.task_audits(RUN),
    "one task": lambda store: store.task_audit(RUN, "fine"),
    "latest": lambda store: store.latest_task_audit("fine"),
    "decisions": lambda store: store.audit_decisions(),
    "runs": lambda store: store.audit_runs(),
    "clearances": lambda store: store.clearances(),
}


@pytest.mark.parametrize(
    ("statement", "reads", "said"),
    [
        (
            "UPDATE task_audits SET record = '{\"format\": 9}' WHERE task_id = 'fine'",
            ("report", "task audits", "one task", "latest"),
            f"the record of the audit of fine in audit run '{RUN}' cannot be read (task_id: ",
        ),
        (
            "UPDATE audit_reports SET header = '[1]'",
            ("report",),
            f"the record of audit run '{RUN}' cannot be read (a JSON list, not an object)",
        ),
        (
            'UPDATE audit_reports SET header = \'{"format": "three"}\'',
            ("report",),
            f"the record of audit run '{RUN}' cannot be read (format: ",
        ),
        (
            "UPDATE audit_runs SET checks = 'lint'",
            ("decisions", "runs"),
            f"the record of the checks of audit run '{RUN}' cannot be read (",
        ),
        (
            "UPDATE clearances SET cleared_at = 'yesterday'",
            ("clearances",),
            f"the record of the clearance of held in audit run '{RUN}' cannot be read (",
        ),
    ],
)
def test_a_changed_audit_record_is_one_line_naming_the_file_and_record(
    kept: Path, statement: str, reads: tuple[str, ...], said: str
) -> None:
    with sqlite3.connect(kept) as connection:
        connection.execute(statement)
    with Store(kept) as store:
        for read in reads:
            with pytest.raises(StoreError) as caught:
                READS[read](store)
            assert str(caught.value).startswith(f"{kept}: {said}"), read
            assert "\n" not in str(caught.value)


def test_the_audit_records_read_back_when_nothing_changed_them(kept: Path) -> None:
    with Store(kept) as store:
        for read in READS.values():
            assert read(store)
