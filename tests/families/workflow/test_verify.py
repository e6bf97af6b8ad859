"""Verification by final state: the reference passes, each mistake fails with its evidence."""

from __future__ import annotations

import pytest

from assay.families.workflow import WorkflowFamily
from assay.families.workflow.cloud import read_state, seed
from assay.families.workflow.emulator import Emulator
from assay.families.workflow.judge import judge_state
from assay.families.workflow.state import CloudState, TableState
from assay.sandbox import LocalSandbox
from assay.tasks import Limits, Task
from assay.verdicts import Status, Verdict
from tests.families.workflow.tasks import router_task

pytestmark = pytest.mark.sandbox


def verify(family: WorkflowFamily, task: Task, script: bytes) -> Verdict:
    return family.verify(task, {"solution.py": script}, LocalSandbox())


def failed(verdict: Verdict) -> dict[str, str]:
    return {c.name: c.evidence for c in verdict.criteria if not c.passed}


def test_the_reference_passes(family: WorkflowFamily, task: Task) -> None:
    verdict = verify(family, task, task.solutions["reference"]["solution.py"])
    assert verdict.status is Status.PASS, verdict.criteria
    assert verdict.score == 1.0
    names = {c.name for c in verdict.criteria}
    assert {"script", "idempotent", "bucket:inbox", "queue:orders-eu", "queue:audit"} <= names
    kinds = {c.name: c.kind for c in verdict.criteria}
    assert kinds["queue:audit"] == "unchanged"
    assert kinds["queue:orders-eu"] == "state"


def test_what_the_initial_state_meets_earns_nothing(family: WorkflowFamily, task: Task) -> None:
    """Doing nothing keeps every resource that is to stay as it is, and runs cleanly: those
    scale the score of the changes asked for, and no change was made, so it scores 0."""
    verdict = verify(family, task, b"pass\n")
    assert verdict.status is Status.FAIL
    kept = {c.name for c in verdict.criteria if c.met_at_start}
    assert {"script", "queue:audit"} <= kept
    assert all(c.passed for c in verdict.criteria if c.met_at_start)
    assert verdict.score == 0


def test_junk_left_behind_takes_its_share_off(family: WorkflowFamily, task: Task) -> None:
    """The reference plus a queue of its own: every change made, one thing that was not there
    now is, so the score is the share of what was kept."""
    reference = task.solutions["reference"]["solution.py"]
    junk = b"\nimport boto3\nboto3.client('sqs').create_queue(QueueName='assay-junk')\n"
    verdict = verify(family, task, reference + junk)
    assert verdict.status is Status.FAIL
    [extra] = [c for c in verdict.criteria if c.name == "queue:assay-junk"]
    assert extra.met_at_start
    assert not extra.passed
    kept = [c for c in verdict.criteria if c.met_at_start and c.weight]
    assert verdict.score == pytest.approx(sum(c.passed for c in kept) / len(kept))


@pytest.mark.parametrize(
    ("bad", "criterion", "evidence"),
    [
        ("bad-wrong-routing", "queue:orders-us", "1 message(s) missing"),
        ("bad-no-move", "bucket:inbox", "3 unexpected object(s): in/a.json, in/b.json, in/c.json"),
        ("bad-deletes-all", "bucket:inbox", "keep/readme.txt"),
        ("bad-skips-log", "logs:/ops/router", "stream summary is missing"),
    ],
)
def test_each_known_bad_fails_on_its_mistake(
    family: WorkflowFamily, task: Task, bad: str, criterion: str, evidence: str
) -> None:
    verdict = verify(family, task, task.solutions[bad]["solution.py"])
    assert verdict.status is Status.FAIL
    assert evidence in failed(verdict)[criterion]


def test_duplicates_on_a_second_run_fail_idempotence(family: WorkflowFamily, task: Task) -> None:
    always_logs = task.solutions["reference"]["solution.py"].replace(b"if keys:", b"if True:")
    verdict = verify(family, task, always_logs)
    assert verdict.status is Status.FAIL
    assert set(failed(verdict)) == {"idempotent"}
    assert "1 unexpected event(s)" in failed(verdict)["idempotent"]


def test_padding_with_requests_does_not_skip_the_second_run(family: WorkflowFamily) -> None:
    """The api-calls criterion only scales the score: failing it must not spare a script that
    is wrong on its second run the idempotence check."""
    task = router_task()
    config = {**task.spec.config, "reference_calls": 12, "calls_weight": 0.25}
    scored = task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})
    always_logs = task.solutions["reference"]["solution.py"].replace(b"if keys:", b"if True:")
    padded = always_logs + b"\nfor _ in range(70):\n    s3.list_buckets()\n"
    verdict = verify(family, scored, padded)
    assert verdict.status is Status.FAIL
    assert set(failed(verdict)) == {"api-calls", "idempotent"}
    assert "1 unexpected event(s)" in failed(verdict)["idempotent"]


def test_no_second_run_when_the_first_is_wrong(family: WorkflowFamily, task: Task) -> None:
    verdict = verify(family, task, task.solutions["bad-no-move"]["solution.py"])
    assert "idempotent" not in {c.name for c in verdict.criteria}
    assert verdict.logs.count("exit 0") == 1


RECREATE = {
    "queue:audit": b"""
url = sqs.get_queue_url(QueueName="audit")["QueueUrl"]
bodies = [m["Body"] for m in sqs.receive_message(QueueUrl=url).get("Messages", [])]
sqs.delete_queue(QueueUrl=url)
url = sqs.create_queue(QueueName="audit")["QueueUrl"]
for body in bodies:
    sqs.send_message(QueueUrl=url, MessageBody=body)
""",
    "logs:/ops/router": b"""
events = logs.get_log_events(logGroupName="/ops/router", logStreamName="summary")["events"]
logs.delete_log_group(logGroupName="/ops/router")
logs.create_log_group(logGroupName="/ops/router")
logs.create_log_stream(logGroupName="/ops/router", logStreamName="summary")
logs.put_log_events(
    logGroupName="/ops/router",
    logStreamName="summary",
    logEvents=[{"timestamp": e["timestamp"], "message": e["message"]} for e in events],
)
""",
}


@pytest.mark.parametrize("resource", sorted(RECREATE))
def test_a_resource_deleted_and_created_again_was_not_kept(
    family: WorkflowFamily, task: Task, resource: str
) -> None:
    """What the script put back holds the same, but is not the resource the task kept (kept
    as it was, the audit queue, or changed in place, the log group)."""
    script = task.solutions["reference"]["solution.py"] + RECREATE[resource]
    verdict = verify(family, task, script)
    assert verdict.status is Status.FAIL
    assert set(failed(verdict)) == {resource}
    assert "deleted and created again" in failed(verdict)[resource]


@pytest.mark.parametrize("resource", sorted(RECREATE))
def test_an_episode_that_deleted_and_created_a_kept_resource_again_fails(
    task: Task, resource: str
) -> None:
    """The same work done in an episode passed: only a script's verification compared when
    each resource was made."""
    from tests.families.workflow.test_episode_rerun import episode_verdict  # noqa: PLC0415

    script = task.solutions["reference"]["solution.py"] + RECREATE[resource]
    verdict = episode_verdict(task, [("python", {"code": script.decode()})])
    assert verdict.status is Status.FAIL
    assert set(failed(verdict)) == {resource}
    assert "deleted and created again" in failed(verdict)[resource]
    kept = episode_verdict(
        task, [("python", {"code": task.solutions["reference"]["solution.py"].decode()})]
    )
    assert kept.status is Status.PASS, kept.criteria


FORGED_BIRTH = b"""
import contextlib
url = sqs.get_queue_url(QueueName="audit")["QueueUrl"]
born = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["CreatedTimestamp"])
bodies = [m["Body"] for m in sqs.receive_message(QueueUrl=url).get("Messages", [])]
sqs.delete_queue(QueueUrl=url)
with contextlib.suppress(Exception):
    sqs.create_queue(QueueName="audit", Attributes=born["Attributes"])
url = sqs.create_queue(QueueName="audit")["QueueUrl"]
with contextlib.suppress(Exception):
    sqs.set_queue_attributes(QueueUrl=url, Attributes=born["Attributes"])
for body in bodies:
    sqs.send_message(QueueUrl=url, MessageBody=body)
"""


def test_a_queue_created_again_cannot_take_back_its_birth(
    family: WorkflowFamily, task: Task
) -> None:
    """A queue's creation time is read-only, as in the real SQS: a script that deletes a kept
    queue and sets the old time on the new one is still caught."""
    script = task.solutions["reference"]["solution.py"] + FORGED_BIRTH
    verdict = verify(family, task, script)
    assert verdict.status is Status.FAIL
    assert set(failed(verdict)) == {"queue:audit"}
    assert "deleted and created again" in failed(verdict)["queue:audit"]


def test_doing_nothing_fails(family: WorkflowFamily, task: Task) -> None:
    verdict = family.verify(task, family.empty_solution(task), LocalSandbox())
    assert verdict.status is Status.FAIL
    assert "queue:orders-eu" in failed(verdict)


def test_an_extra_resource_fails(family: WorkflowFamily, task: Task) -> None:
    script = task.solutions["reference"]["solution.py"] + b"\nsqs.create_queue(QueueName='x')\n"
    verdict = verify(family, task, script)
    assert verdict.status is Status.FAIL
    assert "should not exist" in failed(verdict)["queue:x"]


BAD_SUBMISSIONS = {
    "syntax error": (b"def (:\n", "SyntaxError"),
    "no such operation": (b"import boto3\nboto3.client('s3').teleport_bucket()\n", "teleport"),
    "not utf-8": (b"print('\xff\xfe')\n", "SyntaxError"),
    "raises": (b"raise SystemExit('giving up')\n", "giving up"),
    "huge output": (b"import sys\nwhile True: sys.stdout.write('x' * 65536)\n", "stopped"),
    "hangs": (b"import time\ntime.sleep(3600)\n", "time limit"),
}


@pytest.mark.parametrize("name", sorted(BAD_SUBMISSIONS))
def test_bad_submissions_fail_with_evidence(family: WorkflowFamily, task: Task, name: str) -> None:
    script, evidence = BAD_SUBMISSIONS[name]
    quick = task.model_copy(
        update={"spec": task.spec.model_copy(update={"limits": Limits(timeout_s=5, cpu_s=5)})}
    )
    verdict = verify(family, quick, script)
    assert verdict.status is Status.FAIL
    assert evidence in failed(verdict)["script"] or evidence in verdict.logs


def test_a_missing_script_fails(family: WorkflowFamily, task: Task) -> None:
    verdict = family.verify(task, {"other.py": b""}, LocalSandbox())
    assert verdict.status is Status.FAIL
    assert "solution.py" in verdict.summary


def test_api_calls_are_counted_and_scored_against_the_reference(family: WorkflowFamily) -> None:
    task = router_task()
    reference = task.solutions["reference"]["solution.py"]
    verdict = verify(family, task, reference)
    calls = next(c for c in verdict.criteria if c.name == "api-calls")
    assert calls.weight == 0
    made = int(calls.evidence.split()[0])
    assert made >= 10  # a listing, 3 reads, 2 sends, 3 copies and deletes, the log
    config = {**task.spec.config, "reference_calls": made, "calls_weight": 0.5}
    scored = task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})
    chatty = reference + b"\nfor _ in range(3 * %d):\n    s3.list_buckets()\n" % made
    verdict = verify(family, scored, chatty)
    assert verdict.status is Status.PASS
    calls = next(c for c in verdict.criteria if c.name == "api-calls")
    assert not calls.passed
    assert calls.score is not None
    assert calls.score < 0.3
    assert verdict.score < 1.0


def test_one_request_alone_earns_nothing(family: WorkflowFamily) -> None:
    """A script that lists the buckets and stops makes few requests, which the api-calls
    criterion likes: it scales the work done, and no work was done, so it scores 0."""
    task = router_task()
    config = {**task.spec.config, "reference_calls": 12, "calls_weight": 0.25}
    scored = task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})
    verdict = verify(family, scored, b"import boto3\nboto3.client('s3').list_buckets()\n")
    calls = next(c for c in verdict.criteria if c.name == "api-calls")
    assert calls.passed
    assert calls.met_at_start
    assert verdict.score == 0


def test_the_script_runs_beside_the_workspace_files(family: WorkflowFamily, task: Task) -> None:
    reads = b"import json\nassert 'inbox' in json.load(open('state.json'))['buckets']\n"
    verdict = verify(family, task, reads)
    assert {c.name: c.passed for c in verdict.criteria}["script"] is True


BINARY_ITEM = b"""
import boto3
dynamodb = boto3.client("dynamodb")
dynamodb.create_table(
    TableName="junk",
    KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
    BillingMode="PAY_PER_REQUEST",
)
dynamodb.put_item(TableName="junk", Item={"id": {"S": "a"}, "status": {"B": b"received"}})
dynamodb.put_item(TableName="junk", Item={"id": {"S": "b"}, "tags": {"BS": [b"x", b"y"]}})
"""


def test_a_binary_attribute_is_judged_not_a_crash(family: WorkflowFamily, task: Task) -> None:
    """No state holds a binary value: one left in an item is a difference the evidence shows,
    never equal to the text of its bytes, and never an exception of the trusted side."""
    verdict = verify(family, task, BINARY_ITEM)
    assert verdict.status is Status.FAIL
    assert failed(verdict)["table:junk"] == "table junk should not exist"


def test_a_binary_value_never_equals_the_text_of_its_bytes(emulator: Emulator) -> None:
    item = {"id": "a", "status": "received"}
    state = CloudState(tables={"orders": TableState(hash_key="id", items=(item,))})
    seed(emulator, state)
    binary = {"id": {"S": "a"}, "status": {"B": b"received"}}
    emulator.client("dynamodb").put_item(TableName="orders", Item=binary)
    [criterion] = judge_state(state, state, read_state(emulator))
    assert not criterion.passed
    assert "<binary: 8 bytes" in criterion.evidence


@pytest.mark.parametrize("name", ["../escape.py", "/etc/escape.py", "nul\0name.py", ""])
def test_a_file_name_outside_the_workspace_is_a_fail_not_an_error(
    family: WorkflowFamily, task: Task, name: str
) -> None:
    """The candidate chose the name: the sandbox refusing it must not turn a fail into an
    error (which is retried and never scored)."""
    solution = {"solution.py": b"pass\n", name: b"x"}
    verdict = family.verify(task, solution, LocalSandbox())
    assert verdict.status is Status.FAIL, verdict.summary
    assert "cannot be files of the workspace" in failed(verdict)["script"]


def test_a_script_past_the_file_size_limit_is_a_fail_not_an_error(
    family: WorkflowFamily, task: Task
) -> None:
    """The sandbox refused it as an error of its own, retried and never scored: an oversized
    answer stopped a verl training step (its reward raises on an error verdict)."""
    script = b"pass\n#" + b"#" * (task.spec.limits.max_file_mb * 2**20)
    verdict = family.verify(task, {"solution.py": script}, LocalSandbox())
    assert verdict.status is Status.FAIL, verdict.summary
    assert "is larger than limits.max_file_mb" in failed(verdict)["script"]


def test_asking_for_s3_default_encryption_changes_nothing(
    family: WorkflowFamily, task: Task
) -> None:
    """S3 encrypts every bucket and object with SSE-S3 unless told otherwise: a script that
    asks for it explicitly does the same work as the reference and passes."""
    explicit = b"""
s3.put_bucket_encryption(
    Bucket=BUCKET,
    ServerSideEncryptionConfiguration={
        "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
    },
)
kept = s3.get_object(Bucket=BUCKET, Key="keep/readme.txt")["Body"].read()
s3.put_object(Bucket=BUCKET, Key="keep/readme.txt", Body=kept, ServerSideEncryption="AES256")
"""
    verdict = verify(family, task, task.solutions["reference"]["solution.py"] + explicit)
    assert verdict.status is Status.PASS, failed(verdict)
    kms = explicit.replace(b'ServerSideEncryption="AES256"', b'ServerSideEncryption="aws:kms"')
    verdict = verify(family, task, task.solutions["reference"]["solution.py"] + kms)
    assert verdict.status is Status.FAIL
    assert "encryption" in failed(verdict)["bucket:inbox"]
