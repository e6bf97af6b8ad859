"""examples/grpo.py: a real GRPO training step on the CPU, TRL calling assay's reward function
on the model's completions, with the dataset ``assay export tasks`` wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.tasks import save_task
from tests.conftest import make_median_task

EXAMPLE = Path(__file__).parents[2] / "examples" / "grpo.py"


@pytest.mark.slow(minutes=1.2)
def test_the_example_trains_two_grpo_steps_on_assay_rewards(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks"
    for index in range(2):
        save_task(make_median_task(f"median-{index}"), tasks)
    assert run_cli("audit", str(tasks), "--checks", "reference,known-bad").exit_code == 0
    data = tmp_path / "train.jsonl"
    assert run_cli("export", "tasks", str(tasks), "--out", str(data)).exit_code == 0
    assert len(EXAMPLE.read_text().splitlines()) < 40
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(tasks), str(data), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    logged = [json.loads(line) for line in lines if line.startswith('{"')]
    steps = [entry for entry in logged if "rewards/reward/mean" in entry]
    assert [entry["step"] for entry in steps] == [1, 2]
    assert all("rewards/reward/mean" in e and "rewards/errors/mean" in e for e in steps)
    # 2 steps x 4 completions, each judged by assay (random weights: no fenced block, a real 0)
    assert lines[-1] == "judged 8 completions; 0 could not be judged"
