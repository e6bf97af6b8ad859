"""Text from a task, a sandbox or the store is shown as written, never interpreted as markup."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import Result
from rich.console import Console, RenderableType

import assay._render
from assay._render import ProgressLines, audit_table, runs_table, verdict_text, verdicts_table
from assay.audit import AuditReport, Decision, Finding, Severity, SolutionResult, TaskAudit
from assay.store import StoredRun, StoredVerdict
from assay.verdicts import Criterion, Status, Timings, Verdict, Versions

Run = Callable[..., Result]
HOSTILE = ["[/red]", "[bold]loud", "[link=https://example.com/x]click[/link]", "[/]"]
TEXT = " ".join(HOSTILE)


def shown(renderable: RenderableType) -> str:
    console = Console(width=400, record=True, color_system=None, soft_wrap=True)
    console.print(renderable)
    return console.export_text()


def hostile_verdict() -> Verdict:
    return Verdict(
        task_id=f"t {TEXT}",
        status=Status.FAIL,
        score=0.0,
        criteria=(Criterion(name=f"case {TEXT}", passed=False, evidence=f"got {TEXT}"),),
        summary=f"summary {TEXT}",
        timings=Timings(wall_s=0.1),
        versions=Versions(task=f"v {TEXT}", family="code@1", assay="0.1.0"),
    )


def test_an_audit_table_shows_hostile_text_as_written() -> None:
    now = datetime.now(UTC)
    audit = TaskAudit(
        task_id=f"id {TEXT}",
        task_version="",
        path="/x",
        decision=Decision.REJECTED,
        findings=(Finding(check="lint", severity=Severity.ERROR, message=f"msg {TEXT}"),),
        solutions=(SolutionResult(solution="bad-x", status=Status.PASS, score=1, summary=TEXT),),
    )
    report = AuditReport(
        run_id="r1",
        root=f"/root {TEXT}",
        started_at=now,
        finished_at=now,
        checks=("lint",),
        tasks=(audit,),
    )
    text = shown(audit_table(report))
    for field in ("id", "msg", "/root"):
        assert f"{field} {TEXT}" in text


def test_the_audit_table_shows_the_worst_findings_and_counts_the_rest() -> None:
    now = datetime.now(UTC)
    notes = [
        Finding(check="mutation", severity=Severity.INFO, message=f"note {i}") for i in range(3)
    ]
    findings = (
        *notes,
        Finding(check="red-team", severity=Severity.ERROR, message="exploit x passes"),
        Finding(check="lint", severity=Severity.WARNING, message="odd limit"),
    )
    audit = TaskAudit(
        task_id="t", task_version="v", path="/t", decision=Decision.REJECTED, findings=findings
    )
    report = AuditReport(
        run_id="r", root="/", started_at=now, finished_at=now, checks=("lint",), tasks=(audit,)
    )
    text = " ".join(shown(audit_table(report)).split())
    assert "[red-team] exploit x passes; [lint] odd limit; [mutation] note 0" in text
    assert "(and 2 more in the JSON report)" in text


def test_verdicts_and_runs_show_hostile_text_as_written() -> None:
    verdict = hostile_verdict()
    text = shown(verdict_text(verdict))
    for field in ("t", "summary", "case"):
        assert f"{field} {TEXT}" in text
    assert f"got {TEXT}" in text
    kept = [StoredVerdict(id=1, run_id=None, solution=f"sol {TEXT}", verdict=verdict)]
    table = shown(verdicts_table(kept, Path("[bold]db[link=x]")))
    assert "verdicts in [bold]db[link=x]" in table
    for field in ("t", "summary", "sol", "v"):
        assert f"{field} {TEXT}" in table
    now = datetime.now(UTC)
    run = StoredRun(
        run_id=f"run {TEXT}",
        root=f"root {TEXT}",
        started_at=now,
        finished_at=now,
        checks=(),
        tasks=1,
        accepted=0,
        rejected=1,
        known_bad=0,
        known_bad_caught=0,
    )
    runs = shown(runs_table([run], Path("a.db")))
    assert f"run {TEXT}" in runs
    assert f"root {TEXT}" in runs


def test_terminal_control_sequences_from_a_sandbox_are_shown_escaped() -> None:
    verdict = hostile_verdict().model_copy(update={"summary": "\x1b[2J\x1b]0;owned\x07 cleared"})
    text = shown(verdict_text(verdict))
    assert "\x1b" not in text
    assert "\\x1b[2J\\x1b]0;owned\\x07 cleared" in text


RAISES_MARKUP = f"""
def median(values):
    raise ValueError({TEXT!r})
""".encode()


@pytest.mark.parametrize("as_json", [False, True])
def test_verify_prints_a_candidates_markup_as_text(
    run_cli: Run, median_dir: Path, tmp_path: Path, as_json: bool
) -> None:
    attempt = tmp_path / "attempt.py"
    attempt.write_bytes(RAISES_MARKUP)
    args = ["verify", str(median_dir), "--solution", str(attempt)]
    result = run_cli(*args, *(["--json"] if as_json else []))
    assert result.exit_code == 1, result.output
    assert "[/red]" in result.stdout
    if not as_json:
        assert TEXT in result.stdout


def test_audit_and_read_back_show_markup_in_names_and_findings(
    run_cli: Run, median_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    hostile = median_dir.parent / "[bold]x[link=https:x]"
    hostile.mkdir()
    (hostile / "task.toml").write_text('id = "x"\nfamily = "code"\n"[/red]" = 1\n')
    audited = run_cli("audit", str(median_dir.parent))
    assert audited.exit_code == 1, audited.output
    assert "[bold]x[link=https:x]" in audited.stdout
    assert '"[/red]": unknown field' in audited.stdout
    assert "1 accepted, 1 rejected" in audited.stdout
    attempt = tmp_path / "[bold][link=https:x]attempt.py"
    attempt.write_bytes(RAISES_MARKUP)
    run_cli("verify", str(median_dir), "--solution", str(attempt))
    verdicts = run_cli("verdicts")
    assert verdicts.exit_code == 0, verdicts.output
    assert "[bold][link=https:x]attempt.py" in verdicts.stdout


def test_progress_for_a_log_is_a_line_now_and_then() -> None:
    now = [100.0]
    stream = io.StringIO()
    lines = ProgressLines("auditing", 10, stream=stream, clock=lambda: now[0], every=30)
    now[0] = 129.0
    lines.show(3)
    assert stream.getvalue() == ""
    now[0] = 131.0
    lines.show(4, "pass 4")
    now[0] = 140.0
    lines.show(5)
    assert stream.getvalue() == "auditing: 4 of 10 after 31 s, pass 4\n"


def test_progress_for_a_log_is_written_while_nothing_advances() -> None:
    stream = io.StringIO()
    lines = ProgressLines("auditing", 10, stream=stream, every=0.02)
    lines.show(3, "pass 3")
    with lines.ticking():
        deadline = time.monotonic() + 10
        while stream.getvalue().count("\n") < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    written = stream.getvalue().splitlines()
    assert len(written) >= 2, written
    assert all(line.startswith("auditing: 3 of 10 after ") for line in written), written
    assert all(line.endswith(", pass 3") for line in written), written
    after = stream.getvalue()
    time.sleep(0.1)
    assert stream.getvalue() == after  # the block's end stopped the ticking


def test_an_audit_whose_stderr_is_a_log_says_how_far_it_is(
    run_cli: Run, median_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(assay._render, "PROGRESS_EVERY_S", 0.0)
    audited = run_cli("audit", str(median_dir.parent), "--checks", "reference")
    assert audited.exit_code == 0, audited.output
    assert "auditing: 1 of 1 after " in audited.stderr


def test_the_audit_table_cuts_a_finding_of_megabytes() -> None:
    now = datetime.now(UTC)
    huge = "x" * 1_000_000
    audit = TaskAudit(
        task_id=f"t{huge}",
        task_version="v",
        path="/t",
        decision=Decision.REJECTED,
        findings=(Finding(check="lint", severity=Severity.ERROR, message=huge),) * 3,
    )
    report = AuditReport(
        run_id="r", root="/", started_at=now, finished_at=now, checks=("lint",), tasks=(audit,)
    )
    started = time.monotonic()
    text = shown(audit_table(report))
    assert len(text) < 20_000
    assert time.monotonic() - started < 10
    assert "more]" in text
