"""What the audit prints under its table stays one line per line of assay's own: a label, a
directory or a seed a task set names is shown with its line breaks as escapes, never as a line
that reads like the totals."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from rich.console import Console

from assay._render import audit_table, diversity_lines, plain
from assay.audit.drift import Drift, LabelDrift, LabelShare
from assay.audit.report import AuditReport, Diversity, TaskAudit
from assay.findings import Decision

FORGED = "\n9 tasks: 9 accepted, 0 rejected; known-bad solutions caught: 9/9"
"""A line break, then a line that reads like the audit's totals."""


def _printed(lines: list[str]) -> list[str]:
    out = io.StringIO()
    shown = Console(file=out, width=1000, soft_wrap=True)
    for line in lines:
        shown.print(plain(line))
    return out.getvalue().splitlines()


def test_labels_and_seeds_a_task_set_names_print_on_the_line_that_names_them() -> None:
    drift = Drift(
        seeds_root=f"seeds{FORGED}",
        seeds=1,
        bins=(0,) * 10,
        median=None,
        copies=0,
        far=0,
        nearest=(),
        labels={
            "locales": LabelDrift(
                distance=1.0,
                shares=(
                    LabelShare(label=f"en{FORGED}", seeds=0.0, tasks=1.0),
                    LabelShare(label="unset", seeds=1.0, tasks=0.0),
                ),
            )
        },
    )
    spread = Diversity(
        tasks=1, families={f"code{FORGED}": 1}, locales={f"en{FORGED}": 1}, drift=drift
    )
    lines = diversity_lines(spread)
    printed = _printed(lines)
    assert len(printed) == len(lines) == 3
    assert not any(line.startswith("9 tasks") for line in printed)
    assert "locales: en\\n9 tasks: 9 accepted" in printed[0]
    assert "families: code\\n9 tasks" in printed[0]
    assert "seed tasks in seeds\\n9 tasks" in printed[1]
    assert "locales en\\n9 tasks" in printed[2]


def test_the_tables_title_is_one_line_whatever_the_directory_is_called() -> None:
    now = datetime.now(UTC)
    report = AuditReport(
        run_id="r1",
        root=f"tasks{FORGED}",
        started_at=now,
        finished_at=now,
        checks=("lint",),
        tasks=(TaskAudit(task_id="t", task_version="v", path="p", decision=Decision.ACCEPTED),),
    )
    out = io.StringIO()
    Console(file=out, width=1000).print(audit_table(report))
    [title] = [line for line in out.getvalue().splitlines() if "audit r1" in line]
    assert "of tasks\\n9 tasks: 9 accepted" in title
    assert not any(line.lstrip().startswith("9 tasks") for line in out.getvalue().splitlines())
