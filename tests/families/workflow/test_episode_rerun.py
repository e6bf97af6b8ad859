"""Episodes of rerun-checked tasks: the episode's own calls are replayed on its final state,
which must not change, as a script's second run must not change it."""

from __future__ import annotations

import json
import random

import pytest

from assay.episodes import Episode
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.config import expected_state, initial_state, workflow_config
from assay.families.workflow.generator import draft_task
from assay.families.workflow.templates import TEMPLATES
from assay.policies.messages import ToolCall
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Criterion, Status, Verdict

pytestmark = pytest.mark.sandbox

MARKER = "tmp/first-pass"


@pytest.fixture(scope="module")
def archive() -> Task:
    """Move old log files to an archive bucket and write an index of what moved: the index of a
    second run is empty unless the script takes care."""
    template = next(t for t in TEMPLATES if t.id == "log-archive")
    return draft_task(template, random.Random(1), 0, 0)


def step(episode: Episode, name: str, **arguments: object) -> None:
    result = episode.step(ToolCall(id="1", name=name, arguments=json.dumps(arguments)))
    assert result.ok or name == "aws", result.output


def episode_verdict(task: Task, calls: list[tuple[str, dict[str, object]]]) -> Verdict:
    episode = Episode(task, LocalSandbox())
    episode.reset()
    for name, arguments in calls:
        step(episode, name, **arguments)
    step(episode, "submit")
    return episode.judge(None).verdict


def criterion(verdict: Verdict, name: str) -> Criterion:
    return next(c for c in verdict.criteria if c.name == name)


def code(task: Task, solution: str) -> str:
    return task.solutions[solution]["solution.py"].decode()


def test_a_script_that_breaks_on_rerun_fails_in_an_episode_as_it_does_alone(
    archive: Task,
) -> None:
    bad = code(archive, "bad-index-overwritten-on-rerun")
    alone = WorkflowFamily().verify(archive, archive.solutions["bad-index-overwritten-on-rerun"],
                                    LocalSandbox())  # fmt: skip
    assert alone.status is Status.FAIL
    verdict = episode_verdict(archive, [("python", {"code": bad})])
    assert verdict.status is Status.FAIL, verdict.criteria
    rerun = criterion(verdict, "idempotent")
    assert not rerun.passed
    assert rerun.kind == criterion(alone, "idempotent").kind == "idempotence"
    assert rerun.weight == criterion(alone, "idempotent").weight
    assert "index/" in rerun.evidence
    assert all(c.passed for c in verdict.criteria if c.name != "idempotent")


def test_the_reference_in_an_episode_passes_its_rerun(archive: Task) -> None:
    verdict = episode_verdict(archive, [("python", {"code": code(archive, "reference")})])
    assert verdict.status is Status.PASS, verdict.criteria
    assert criterion(verdict, "idempotent").passed
    assert verdict.timings.sandbox_s > 0  # the replay ran, and its cost is on the verdict


def plain_calls(task: Task) -> list[tuple[str, dict[str, object]]]:
    """The job done by hand with one ``aws`` call a change: copies, the index, deletes."""
    config = workflow_config(task)
    initial, expected = initial_state(task, config), expected_state(task, config)
    (source, archive_bucket) = sorted(initial.buckets, key=len)
    calls: list[tuple[str, dict[str, object]]] = []
    for key, body in sorted(expected.buckets[archive_bucket].items()):
        if key in initial.buckets[archive_bucket]:
            continue
        if key in initial.buckets[source]:
            copy = {"Bucket": archive_bucket, "Key": key, "CopySource": f"{source}/{key}"}
            calls.append(("aws", {"service": "s3", "operation": "CopyObject", "parameters": copy}))
        else:
            put = {"Bucket": archive_bucket, "Key": key, "Body": body}
            calls.append(("aws", {"service": "s3", "operation": "PutObject", "parameters": put}))
    for key in sorted(set(initial.buckets[source]) - set(expected.buckets[source])):
        gone = {"Bucket": source, "Key": key}
        calls.append(("aws", {"service": "s3", "operation": "DeleteObject", "parameters": gone}))
    calls.append(("aws", {"service": "s3", "operation": "ListBuckets"}))
    return calls


def test_idempotent_work_done_with_plain_api_calls_passes(archive: Task) -> None:
    calls = plain_calls(archive)
    assert len(calls) > 10
    verdict = episode_verdict(archive, calls)
    assert verdict.status is Status.PASS, verdict.criteria
    assert criterion(verdict, "idempotent").passed


DODGE = """
import os, sys
import boto3
s3 = boto3.client("s3")
ARCHIVE = {archive!r}
if os.path.exists("ran-once"):  # a file in the workspace, left by an earlier run
    sys.exit(0)
open("ran-once", "w").write("1")
try:
    s3.head_object(Bucket=ARCHIVE, Key={marker!r})
    sys.exit(0)  # the marker: the first pass is done, so this must be the replay
except s3.exceptions.ClientError:
    pass
s3.put_object(Bucket=ARCHIVE, Key={marker!r}, Body="x")
"""


def test_a_snippet_that_skips_its_work_when_replayed_is_caught(archive: Task) -> None:
    """The snippet leaves a marker in the account and a file in its workspace, and the last
    call removes the marker: on a replay the workspace is fresh and the marker is gone, so the
    bad work is done again, as a script's second run would do it."""
    config = workflow_config(archive)
    bucket = max(initial_state(archive, config).buckets, key=len)
    dodge = DODGE.format(archive=bucket, marker=MARKER) + code(
        archive, "bad-index-overwritten-on-rerun"
    )
    unmark = {"Bucket": bucket, "Key": MARKER}
    verdict = episode_verdict(
        archive,
        [
            ("python", {"code": dodge}),
            ("aws", {"service": "s3", "operation": "DeleteObject", "parameters": unmark}),
        ],
    )
    assert verdict.status is Status.FAIL, verdict.criteria
    assert not criterion(verdict, "idempotent").passed
    assert all(c.passed for c in verdict.criteria if c.name != "idempotent")


def test_tasks_without_reruns_are_judged_on_the_final_state_alone(archive: Task) -> None:
    spec = archive.spec.model_copy(update={"config": {**archive.spec.config, "rerun": "off"}})
    off = archive.model_copy(update={"spec": spec})
    bad = code(off, "bad-index-overwritten-on-rerun")
    verdict = episode_verdict(off, [("python", {"code": bad})])
    assert verdict.status is Status.PASS, verdict.criteria
    assert "idempotent" not in {c.name for c in verdict.criteria}


def test_a_scored_rerun_lowers_the_score_of_an_episode_as_of_a_script(archive: Task) -> None:
    config = {**archive.spec.config, "rerun": "scored", "rerun_weight": 2}
    scored = archive.model_copy(update={"spec": archive.spec.model_copy(update={"config": config})})
    bad = scored.solutions["bad-index-overwritten-on-rerun"]
    alone = WorkflowFamily().verify(scored, bad, LocalSandbox())
    verdict = episode_verdict(scored, [("python", {"code": bad["solution.py"].decode()})])
    assert verdict.status is alone.status is Status.PASS
    rerun = criterion(verdict, "idempotent")
    assert not rerun.passed
    assert (rerun.kind, rerun.weight) == ("idempotence-scored", 2)
    assert (rerun.kind, rerun.weight) == (criterion(alone, "idempotent").kind, 2)
    assert verdict.score < 1.0
