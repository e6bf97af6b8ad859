"""assay's verl rewards inside a real verl 0.9 install (``make verl``): loaded through
``reward.custom_reward_function`` and called by verl's own reward loop, as its PPO trainer
calls them, and by the ``BatchRewardManager`` it ships (``verl_reward_loop.py`` drives them)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from assay.tasks import save_task
from tests.conftest import BAD_NO_SORT, REFERENCE, make_median_task, with_checker

ROOT = Path(__file__).parents[2]
VERL_PYTHON = ROOT / ".venv-verl" / "bin" / "python"
DRIVER = Path(__file__).with_name("verl_reward_loop.py")

GOOD = f"Sure:\n```python\n{REFERENCE.decode()}```\n"
WRONG = "```python\ndef median(values):\n    return 'the middle one'\n```"
PARTLY = f"```python\n{BAD_NO_SORT.decode()}```"  # unsorted: right on 3 of the 5 cases
NEVER_JUDGED = b"import os\ndef check(args, output, expected):\n    os._exit(3)\n"


def _score(tasks: Path, rows: dict[str, list[list[dict[str, Any]]]]) -> dict[str, Any]:
    if not VERL_PYTHON.exists():
        pytest.fail(f"no verl environment at {VERL_PYTHON.parent.parent}: run `make verl`")
    (tasks.parent / "rows.json").write_text(json.dumps(rows))
    env = {**os.environ, "ASSAY_TASKS": str(tasks), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [str(VERL_PYTHON), str(DRIVER), "rows.json", "out.json"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tasks.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    scored: dict[str, Any] = json.loads((tasks.parent / "out.json").read_text())
    return scored


def _row(task_id: str, response: str, tasks: Path | None = None) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "response": response,
        "extra_info": {"tasks_dir": str(tasks)} if tasks else {"index": 0},
    }


@pytest.mark.slow(minutes=3.5)
def test_verl_scores_assay_verdicts_and_stops_on_an_error_verdict(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    for task in [
        make_median_task("median-1"),
        make_median_task("median-2"),
        with_checker(make_median_task("broken-1"), NEVER_JUDGED),
    ]:
        save_task(task, tasks)
    judged = [
        _row("median-1", GOOD, tasks),  # the task set from extra_info ...
        _row("median-1", WRONG, tasks),
        _row("median-2", PARTLY),  # ... or from ASSAY_TASKS
        _row("median-2", "no code at all"),
    ]
    rows = {
        "trainer": [judged, [_row("median-1", GOOD), _row("broken-1", GOOD)]],
        "batch": [[*judged, _row("broken-1", GOOD), _row("broken-1", WRONG)]],
    }
    out = _score(tasks, rows)

    # verl 0.9's trainer: its reward loop calls compute_score once per response
    scored, failed = out["trainer"]
    assert scored["scores"] == [1.0, 0.0, pytest.approx(0.6), 0.0]
    assert scored["extra"]["status"] == ["pass", "fail", "fail", "fail"]
    assert scored["extra"]["error"] == [False] * 4
    assert scored["extra"]["summary"][:3] == [f"{n}/5 cases passed" for n in (5, 0, 3)]
    # an error verdict that persists is no score: the step stops, with assay's reason
    assert "RewardError" in failed.get("raised", []), failed
    assert (
        "task broken-1: the verifier could not judge the response after 3 attempts"
        in (failed["message"])
    )
    assert "scores" not in failed

    # BatchRewardManager with compute_score_batch: the error is marked, never a plain 0
    [batch] = out["batch"]
    assert batch["scores"][:4] == scored["scores"]
    assert batch["extra"]["status"] == ["pass", "fail", "fail", "fail", "error", "error"]
    assert batch["extra"]["error"] == [False] * 4 + [True] * 2
    assert batch["extra"]["attempts"][4:] == [3, 3]
    # no response of broken-1 was judged: equal scores for its group, so zero advantage
    assert batch["scores"][4] == batch["scores"][5]
