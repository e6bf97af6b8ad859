"""A queue is read whole and left as it was: reading it by receiving its messages saw at most
ten of a FIFO queue's group (the rest stay blocked while those are in flight), and moved a
message received often enough to the dead-letter queue, which may have been read already.

A queue is FIFO exactly when its name ends in ``.fifo``, as in SQS: one of the initial state
was seeded as a standard queue, where a script that sends without a message group passed."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError  # type: ignore[import-untyped]
from pydantic import ValidationError

from assay.errors import TaskFormatError
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.cloud import read_state, seed
from assay.families.workflow.emulator import Emulator, EmulatorFactory
from assay.families.workflow.judge import judge_state
from assay.families.workflow.state import CloudState, QueueMessage, parse_state
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.families.workflow.tasks import state_task
from tests.families.workflow.test_verify import failed

pytestmark = pytest.mark.sandbox

SEND = """
import boto3
sqs = boto3.client("sqs")
url = sqs.create_queue(QueueName="out.fifo", Attributes={{"FifoQueue": "true"}})["QueueUrl"]
for n, body in enumerate({bodies!r}):
    sqs.send_message(
        QueueUrl=url, MessageBody=body, MessageGroupId="orders", MessageDeduplicationId=str(n)
    )
"""
RIGHT = [f"order {n}" for n in range(12)]


def test_every_message_of_a_fifo_group_is_read(emulator: Emulator) -> None:
    _filled(emulator, RIGHT)
    sqs = emulator.client("sqs")
    url = sqs.get_queue_url(QueueName="out.fifo")["QueueUrl"]
    sqs.send_message(
        QueueUrl=url,
        MessageBody="tagged",
        MessageGroupId="other",
        MessageDeduplicationId="t",
        MessageAttributes={"tries": {"DataType": "Number", "StringValue": "2"}},
    )
    first = read_state(emulator)
    assert first.queues["out.fifo"] == (
        *RIGHT,
        QueueMessage(body="tagged", attributes={"tries": 2}),
    )
    assert first.groups == {"out.fifo": ("orders",) * 12 + ("other",)}
    assert read_state(emulator) == first  # reading received nothing: nothing is left in flight


def test_reading_a_queue_moves_nothing_to_its_dead_letter_queue(emulator: Emulator) -> None:
    sqs = emulator.client("sqs")
    dead = sqs.create_queue(QueueName="dead")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])["Attributes"]
    redrive = {"deadLetterTargetArn": arn["QueueArn"], "maxReceiveCount": "1"}
    url = sqs.create_queue(QueueName="work", Attributes={"RedrivePolicy": json.dumps(redrive)})
    sqs.send_message(QueueUrl=url["QueueUrl"], MessageBody="job")
    for _ in range(3):  # each read received the message once: the second moved it away
        state = read_state(emulator)
        assert state.queues == {"dead": (), "work": ("job",)}


def test_in_flight_and_delayed_messages_are_placeholders(emulator: Emulator) -> None:
    sqs = emulator.client("sqs")
    url = sqs.create_queue(QueueName="work")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="taken")
    sqs.receive_message(QueueUrl=url, VisibilityTimeout=600)
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=600)
    sqs.send_message(QueueUrl=url, MessageBody="ready")
    assert read_state(emulator).queues["work"] == (
        "<a message in flight: received and not deleted (1)>",
        "<a message sent with a delay: not yet visible (1)>",
        "ready",
    )


def _verify(task: Task, bodies: list[str]) -> Verdict:
    script = SEND.format(bodies=bodies)
    return WorkflowFamily().verify(task, {"solution.py": script.encode()}, LocalSandbox())


def _filled(emulator: Emulator, bodies: list[str]) -> None:
    sqs = emulator.client("sqs")
    url = sqs.create_queue(QueueName="out.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for n, body in enumerate(bodies):
        sqs.send_message(
            QueueUrl=url, MessageBody=body, MessageGroupId="orders", MessageDeduplicationId=str(n)
        )


@pytest.fixture(scope="module")
def sending(factory: EmulatorFactory) -> Task:
    """A task whose reference leaves twelve messages of one group on a FIFO queue."""
    with factory.start() as emulator:
        _filled(emulator, RIGHT)
        expected = read_state(emulator)
    return state_task(CloudState(), expected, SEND.format(bodies=RIGHT))


def test_the_reference_filling_a_fifo_queue_passes(sending: Task) -> None:
    verdict = _verify(sending, RIGHT)
    assert verdict.status is Status.PASS, failed(verdict)


@pytest.mark.parametrize(
    "bodies",
    [RIGHT[:10], [*RIGHT[:10], "junk", "junk"], [*RIGHT, "one more"], RIGHT[::-1]],
    ids=["the first ten only", "ten right, then junk", "one too many", "another order"],
)
def test_messages_past_the_tenth_of_a_fifo_group_are_judged(
    sending: Task, bodies: list[str]
) -> None:
    verdict = _verify(sending, bodies)
    assert verdict.status is Status.FAIL, verdict.criteria
    assert "queue:out.fifo" in failed(verdict)


NO_GROUP = """
import boto3
sqs = boto3.client("sqs")
sqs.send_message(QueueUrl=sqs.get_queue_url(QueueName="in.fifo")["QueueUrl"], MessageBody="hi")
"""
IN_ORDER = NO_GROUP.replace(
    'MessageBody="hi"', 'MessageBody="hi", MessageGroupId="g", MessageDeduplicationId="1"'
)


def test_a_fifo_queue_of_the_initial_state_is_seeded_fifo(emulator: Emulator) -> None:
    seed(emulator, CloudState(queues={"in.fifo": ("a", "a", "b"), "plain": ("c",)}))
    state = read_state(emulator)
    assert state.queues == {"in.fifo": ("a", "a", "b"), "plain": ("c",)}
    assert state.settings == {}  # a FIFO queue's own defaults are no setting
    sqs = emulator.client("sqs")
    url = sqs.get_queue_url(QueueName="in.fifo")["QueueUrl"]
    with pytest.raises(ClientError, match="MessageGroupId"):
        sqs.send_message(QueueUrl=url, MessageBody="no group")


def test_a_queue_is_fifo_exactly_when_its_name_says(emulator: Emulator) -> None:
    sqs = emulator.client("sqs")
    with pytest.raises(ClientError, match="InvalidParameterValue"):
        sqs.create_queue(QueueName="looks.fifo")  # a standard queue would read as FIFO
    url = sqs.create_queue(QueueName="jobs.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for value in ("false", "true"):
        with pytest.raises(ClientError, match="InvalidAttributeName"):
            sqs.set_queue_attributes(QueueUrl=url, Attributes={"FifoQueue": value})
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"ContentBasedDeduplication": "true"})
    settings = read_state(emulator).settings
    assert settings == {"queue:jobs.fifo": {"attributes": {"ContentBasedDeduplication": "true"}}}


def test_sending_to_a_seeded_fifo_queue_without_a_group_fails() -> None:
    task = state_task(
        CloudState(queues={"in.fifo": ()}), CloudState(queues={"in.fifo": ("hi",)}), IN_ORDER
    )
    family = WorkflowFamily()
    right = family.verify(task, {"solution.py": IN_ORDER.encode()}, LocalSandbox())
    assert right.status is Status.PASS, failed(right)
    wrong = family.verify(task, {"solution.py": NO_GROUP.encode()}, LocalSandbox())
    assert wrong.status is Status.FAIL, wrong.criteria


GROUPED = """
import boto3
sqs = boto3.client("sqs")
url = sqs.create_queue(QueueName="out.fifo", Attributes={{"FifoQueue": "true"}})["QueueUrl"]
for n, (body, group) in enumerate({sent!r}):
    sqs.send_message(
        QueueUrl=url, MessageBody=body, MessageGroupId=group, MessageDeduplicationId=str(n)
    )
"""
# two customers' orders, each customer's in order, the two interleaved
INTERLEAVED = [("a1", "alice"), ("b1", "bob"), ("a2", "alice"), ("b2", "bob"), ("a3", "alice")]


@pytest.fixture(scope="module")
def grouped(factory: EmulatorFactory) -> Task:
    """A task whose reference sends two message groups, interleaved, to a FIFO queue."""
    script = GROUPED.format(sent=INTERLEAVED)
    with factory.start() as emulator:
        sqs = emulator.client("sqs")
        url = sqs.create_queue(QueueName="out.fifo", Attributes={"FifoQueue": "true"})
        for n, (body, group) in enumerate(INTERLEAVED):
            sqs.send_message(
                QueueUrl=url["QueueUrl"],
                MessageBody=body,
                MessageGroupId=group,
                MessageDeduplicationId=str(n),
            )
        expected = read_state(emulator)
    assert expected.groups == {"out.fifo": ("alice", "bob", "alice", "bob", "alice")}
    return state_task(CloudState(), expected, script)


@pytest.mark.parametrize(
    ("sent", "passes"),
    [
        (INTERLEAVED, True),
        # each group in order, the groups one after the other and named otherwise: what a
        # consumer of each group receives is the same
        ([("b1", "2"), ("b2", "2"), ("a1", "1"), ("a2", "1"), ("a3", "1")], True),
        # the same messages, a customer's in another order: passed as a multiset before
        ([("a2", "alice"), ("b1", "bob"), ("a1", "alice"), ("b2", "bob"), ("a3", "alice")], False),
        # the same messages in one group: a consumer waits on one customer for the other
        ([(body, "all") for body, _ in INTERLEAVED], False),
    ],
    ids=["as the reference", "groups renamed and apart", "a group out of order", "one group"],
)
def test_a_fifo_queue_is_judged_by_each_groups_order(
    grouped: Task, sent: list[tuple[str, str]], passes: bool
) -> None:
    script = GROUPED.format(sent=sent)
    verdict = WorkflowFamily().verify(grouped, {"solution.py": script.encode()}, LocalSandbox())
    if passes:
        assert verdict.status is Status.PASS, failed(verdict)
        return
    assert verdict.status is Status.FAIL, verdict.criteria
    [criterion] = [c for c in verdict.criteria if c.name == "queue:out.fifo"]
    assert "another order or grouping" in criterion.evidence


def test_a_fifo_queue_of_the_initial_state_keeps_its_groups(emulator: Emulator) -> None:
    groups = {"in.fifo": ("x", "y", "x")}
    seed(emulator, CloudState(queues={"in.fifo": ("a", "b", "c")}, groups=groups))
    state = read_state(emulator)
    assert (state.queues, state.groups) == ({"in.fifo": ("a", "b", "c")}, groups)


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (
            {"queues": {"plain": ["a"]}, "groups": {"plain": ["g"]}},
            "groups.plain: groups are given for 'plain', which is no FIFO queue",
        ),
        (
            {"queues": {"in.fifo": ["a", "b"]}, "groups": {"in.fifo": ["g"]}},
            "groups.in.fifo: 1 groups for 2 messages",
        ),
        (
            {"queues": {"in.fifo": ["a"]}, "groups": {"in.fifo": [""]}},
            "groups.in.fifo.0: String should have at least 1 character",
        ),
    ],
    ids=["not fifo", "one short", "empty id"],
)
def test_bad_groups_are_refused_by_field(state: dict[str, object], message: str) -> None:
    with pytest.raises(TaskFormatError) as raised:
        parse_state(json.dumps(state).encode(), "hidden/expected.json")
    assert message in str(raised.value)
    assert "hidden/expected.json" in str(raised.value)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ({"in.fifo": ("g",)}, "groups.in.fifo: 1 groups for 2 messages"),
        ({"in.fifo": ("g", "g", "g")}, "groups.in.fifo: 3 groups for 2 messages"),
        ({"plain": ("g",)}, "groups.plain: groups are given for 'plain', which is no FIFO"),
    ],
    ids=["one short", "one too many", "not fifo"],
)
def test_a_state_built_in_code_with_groups_that_do_not_fit_is_refused_when_built(
    groups: dict[str, tuple[str, ...]], message: str
) -> None:
    # a generator template or a test builds states in code; bad groups passed the model and
    # then stopped the judge with zip()'s own error
    queues = {"in.fifo": ("a", "b"), "plain": ("c",)}
    with pytest.raises(ValidationError) as raised:
        CloudState(queues=queues, groups=groups)
    assert message in str(raised.value)


def test_a_state_changed_unvalidated_is_named_by_the_judge() -> None:
    good = CloudState(queues={"in.fifo": ("a", "b")}, groups={"in.fifo": ("g", "g")})
    bad = good.model_copy(update={"groups": {"in.fifo": ("g",)}})
    with pytest.raises(ValueError, match=r"groups\.in\.fifo: 1 groups for 2 messages"):
        judge_state(CloudState(), good, bad)
