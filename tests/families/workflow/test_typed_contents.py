"""What a value is matters, not only what it spells: a DynamoDB set is no list, and a message
is judged with its attributes where the expected state names them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.errors import TaskFormatError
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.cloud import read_state, seed
from assay.families.workflow.emulator import Emulator
from assay.families.workflow.judge import idempotence, judge_state
from assay.families.workflow.state import CloudState, QueueMessage, TableState, parse_state
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.families.workflow.tasks import state_task
from tests.families.workflow.test_verify import failed

pytestmark = pytest.mark.sandbox

STOCK = CloudState(tables={"stock": TableState(hash_key="sku", items=({"sku": "A1", "qty": 3},))})
TAGGED = CloudState(
    tables={
        "stock": TableState(
            hash_key="sku",
            items=({"sku": "A1", "qty": 3, "tags": ["fragile", "heavy"], "bins": [4, 7]},),
        )
    }
)
TAG = """
import boto3
boto3.client("dynamodb").update_item(
    TableName="stock",
    Key={{"sku": {{"S": "A1"}}}},
    UpdateExpression="SET tags = :tags, bins = :bins",
    ExpressionAttributeValues={{":tags": {tags}, ":bins": {bins}}},
)
"""
TAG_LISTS = TAG.format(
    tags='{"L": [{"S": "fragile"}, {"S": "heavy"}]}', bins='{"L": [{"N": "4"}, {"N": "7"}]}'
)


def verify(task: Task, script: str) -> Verdict:
    return WorkflowFamily().verify(task, {"solution.py": script.encode()}, LocalSandbox())


@pytest.fixture(scope="module")
def tagging() -> Task:
    return state_task(STOCK, TAGGED, TAG_LISTS)


def test_the_reference_writing_lists_passes(tagging: Task) -> None:
    verdict = verify(tagging, TAG_LISTS)
    assert verdict.status is Status.PASS, failed(verdict)


@pytest.mark.parametrize(
    ("tags", "bins"),
    [
        ('{"SS": ["heavy", "fragile"]}', '{"L": [{"N": "4"}, {"N": "7"}]}'),
        ('{"L": [{"S": "fragile"}, {"S": "heavy"}]}', '{"NS": ["7", "4"]}'),
    ],
    ids=["string-set", "number-set"],
)
def test_a_set_where_a_list_is_expected_fails(tagging: Task, tags: str, bins: str) -> None:
    """A set of the same members read back as the sorted list of them: it passed."""
    verdict = verify(tagging, TAG.format(tags=tags, bins=bins))
    assert verdict.status is Status.FAIL
    assert "set: " in failed(verdict)["table:stock"]


def test_a_set_is_the_same_whatever_order_it_was_written_in(emulator: Emulator) -> None:
    seed(emulator, STOCK)
    dynamodb = emulator.client("dynamodb")
    states = []
    for tags in (["b", "a", "c"], ["c", "a", "b"]):
        item = {"sku": {"S": "A1"}, "qty": {"N": "3"}, "tags": {"SS": tags}}
        dynamodb.put_item(TableName="stock", Item=item)
        states.append(read_state(emulator))
    assert idempotence(states[0], states[1], required=True).passed
    assert states[0].tables["stock"].items[0]["tags"] == '<string set: ["a", "b", "c"]>'


JOBS = CloudState(queues={"jobs": (), "audit": ("older",)})
ATTRIBUTED = CloudState(
    queues={
        "jobs": (
            QueueMessage(body='{"id": 1}', attributes={"priority": "high", "tries": 2}),
            "plain",
        ),
        "audit": ("older",),
    }
)
SEND = """
import boto3
sqs = boto3.client("sqs")
url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
sqs.send_message(QueueUrl=url, MessageBody='{{"id": 1}}', MessageAttributes={attributes})
sqs.send_message(QueueUrl=url, MessageBody="plain"{plain})
"""
PRIORITY = {"DataType": "String", "StringValue": "high"}
TRIES = {"DataType": "Number", "StringValue": "2"}


def send(attributes: dict[str, Any], plain: dict[str, Any] | None = None) -> str:
    extra = f", MessageAttributes={json.dumps(plain)}" if plain else ""
    return SEND.format(attributes=json.dumps(attributes), plain=extra)


@pytest.fixture(scope="module")
def sending() -> Task:
    return state_task(JOBS, ATTRIBUTED, send({"priority": PRIORITY, "tries": TRIES}))


def test_the_reference_sending_the_attributes_passes(sending: Task) -> None:
    verdict = verify(sending, sending.solutions["reference"]["solution.py"].decode())
    assert verdict.status is Status.PASS, failed(verdict)


def test_the_right_body_without_its_attributes_fails(sending: Task) -> None:
    """Only the bodies were read and judged: it passed."""
    verdict = verify(sending, send({}))
    assert verdict.status is Status.FAIL
    assert set(failed(verdict)) == {"queue:jobs"}
    evidence = failed(verdict)["queue:jobs"]
    assert '"{\\"id\\": 1}" with attributes {"priority": "high", "tries": 2}' in evidence


WRONG_ATTRIBUTES = {
    "wrong value": ({"priority": {**PRIORITY, "StringValue": "low"}, "tries": TRIES}, None),
    "a number sent as text": (
        {"priority": PRIORITY, "tries": {**TRIES, "DataType": "String"}},
        None,
    ),
    "a custom type": ({"priority": {**PRIORITY, "DataType": "String.level"}, "tries": TRIES}, None),
    "one too many": ({"priority": PRIORITY, "tries": TRIES, "x": PRIORITY}, None),
    "one missing": ({"priority": PRIORITY}, None),
    "on a message that has none": ({"priority": PRIORITY, "tries": TRIES}, {"x": PRIORITY}),
}


@pytest.mark.parametrize("name", sorted(WRONG_ATTRIBUTES))
def test_wrong_attributes_fail(emulator: Emulator, name: str) -> None:
    seed(emulator, JOBS)
    attributes, plain = WRONG_ATTRIBUTES[name]
    sqs = emulator.client("sqs")
    url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody='{"id": 1}', MessageAttributes=attributes)
    sqs.send_message(
        QueueUrl=url, MessageBody="plain", **({"MessageAttributes": plain} if plain else {})
    )
    judged = {c.name: c for c in judge_state(JOBS, ATTRIBUTED, read_state(emulator))}
    assert not judged["queue:jobs"].passed
    assert judged["queue:audit"].passed


def test_a_number_attribute_compares_as_a_number(emulator: Emulator) -> None:
    seed(emulator, JOBS)
    sqs = emulator.client("sqs")
    url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
    tries = {**TRIES, "StringValue": "2.0"}
    sqs.send_message(
        QueueUrl=url,
        MessageBody='{"id":1}',
        MessageAttributes={"priority": PRIORITY, "tries": tries},
    )
    sqs.send_message(QueueUrl=url, MessageBody="plain")
    judged = {c.name: c for c in judge_state(JOBS, ATTRIBUTED, read_state(emulator))}
    assert judged["queue:jobs"].passed, judged["queue:jobs"].evidence


def test_a_kept_message_sent_again_without_its_attributes_was_not_kept(emulator: Emulator) -> None:
    kept = CloudState(queues={"audit": (QueueMessage(body="older", attributes={"by": "ops"}),)})
    seed(emulator, kept)
    assert all(c.passed for c in judge_state(kept, kept, read_state(emulator)))
    sqs = emulator.client("sqs")
    url = sqs.get_queue_url(QueueName="audit")["QueueUrl"]
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    sqs.send_message(QueueUrl=url, MessageBody=message["Body"])
    [criterion] = judge_state(kept, kept, read_state(emulator))
    assert not criterion.passed
    assert criterion.kind == "unchanged"


def test_attributes_no_expected_message_names_are_not_judged() -> None:
    """A queue the expected state gives as bodies alone is judged by its bodies, as before."""
    sent = CloudState(queues={"jobs": (QueueMessage(body="a", attributes={"x": "y"}),)})
    assert all(
        c.passed for c in judge_state(CloudState(), CloudState(queues={"jobs": ("a",)}), sent)
    )


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"body": "a", "attributes": {"x": True}}, "queues.jobs.0.attributes.x"),
        ({"attributes": {"x": "y"}}, "queues.jobs.0.body"),
        ({"body": "a", "id": 1}, "queues.jobs.0.id"),
    ],
)
def test_a_malformed_message_is_named_by_its_field(message: object, field: str) -> None:
    data = json.dumps({"queues": {"jobs": [message]}}).encode()
    with pytest.raises(TaskFormatError, match=field.replace(".", r"\.")):
        parse_state(data, "t/hidden/expected.json")
