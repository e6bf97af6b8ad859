"""Sensitivity probes, and states too large to be an answer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from assay.families.base import SensitivityFamily
from assay.families.workflow import WorkflowFamily, cloud
from assay.families.workflow.cloud import StateTooLargeError, read_state
from assay.families.workflow.emulator import Emulator
from assay.families.workflow.state import CloudState, parse_state
from assay.sandbox import LocalSandbox
from assay.verdicts import Status
from tests.families.workflow.tasks import router_task, state_task

pytestmark = pytest.mark.sandbox
family = WorkflowFamily()


def test_the_reference_fails_every_probe() -> None:
    assert isinstance(family, SensitivityFamily)
    task = router_task()
    probes = family.probes(task)
    assert {probe.name for probe in probes} == {
        "queue:orders-eu",
        "bucket:inbox",
        "logs:/ops/router",
    }
    for probe in probes:
        verdict = family.verify(probe.task, task.solutions["reference"], LocalSandbox())
        assert verdict.status is Status.FAIL, probe.name
        assert probe.name in {c.name for c in verdict.criteria if not c.passed}


def test_a_state_too_large_to_read_is_a_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cloud, "MAX_OBJECTS", 40)
    script = b"""
import boto3
s3 = boto3.client("s3")
for n in range(60):
    s3.put_object(Bucket="inbox", Key=f"spam/{n}", Body=b"x")
"""
    verdict = family.verify(router_task(), {"solution.py": script}, LocalSandbox())
    assert verdict.status is Status.FAIL
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert "too large to be an answer: more than 40 objects" in failed["state"]


def test_too_many_buckets_fail_before_any_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of empty buckets once kept the host reading their settings for minutes: past
    the bound, the verdict fails from the listing alone, with one criterion, not one a bucket."""
    monkeypatch.setattr(cloud, "MAX_RESOURCES", 5)
    script = b"""
import boto3
s3 = boto3.client("s3")
for n in range(8):
    s3.create_bucket(Bucket=f"spam-{n}")
"""
    verdict = family.verify(router_task(), {"solution.py": script}, LocalSandbox())
    assert verdict.status is Status.FAIL
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert "too large to be an answer: more than 5 buckets" in failed["state"]
    assert not any(c.name.startswith("bucket:") for c in verdict.criteria)


def _queues(emulator: Emulator, n: int) -> None:
    emulator.client("sqs").create_queue(QueueName=f"q{n}")


def _tables(emulator: Emulator, n: int) -> None:
    emulator.client("dynamodb").create_table(
        TableName=f"t{n}",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def _log_groups(emulator: Emulator, n: int) -> None:
    emulator.client("logs").create_log_group(logGroupName=f"/g{n}")


def _log_streams(emulator: Emulator, n: int) -> None:
    """Two groups, so that the bound counts the streams of all of them."""
    logs = emulator.client("logs")
    group = f"/g{n % 2}"
    if n < 2:
        logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=f"s{n}")


MAKERS: dict[str, Callable[[Emulator, int], Any]] = {
    "queues": _queues,
    "tables": _tables,
    "log groups": _log_groups,
    "log streams": _log_streams,
}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_each_kind_of_resource_is_bounded(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(cloud, "MAX_RESOURCES", 3)
    for n in range(4):
        MAKERS[kind](emulator, n)
    with pytest.raises(StateTooLargeError, match=f"more than 3 {kind}"):
        read_state(emulator)


def test_reading_a_state_stops_at_its_deadline(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    emulator.client("s3").create_bucket(Bucket="inbox")
    read_state(emulator)
    monkeypatch.setattr(cloud, "READ_DEADLINE_S", 0.0)
    with pytest.raises(StateTooLargeError, match="took more than 0 s"):
        read_state(emulator)


def test_the_queue_probe_of_a_fifo_queue_keeps_its_groups_whole() -> None:
    """Dropping a message of a FIFO queue drops its group too: the probe's expected state
    loads (one group short, it was a task no verifier could read)."""
    expected = CloudState(queues={"out.fifo": ("a", "b")}, groups={"out.fifo": ("x", "y")})
    task = state_task(CloudState(), expected, "pass\n")
    [probe] = family.probes(task)
    changed = parse_state(probe.task.hidden["expected.json"], "expected.json")
    assert (changed.queues, changed.groups) == ({"out.fifo": ("b",)}, {"out.fifo": ("y",)})


def _objects(emulator: Emulator, megabytes: int) -> None:
    s3 = emulator.client("s3")
    s3.create_bucket(Bucket="big")
    for n in range(megabytes):
        s3.put_object(Bucket="big", Key=f"k{n}", Body=b"x" * cloud.MAX_BODY_BYTES)


def _events(emulator: Emulator, megabytes: int) -> None:
    logs = emulator.client("logs")
    logs.create_log_group(logGroupName="/big")
    logs.create_log_stream(logGroupName="/big", logStreamName="s")
    now = int(time.time() * 1000)
    for n in range(megabytes):
        event = {"timestamp": now + n, "message": "x" * (2**20 - 100)}
        logs.put_log_events(logGroupName="/big", logStreamName="s", logEvents=[event])


@pytest.mark.parametrize("fill", [_objects, _events], ids=["objects", "log events"])
def test_reading_stops_past_the_bytes_a_state_could_hold(
    emulator: Emulator, fill: Callable[[Emulator, int], None]
) -> None:
    """Each within its own limits, 70 MB of contents were read whole into the host (400 MB of
    log events took 1.6 GB); past 64 MiB no state is an answer."""
    fill(emulator, 70)
    with pytest.raises(StateTooLargeError, match="contents are more than 67108864 bytes"):
        read_state(emulator)


def test_a_log_stream_is_read_whole_page_by_page(emulator: Emulator) -> None:
    logs = emulator.client("logs")
    logs.create_log_group(logGroupName="/ops")
    logs.create_log_stream(logGroupName="/ops", logStreamName="s")
    now = int(time.time() * 1000)
    events = [{"timestamp": now + n, "message": f"event {n}"} for n in range(3 * cloud.EVENTS_PAGE)]
    logs.put_log_events(logGroupName="/ops", logStreamName="s", logEvents=events)
    read = read_state(emulator).logs["/ops"]["s"]
    assert list(read) == [event["message"] for event in events]
