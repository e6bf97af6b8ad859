"""The promises of the README, run as a user would run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSAY_DB": str(cwd / "assay.db")}
    return subprocess.run(
        [sys.executable, "-m", "assay", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_demo_generates_audits_stores_and_summarises(tmp_path: Path) -> None:
    result = assay("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "24 tasks: 24 accepted, 0 rejected" in result.stdout
    report = json.loads((tmp_path / "demo-out" / "audit.json").read_text())
    assert len(report["tasks"]) == 24
    assert "report: demo-out/audit.json" in result.stdout
    assert (tmp_path / "assay.db").exists()


def test_two_hundred_generated_tasks_are_all_accepted(tmp_path: Path) -> None:
    generated = assay(
        "generate", "code", "--n", "200", "--seed", "7", "--out", "tasks", cwd=tmp_path
    )
    assert generated.returncode == 0, generated.stderr
    audited = assay("audit", "tasks", "--json", "report.json", cwd=tmp_path)
    assert audited.returncode == 0, audited.stdout[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    decisions = {t["decision"] for t in report["tasks"]}
    assert len(report["tasks"]) == 200
    assert decisions == {"accepted"}
    bad = [s for t in report["tasks"] for s in t["solutions"] if s["solution"].startswith("bad-")]
    assert len(bad) >= 600
    assert all(s["status"] == "fail" for s in bad)
    assert "200 tasks: 200 accepted, 0 rejected" in audited.stdout
