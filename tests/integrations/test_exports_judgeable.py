"""Only tasks an answer to which can be judged leave for training: a Terminal-Bench task a
person cleared is no row of a dataset, and the rewards name it when a dataset holds one."""

from __future__ import annotations

import pytest

from assay.errors import InputError
from assay.families import family_of, version_label
from assay.integrations.exports import Exclusion, exportable
from assay.integrations.rewards import Judge
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from tests.conftest import make_median_task, make_terminal_task

CONTAINER = (
    "a terminal-bench task runs in a container (its Dockerfile or image and its test script); "
    "verifying or running it needs a container backend, which assay does not have (audit it "
    "with --checks lint,duplicates,contamination)"
)
"""Why a Terminal-Bench task is neither exported nor judged: it says what it would need."""


def _cleared(*tasks: Task) -> dict[tuple[str, str], str]:
    return {(t.id, t.content_version(version_label(family_of(t)))): "cleared" for t in tasks}


def test_a_cleared_task_without_tools_is_left_out_with_its_reason() -> None:
    median, terminal = make_median_task("median-a"), make_terminal_task()
    chosen = exportable([median, terminal], _cleared(median, terminal))
    assert chosen.tasks == (median,)
    assert chosen.excluded == (Exclusion("term-1", CONTAINER),)


def test_the_rewards_name_a_task_whose_answers_cannot_be_judged(pool: PoolSandbox) -> None:
    judge = Judge([make_median_task("median-a"), make_terminal_task()], sandbox=pool)
    with pytest.raises(InputError) as refused:
        judge.judge(["median-a", "term-1"], ["```python\n```", "```text\necho hi\n```"])
    assert str(refused.value).splitlines() == [
        f"task_id: task 'term-1' cannot be judged here: {CONTAINER} (train on `assay export "
        "tasks` output, which leaves such tasks out)"
    ]
