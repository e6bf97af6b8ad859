"""A resource deleted and created again is not the one that was kept, even within the time the
APIs tell its creation to: a bucket's ``CreationDate`` is to the second."""

from __future__ import annotations

import json
import re
import time

import pytest

from assay.episodes import Episode
from assay.families.workflow.cloud import births, seed
from assay.families.workflow.emulator import Emulator, EmulatorFactory
from assay.families.workflow.state import CloudState, TableState
from assay.policies.messages import ToolCall
from assay.sandbox import LocalSandbox
from assay.verdicts import Status
from tests.families.workflow.tasks import state_task
from tests.families.workflow.test_verify import failed

pytestmark = pytest.mark.sandbox


def at_a_new_second() -> None:
    """Wait until a second has just begun, so that what follows at once shares it."""
    time.sleep(1.0 - time.time() % 1.0 + 0.01)


def test_a_bucket_made_again_within_its_second_has_another_birth(emulator: Emulator) -> None:
    s3 = emulator.client("s3")
    at_a_new_second()
    seed(emulator, CloudState(buckets={"kept-bucket": {"a.txt": "a"}}))
    born = births(emulator)
    s3.delete_object(Bucket="kept-bucket", Key="a.txt")
    s3.delete_bucket(Bucket="kept-bucket")
    s3.create_bucket(Bucket="kept-bucket")
    s3.put_object(Bucket="kept-bucket", Key="a.txt", Body=b"a")
    assert births(emulator)["bucket:kept-bucket"] != born["bucket:kept-bucket"]


def test_what_is_left_alone_keeps_its_birth(emulator: Emulator) -> None:
    seed(
        emulator,
        CloudState(
            buckets={"kept-bucket": {"a.txt": "a"}},
            queues={"jobs": ("a",)},
            tables={"stock": TableState(hash_key="sku", items=({"sku": "A1"},))},
            logs={"/ops/jobs": {"run": ("started",)}},
        ),
    )
    born = births(emulator)
    assert set(born) == {"bucket:kept-bucket", "queue:jobs", "table:stock", "logs:/ops/jobs"}
    emulator.client("s3").put_object(Bucket="kept-bucket", Key="b.txt", Body=b"b")
    emulator.client("dynamodb").put_item(TableName="stock", Item={"sku": {"S": "B2"}})
    assert births(emulator) == born
    emulator.client("logs").delete_log_group(logGroupName="/ops/jobs")
    emulator.client("logs").create_log_group(logGroupName="/ops/jobs")
    assert births(emulator)["logs:/ops/jobs"] != born["logs:/ops/jobs"]


def aws(operation: str, **parameters: object) -> ToolCall:
    arguments = {"service": "s3", "operation": operation, "parameters": parameters}
    return ToolCall(id="1", name="aws", arguments=json.dumps(arguments))


KEPT = CloudState(buckets={"inbox": {"a.txt": "a"}})
ADDED = CloudState(buckets={"inbox": {"a.txt": "a", "b.txt": "b"}})


def test_an_episode_that_makes_its_bucket_again_at_once_fails(factory: EmulatorFactory) -> None:
    """The episode's first calls (the first seeds its emulator) empty the bucket the task
    changes in place, delete it and make it again, within the second it was made in; then it
    puts its object back and does the job. The bucket's creation date, to the second, was the
    same: it passed. (The dates the episode saw show that it was made again within its
    second; on a machine too slow for that, the episode is tried again.)"""
    task = state_task(KEPT, ADDED, "")
    factory.start().close()  # the warm parent is up, so the episode seeds at once
    calls = [
        aws("delete_objects", Bucket="inbox", Delete={"Objects": [{"Key": "a.txt"}]}),
        aws("delete_bucket", Bucket="inbox"),
        aws("create_bucket", Bucket="inbox"),
        aws("list_buckets"),
        aws("put_object", Bucket="inbox", Key="a.txt", Body="a"),
        aws("put_object", Bucket="inbox", Key="b.txt", Body="b"),
    ]
    for _ in range(3):
        episode = Episode(task, LocalSandbox())
        episode.reset()
        at_a_new_second()
        seen = [episode.step(aws("list_buckets")).output]
        seen += [episode.step(call).output for call in calls]
        episode.step(ToolCall(id="2", name="submit", arguments="{}"))
        verdict = episode.judge(None).verdict
        assert verdict.status is Status.FAIL
        assert set(failed(verdict)) == {"bucket:inbox"}
        assert "deleted and created again" in failed(verdict)["bucket:inbox"]
        made = [re.findall(r'"CreationDate": "([^"]+)"', seen[n]) for n in (0, 4)]
        assert len(made[0]) == 1, seen[0]
        if made[0] == made[1]:
            return
    pytest.fail(f"the bucket was never made again within its second: {made}")


def test_the_same_episode_keeping_its_bucket_passes(factory: EmulatorFactory) -> None:
    episode = Episode(state_task(KEPT, ADDED, ""), LocalSandbox())
    episode.reset()
    episode.step(aws("put_object", Bucket="inbox", Key="b.txt", Body="b"))
    episode.step(ToolCall(id="2", name="submit", arguments="{}"))
    verdict = episode.judge(None).verdict
    assert verdict.status is Status.PASS, failed(verdict)
