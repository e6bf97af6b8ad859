"""The HTML report stays as wide as the window whatever a task wrote: a finding, a task id or a
directory of thousands of characters without a space wraps inside its cell instead of making
the whole page scroll sideways. Measured in headless Chromium."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay._render_html import audit_html
from assay.audit.report import AuditReport, TaskAudit
from assay.findings import Decision, Finding, Severity

CHROMIUM = Path("/usr/bin/chromium")
FRAME_WIDTH = 1000
UNBROKEN = "x" * 1800


def _report() -> AuditReport:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    task = TaskAudit(
        task_id="t" * 300,
        task_version="v1",
        path=f"tasks/{UNBROKEN}",
        decision=Decision.QUARANTINED,
        findings=(
            Finding(
                check="lint",
                severity=Severity.WARNING,
                message=UNBROKEN,
                evidence=UNBROKEN,
                review=True,
            ),
        ),
    )
    return AuditReport(
        run_id="r1",
        root=f"tasks/{UNBROKEN}",
        started_at=now,
        finished_at=now,
        checks=("lint",),
        tasks=(task,),
    )


@pytest.mark.browser
def test_text_without_a_space_wraps_inside_the_window(tmp_path: Path) -> None:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: `make unit` installs it"
    (tmp_path / "report.html").write_text(audit_html(_report()), encoding="utf-8")
    # The page runs no script (its policy forbids it), so a page around it measures it.
    (tmp_path / "measure.html").write_text(
        "<!DOCTYPE html><html><head><title>unmeasured</title></head><body>"
        f'<iframe id="f" src="report.html" style="width:{FRAME_WIDTH}px;height:600px"></iframe>'
        "<script>document.getElementById('f').onload = function () {"
        "document.title = 'width ' + this.contentDocument.documentElement.scrollWidth; };"
        "</script></body></html>",
        encoding="utf-8",
    )
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--allow-file-access-from-files",
        "--virtual-time-budget=5000",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom",
        (tmp_path / "measure.html").as_uri(),
    ]
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    measured = re.search(r"<title>width (\d+)</title>", dom)
    assert measured is not None, dom[:500]
    assert int(measured.group(1)) <= FRAME_WIDTH
