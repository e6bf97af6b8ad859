"""The promises of the README, run as a user would run them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.demo import DEMO_PROFILE_K
from assay.families.code.templates import TEMPLATES

README = Path(__file__).parents[1] / "README.md"
BASH = shutil.which("bash") or "/bin/bash"


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


@pytest.mark.slow(minutes=7)
def test_demo_generates_audits_stores_and_summarises(tmp_path: Path) -> None:
    result = assay("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "36 tasks: 36 accepted, 0 rejected" in result.stdout
    report = json.loads((tmp_path / "demo-out" / "audit.json").read_text())
    assert len(report["tasks"]) == 36
    # every built-in family is in the demo, each audited with its own checks
    families = {"code": 24, "sql": 4, "config": 4, "workflow": 2, "repo": 2}
    assert report["diversity"]["families"] == families
    assert {"red-team", "mutation", "sensitivity", "flaky"} <= set(report["checks"])
    assert "report:  demo-out/audit.json" in result.stdout
    assert (tmp_path / "assay.db").exists()
    profile = json.loads((tmp_path / "demo-out" / "profile.json").read_text())
    assert (len(profile["tasks"]), profile["k"]) == (36, DEMO_PROFILE_K)
    assert all(task["samples"] == DEMO_PROFILE_K for task in profile["tasks"])
    bars = re.findall(r"^ +(\d+%|\d+-\d+%) +(\d+)", result.stdout, re.MULTILINE)
    assert [label for label, _ in bars[:2]] == ["0%", "0-10%"]
    assert [int(count) for _, count in bars] == [b["tasks"] for b in profile["histogram"]]
    assert sum(int(count) for _, count in bars) == 36
    assert f"profile of {profile['run']} (scripted policy mix:" in result.stdout
    review, easy = len(profile["triage"]["review"]), len(profile["triage"]["too_easy"])
    assert f"triage: {review} for review (0%), {easy} too easy (100%)" in result.stdout


def readme_tour() -> str:
    """The shell commands of the README's tour, exactly as printed there."""
    section = README.read_text().split("## A tour of the command line\n", 1)[1]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def readme_library() -> str:
    """The Python of the README's library section, exactly as printed there."""
    section = README.read_text().split("## As a library\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.slow(minutes=3)
def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    tour = readme_tour()
    [bank] = re.findall(r"a bank of (\d+) problem templates", tour)
    assert int(bank) == len(TEMPLATES)
    scripts = Path(sys.executable).parent
    assert (scripts / "assay").is_file(), "the assay script is not installed beside python"
    env = {name: value for name, value in os.environ.items() if not name.startswith("ASSAY_")}
    env["PATH"] = f"{scripts}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        [BASH, "-euo", "pipefail", "-c", tour],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "200 tasks: 200 accepted, 0 rejected" in result.stdout
    assert "PASS code-parse-duration-8bbedbf0" in result.stdout
    assert json.loads((tmp_path / "verdict.json").read_text())["status"] == "pass"
    assert (tmp_path / "assay.db").is_file()

    report = json.loads((tmp_path / "audit.json").read_text())
    assert len(report["tasks"]) == 200
    assert {t["decision"] for t in report["tasks"]} == {"accepted"}
    bad = [s for t in report["tasks"] for s in t["solutions"] if s["solution"].startswith("bad-")]
    assert len(bad) >= 600
    assert all(s["status"] == "fail" for s in bad)
    page = (tmp_path / "audit.html").read_text()
    assert page.count('<section class="task" id="task-') == 200
    assert f"<title>assay audit {report['run_id']}</title>" in page

    profile = json.loads((tmp_path / "profile.json").read_text())
    assert (profile["run"], profile["k"], len(profile["tasks"])) == ("triage", 4, 200)
    assert sum(bucket["tasks"] for bucket in profile["histogram"]) == 200
    assert profile["triage"]["review"]
    assert profile["triage"]["too_easy"]

    # The library section works on what the tour left behind.
    library = subprocess.run(
        [sys.executable, "-c", readme_library()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert library.returncode == 0, library.stderr[-3000:]
    assert library.stdout.splitlines() == [
        "pass 1.0 []",
        "[('code-parse-duration-8bbedbf0', 'accepted')]",
    ]
