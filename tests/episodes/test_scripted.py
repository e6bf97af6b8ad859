"""Scripted policies through whole episodes: the reference passes, known-bad and empty fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.episodes import EndReason, read_jsonl, write_jsonl
from assay.errors import PolicySpecError
from assay.families import get_family, version_label
from assay.policies import parse_policy
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.episodes.conftest import drive


@pytest.mark.parametrize("mode", ["tools", "single"])
def test_reference_passes_and_known_bad_and_empty_fail(
    generated_task: Task, pool: PoolSandbox, mode: str
) -> None:
    reference = drive(generated_task, parse_policy("reference"), pool, mode=mode)
    assert reference.verdict.status is Status.PASS
    assert reference.end is (EndReason.SUBMITTED if mode == "tools" else EndReason.ANSWERED)
    labels = [name.removeprefix("bad-") for name in generated_task.known_bad()]
    assert labels
    for spec in [*(f"bad:{label}" for label in labels), "empty"]:
        trajectory = drive(generated_task, parse_policy(spec), pool, mode=mode)
        assert trajectory.verdict.status is Status.FAIL, spec
        assert trajectory.policy.spec == spec


def test_a_reference_trajectory_records_what_happened(
    generated_task: Task, pool: PoolSandbox
) -> None:
    trajectory = drive(generated_task, parse_policy("reference"), pool)
    family = get_family("code")
    assert trajectory.task_id == generated_task.id
    assert trajectory.task_version == generated_task.content_version(version_label(family))
    assert trajectory.verdict.versions.task == trajectory.task_version
    assert trajectory.tool_names == ("write_file", "read_file", "run", "submit")
    assert trajectory.prompt[1].content is not None
    assert generated_task.prompt in trajectory.prompt[1].content
    [step] = trajectory.steps
    names = [tool.call.name for tool in step.tools]
    assert names == [*(["write_file"] * len(generated_task.solutions["reference"])), "submit"]
    assert all(tool.result.ok for tool in step.tools)
    assert trajectory.submission == {
        path: data.decode() for path, data in generated_task.solutions["reference"].items()
    }
    assert trajectory.cost.sandbox_cpu_s == pytest.approx(trajectory.verdict.timings.sandbox_cpu_s)
    assert trajectory.cost.usd == 0.0
    assert trajectory.policy.prompt_version
    assert trajectory.policy.tools_version


def test_trajectories_round_trip_through_jsonl(
    generated_task: Task, pool: PoolSandbox, tmp_path: Path
) -> None:
    trajectories = [
        drive(generated_task, parse_policy(spec), pool, mode=mode)
        for spec in ("reference", "empty")
        for mode in ("tools", "single")
    ]
    path = write_jsonl(trajectories, tmp_path / "out.jsonl")
    assert len(path.read_text().splitlines()) == 4
    assert read_jsonl(path) == trajectories
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_label_the_task_lacks_is_one_line(generated_task: Task, pool: PoolSandbox) -> None:
    with pytest.raises(PolicySpecError) as caught:
        drive(generated_task, parse_policy("bad:no-such-mistake"), pool)
    assert str(caught.value).startswith(
        f"policy: task {generated_task.id} has no solution 'bad-no-such-mistake' "
        "(its known-bad policies are: bad:"
    )
