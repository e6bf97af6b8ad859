"""A checker that gives no verdict: the candidate's fault is a fail, the task's fault an error."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from assay.cli import cli
from assay.tasks import Limits, save_task
from tests.conftest import REFERENCE, make_median_task, with_checker

Invoke = Callable[..., Result]

HANGS_ON_STRINGS = b"""
def check(args, output, expected):
    if isinstance(output, str):
        while True:
            pass
    return type(output) is type(expected) and output == expected
"""
HANGS_ALWAYS = b"""
def check(args, output, expected):
    while True:
        pass
"""
SLOW = b"""
import time

def check(args, output, expected):
    time.sleep(0.4)
    return type(output) is type(expected) and output == expected
"""
STRINGS = b"def median(values):\n    return 'the middle one'\n"


@pytest.fixture
def invoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_DB", str(tmp_path / "store.db"))
    monkeypatch.setenv("ASSAY_SANDBOX", "bubblewrap")

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return run


def _task_with(checker: bytes, tmp_path: Path, timeout_s: float = 1) -> Path:
    limits = Limits(timeout_s=timeout_s, cpu_s=1, memory_mb=256)
    task = make_median_task("checked", limits=limits)
    (tmp_path / "reference.py").write_bytes(REFERENCE)
    (tmp_path / "strings.py").write_bytes(STRINGS)
    return save_task(with_checker(task, checker), tmp_path / "tasks")


def test_a_checker_stopped_by_the_candidates_outputs_fails_the_candidate(
    invoke: Invoke, tmp_path: Path
) -> None:
    _task_with(HANGS_ON_STRINGS, tmp_path)
    result = invoke("verify", "tasks/checked", "--solution", "strings.py", "--json")
    assert result.exit_code == 1, result.output
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "fail"
    assert verdict["score"] == 0
    evidence = {c["evidence"] for c in verdict["criteria"]}
    assert all("gave no verdict on this output" in e for e in evidence), evidence
    assert invoke("verify", "tasks/checked", "--solution", "reference.py").exit_code == 0


def test_a_checker_that_cannot_judge_the_tasks_own_outputs_is_an_error(
    invoke: Invoke, tmp_path: Path
) -> None:
    _task_with(HANGS_ALWAYS, tmp_path)
    for attempt in ("strings.py", "reference.py"):
        result = invoke("verify", "tasks/checked", "--solution", attempt, "--json")
        assert result.exit_code == 3, result.output
        verdict = json.loads(result.stdout)  # recorded as an error verdict, not a traceback
        assert verdict["status"] == "error"
        assert "the checker gives no verdict on the task's own expected" in verdict["summary"]


@pytest.mark.slow(minutes=1.5)
def test_the_audit_rejects_a_checker_that_cannot_judge_the_tasks_own_outputs(
    invoke: Invoke, tmp_path: Path
) -> None:
    _task_with(HANGS_ALWAYS, tmp_path)
    result = invoke("audit", "tasks", "--json", "report.json")
    assert result.exit_code == 1, result.output
    [audit] = json.loads((tmp_path / "report.json").read_text())["tasks"]
    assert audit["decision"] == "rejected"
    [finding] = [f for f in audit["findings"] if f["check"] == "checker-crash"]
    assert finding["severity"] == "error"
    assert finding["message"].startswith("tasks/checked/hidden/checker.py: the checker gives no")


@pytest.mark.slow(minutes=0.5)
def test_the_audit_warns_of_a_checker_that_takes_most_of_its_time(
    invoke: Invoke, tmp_path: Path
) -> None:
    # 2 s of sleep over the five cases against a 3 s limit: a second of margin on either side
    # of the warning's line (half the limit), however loaded the machine
    _task_with(SLOW, tmp_path, timeout_s=3)
    checks = "reference,known-bad,checker-crash,headroom"
    result = invoke("audit", "tasks", "--json", "report.json", "--checks", checks)
    assert result.exit_code == 0, result.output
    [audit] = json.loads((tmp_path / "report.json").read_text())["tasks"]
    assert audit["decision"] == "accepted"
    [finding] = [f for f in audit["findings"] if "on the task's own outputs" in f["message"]]
    assert finding["severity"] == "warning"
    assert "of its 3s time limit on the task's own outputs" in finding["message"]
    # the verification as a whole is slow too, which the headroom check says in its own terms
    assert any(f["check"] == "headroom" for f in audit["findings"])
