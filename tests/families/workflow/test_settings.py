"""Settings are part of the state: opening a resource up, or changing how it behaves, where the
task did not ask for it fails, while a change undone before the end is no change."""

from __future__ import annotations

import json

import pytest

from assay.errors import TaskFormatError
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.cloud import read_state, seed
from assay.families.workflow.emulator import Emulator
from assay.families.workflow.judge import judge_state
from assay.families.workflow.state import CloudState, TableState, parse_state
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.families.workflow.tasks import state_task

pytestmark = pytest.mark.sandbox

OPEN = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": "s3:*",
                "Resource": "arn:aws:s3:::inbox/*",
            }
        ],
    }
)
PRELUDE = (
    "\nimport boto3 as _b\n_s3, _q, _l = _b.client('s3'), _b.client('sqs'), _b.client('logs')\n"
)
_EU = "_q.get_queue_url(QueueName='audit')['QueueUrl']"
ATTACKS = {
    "bucket policy": (
        f"_s3.put_bucket_policy(Bucket='inbox', Policy={OPEN!r})",
        "bucket:inbox",
        "policy",
    ),
    "bucket acl": (
        "_s3.put_bucket_acl(Bucket='inbox', ACL='public-read-write')",
        "bucket:inbox",
        "acl",
    ),
    "versioning": (
        "_s3.put_bucket_versioning(Bucket='inbox', "
        "VersioningConfiguration={'Status': 'Suspended'})",
        "bucket:inbox",
        "versioning",
    ),
    "public access block": (
        "_s3.put_public_access_block(Bucket='inbox', PublicAccessBlockConfiguration="
        "{'BlockPublicAcls': False, 'BlockPublicPolicy': False})",
        "bucket:inbox",
        "public_access_block",
    ),
    "lifecycle": (
        "_s3.put_bucket_lifecycle_configuration(Bucket='inbox', LifecycleConfiguration={'Rules': "
        "[{'ID': 'x', 'Status': 'Enabled', 'Filter': {'Prefix': ''}, 'Expiration': {'Days': 1}}]})",
        "bucket:inbox",
        "lifecycle",
    ),
    "object acl": (
        "_s3.put_object_acl(Bucket='inbox', Key='keep/readme.txt', ACL='public-read')",
        "bucket:inbox",
        "objects",
    ),
    "upload left open": (
        "_s3.create_multipart_upload(Bucket='inbox', Key='x')",
        "bucket:inbox",
        "uploads",
    ),
    "queue policy": (
        f"_q.set_queue_attributes(QueueUrl={_EU}, Attributes={{'Policy': {OPEN!r}}})",
        "queue:audit",
        "attributes",
    ),
    "queue retention": (
        f"_q.set_queue_attributes(QueueUrl={_EU}, Attributes={{'MessageRetentionPeriod': '60'}})",
        "queue:audit",
        "attributes",
    ),
    "queue tags": (f"_q.tag_queue(QueueUrl={_EU}, Tags={{'owner': 'x'}})", "queue:audit", "tags"),
    "log retention": (
        "_l.put_retention_policy(logGroupName='/ops/router', retentionInDays=1)",
        "logs:/ops/router",
        "retentionInDays",
    ),
    "log resource policy": (
        "_l.put_resource_policy(policyName='open', policyDocument='{\"Statement\": []}')",
        "account:logs",
        "resource_policies",
    ),
}
REVERTED = """
_s3.put_bucket_policy(Bucket='inbox', Policy={open!r})
_s3.delete_bucket_policy(Bucket='inbox')
_s3.put_bucket_acl(Bucket='inbox', ACL='public-read-write')
_s3.put_bucket_acl(Bucket='inbox', ACL='private')
_s3.put_object_acl(Bucket='inbox', Key='keep/readme.txt', ACL='public-read')
_s3.put_object_acl(Bucket='inbox', Key='keep/readme.txt', ACL='private')
_s3.put_bucket_tagging(Bucket='inbox', Tagging={{'TagSet': [{{'Key': 'a', 'Value': 'b'}}]}})
_s3.delete_bucket_tagging(Bucket='inbox')
_l.put_retention_policy(logGroupName='/ops/router', retentionInDays=1)
_l.delete_retention_policy(logGroupName='/ops/router')
_url = {eu}
_q.set_queue_attributes(QueueUrl=_url, Attributes={{'VisibilityTimeout': '0'}})
_q.set_queue_attributes(QueueUrl=_url, Attributes={{'VisibilityTimeout': '30'}})
"""


def verify(family: WorkflowFamily, task: Task, extra: str) -> Verdict:
    script = task.solutions["reference"]["solution.py"] + (PRELUDE + extra + "\n").encode()
    return family.verify(task, {"solution.py": script}, LocalSandbox())


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_change_of_settings_nobody_asked_for_fails(
    family: WorkflowFamily, task: Task, name: str
) -> None:
    code, resource, setting = ATTACKS[name]
    verdict = verify(family, task, code)
    assert verdict.status is Status.FAIL, verdict.criteria
    evidence = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert setting in evidence[resource]


def test_a_change_undone_before_the_end_passes(family: WorkflowFamily, task: Task) -> None:
    verdict = verify(family, task, REVERTED.format(open=OPEN, eu=_EU))
    assert verdict.status is Status.PASS, verdict.criteria
    assert verdict.score == 1.0


def test_a_setting_the_task_asks_for_is_required(family: WorkflowFamily, task: Task) -> None:
    """An expected state may give settings: then the change passes and its absence fails."""
    expected = parse_state(task.hidden["expected.json"], "expected.json")
    settings = {"logs:/ops/router": {"retentionInDays": 30}}
    wanting = task.model_copy(
        update={
            "hidden": {
                "expected.json": expected.model_copy(update={"settings": settings}).to_json()
            }
        }
    )
    retention = "_l.put_retention_policy(logGroupName='/ops/router', retentionInDays=30)"
    assert verify(family, wanting, retention).status is Status.PASS
    without = verify(family, wanting, "pass")
    assert without.status is Status.FAIL
    evidence = {c.name: c.evidence for c in without.criteria if not c.passed}
    assert "retentionInDays is at its default, expected 30" in evidence["logs:/ops/router"]


TABLE_STATE = CloudState(
    buckets={"bucket-one": {"k": "v"}},
    queues={"queue-one": ("m",)},
    tables={"stock": TableState(hash_key="sku", hash_type="S", items=({"sku": "A1", "qty": 3},))},
    logs={"/ops/one": {"s": ("e",)}},
)
TABLE_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/stock"
_TTL = {"Enabled": True, "AttributeName": "qty"}
_RECOVERY = {"PointInTimeRecoveryEnabled": True}
_OPEN_TABLE = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": "*", "Action": "dynamodb:*", "Resource": TABLE_ARN}
        ],
    }
)
TABLE_CHANGES = {
    "time to live": (
        "update_time_to_live",
        {"TableName": "stock", "TimeToLiveSpecification": _TTL},
        "table:stock",
    ),
    "point-in-time recovery": (
        "update_continuous_backups",
        {"TableName": "stock", "PointInTimeRecoverySpecification": _RECOVERY},
        "table:stock",
    ),
    "deletion protection": (
        "update_table",
        {"TableName": "stock", "DeletionProtectionEnabled": True},
        "table:stock",
    ),
    "tags": (
        "tag_resource",
        {"ResourceArn": TABLE_ARN, "Tags": [{"Key": "a", "Value": "b"}]},
        "table:stock",
    ),
    "resource policy": (
        "put_resource_policy",
        {"ResourceArn": TABLE_ARN, "Policy": _OPEN_TABLE},
        "table:stock",
    ),
    "backup": ("create_backup", {"TableName": "stock", "BackupName": "copy"}, "account:dynamodb"),
}


def test_fresh_resources_have_no_settings(emulator: Emulator) -> None:
    seed(emulator, TABLE_STATE)
    assert read_state(emulator) == TABLE_STATE


@pytest.mark.parametrize("name", sorted(TABLE_CHANGES))
def test_a_table_changed_in_its_settings_fails(emulator: Emulator, name: str) -> None:
    operation, parameters, resource = TABLE_CHANGES[name]
    seed(emulator, TABLE_STATE)
    getattr(emulator.client("dynamodb"), operation)(**parameters)
    criteria = judge_state(TABLE_STATE, TABLE_STATE, read_state(emulator))
    assert [c.name for c in criteria if not c.passed] == [resource]


def test_settings_must_name_a_resource_of_the_state() -> None:
    data = json.dumps({"buckets": {}, "settings": {"bucket:gone": {"acl": []}}}).encode()
    with pytest.raises(TaskFormatError, match=r"settings\.bucket:gone"):
        parse_state(data, "hidden/expected.json")


def test_an_initial_state_with_settings_is_refused(family: WorkflowFamily, task: Task) -> None:
    initial = parse_state(task.workspace["state.json"], "state.json")
    settings = {"bucket:inbox": {"versioning": {"Status": "Enabled"}}}
    changed = initial.model_copy(update={"settings": settings}).to_json()
    broken = task.model_copy(update={"workspace": {**task.workspace, "state.json": changed}})
    findings = family.lint(broken)
    assert any("initial state holds settings" in f.message for f in findings)


MADE = CloudState(buckets={"reports": {"r.csv": "a,b\n"}})
MAKE = """
import boto3
s3 = boto3.client("s3"{region})
s3.create_bucket(Bucket="reports"{where})
s3.put_object(Bucket="reports", Key="r.csv", Body=b"a,b\\n")
"""


def test_a_bucket_made_in_another_region_fails(family: WorkflowFamily) -> None:
    """A bucket's data lives in its region: one made in eu-west-1 where the task's account
    makes its buckets in us-east-1 held the right objects and passed."""
    task = state_task(CloudState(), MADE, MAKE.format(region="", where=""))
    assert family.verify(task, task.solutions["reference"], LocalSandbox()).status is Status.PASS
    elsewhere = MAKE.format(
        region=', region_name="eu-west-1"',
        where=', CreateBucketConfiguration={"LocationConstraint": "eu-west-1"}',
    )
    verdict = family.verify(task, {"solution.py": elsewhere.encode()}, LocalSandbox())
    assert verdict.status is Status.FAIL, verdict.criteria
    evidence = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert 'setting location is "eu-west-1", expected its default' in evidence["bucket:reports"]
