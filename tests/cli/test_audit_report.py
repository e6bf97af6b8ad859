"""``assay audit --html`` and ``--seed-tasks``, and ``assay report RUN``: the HTML report of an
audit, written again from the store as it was; bad input is one line before any sandbox work."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.tasks import save_task
from tests.conftest import make_median_task

Run = Callable[..., Result]
CHECKS = "lint,reference,known-bad,red-team,mutation"


def one_line_error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "auditing" not in result.output
    return lines[0]


@pytest.fixture
def seeds_dir(tmp_path: Path) -> Path:
    for name in ("seed-a", "seed-b"):
        save_task(make_median_task(name, tags=("stats",)), tmp_path / "seeds")
    return tmp_path / "seeds"


def test_html_into_a_directory_that_does_not_exist_is_one_line_naming_it(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "nowhere" / "audit.html"
    line = one_line_error(run_cli("audit", str(median_dir.parent), "--html", str(target)))
    assert f"{target}: cannot write here: no directory {target.parent}" in line
    assert not target.parent.exists()


def test_html_onto_a_directory_is_refused_naming_it(
    run_cli: Run, median_dir: Path, tmp_path: Path
) -> None:
    refused = run_cli("audit", str(median_dir.parent), "--html", str(tmp_path))
    assert refused.exit_code == 2
    assert f"Invalid value for '--html': File '{tmp_path}' is a directory" in refused.stderr


def test_seed_tasks_that_do_not_load_are_one_line(
    run_cli: Run, median_dir: Path, seeds_dir: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "no-seeds"
    line = one_line_error(run_cli("audit", str(median_dir.parent), "--seed-tasks", str(missing)))
    assert f"--seed-tasks: {missing}: no such directory" in line
    (seeds_dir / "seed-b" / "task.toml").write_text("id = [")
    line = one_line_error(run_cli("audit", str(median_dir.parent), "--seed-tasks", str(seeds_dir)))
    assert line.startswith("error: --seed-tasks: ")
    assert "seed-b" in line


def test_the_report_of_a_store_that_does_not_exist_is_one_line(
    run_cli: Run, tmp_path: Path
) -> None:
    line = one_line_error(run_cli("report", "nope", "--html", str(tmp_path / "r.html")))
    assert f"{tmp_path / 'store.db'}: no results database here" in line
    assert not (tmp_path / "store.db").exists()
    assert not (tmp_path / "r.html").exists()


@pytest.mark.sandbox
def test_the_audit_writes_the_html_and_the_store_writes_it_again(
    run_cli: Run, median_dir: Path, seeds_dir: Path, tmp_path: Path
) -> None:
    page, report = tmp_path / "audit.html", tmp_path / "audit.json"
    audited = run_cli(
        "audit",
        str(median_dir.parent),
        "--checks",
        CHECKS,
        "--seed-tasks",
        str(seeds_dir),
        "--html",
        str(page),
        "--json",
        str(report),
    )
    assert audited.exit_code == 0, audited.output
    assert f"report: {page}" in audited.output
    assert f"drift from 2 seed tasks in {seeds_dir}" in audited.stdout
    assert "diversity: 1 tasks; families: code 1" in audited.stdout
    written = json.loads(report.read_text())
    assert written["format"] == 4
    [task] = written["tasks"]
    assert task["red_team"]["tried"] >= 20
    assert task["red_team"]["won"] == []
    assert task["mutation"]["score"] is not None
    assert written["diversity"]["drift"]["nearest"][0]["task_id"] == "median-1"
    html = page.read_text()
    assert '<section class="task" id="task-median-1">' in html
    assert f"Red team: 0 of {task['red_team']['tried']} exploits won" in html

    again_page, again_report = tmp_path / "again.html", tmp_path / "again.json"
    run_id = written["run_id"]
    shown = run_cli("report", run_id, "--html", str(again_page), "--json", str(again_report))
    assert shown.exit_code == 0, shown.output
    assert "1 tasks: 1 accepted, 0 rejected" in shown.stdout
    assert again_report.read_text() == report.read_text()
    assert again_page.read_text() == html

    line = one_line_error(run_cli("report", "nope", "--html", str(again_page)))
    assert "no audit run named 'nope' in this store" in line
    assert again_page.read_text() == html  # not touched
    long = one_line_error(run_cli("report", "n" * 5000))  # was repeated whole on the line
    assert "no audit run named 'nnn" in long
    assert "n" * 101 not in long  # cut to 100 (the line's length also holds the store's path)
