"""verl's batch form judges each row against the task set its own ``extra_info`` names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.integrations.verl import compute_score_batch
from assay.sandbox import PoolSandbox
from assay.tasks import save_task
from tests.conftest import REFERENCE, make_median_task

GOOD = f"```python\n{REFERENCE.decode()}```\n"


def test_a_batch_mixing_two_task_sets_judges_each_row_against_its_own(
    pool: PoolSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    save_task(make_median_task("median-1"), first)
    save_task(make_median_task("median-2"), second)
    monkeypatch.setattr("assay.integrations._pool._pool", pool)
    monkeypatch.delenv("ASSAY_TASKS", raising=False)
    batch = compute_score_batch(
        data_sources=np.array(["assay"] * 3, dtype=object),
        solution_strs=np.array([GOOD, GOOD, "no code"], dtype=object),
        ground_truths=np.array(["median-1", "median-2", "median-2"], dtype=object),
        extra_infos=np.array(
            [{"tasks_dir": str(first)}, {"tasks_dir": str(second)}, {"tasks_dir": str(second)}],
            dtype=object,
        ),
    )
    assert [row["task_id"] for row in batch] == ["median-1", "median-2", "median-2"]
    assert [row["status"] for row in batch] == ["pass", "pass", "fail"]
    assert [row["score"] for row in batch] == [1.0, 1.0, 0.0]
