"""Seeding an emulator with a state and reading its state back, through its own API (a queue's
messages excepted: they are asked of the emulator with its trusted token, since receiving them
would change them; see :func:`_queues`). A queue of the state named ``*.fifo`` is seeded as a
FIFO queue, its messages in one group in the state's order: SQS makes a queue FIFO exactly
when its name says so."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer  # type: ignore[import-untyped]
from botocore.exceptions import ClientError, ParamValidationError  # type: ignore[import-untyped]

from assay.errors import TaskFormatError
from assay.families.workflow.emulator import Emulator
from assay.families.workflow.resource_settings import (
    Reads,
    account_reads,
    bucket_reads,
    gather,
    log_group_reads,
    object_reads,
    queue_reads,
    table_reads,
)
from assay.families.workflow.state import CloudState, Message, QueueMessage, TableState

MAX_OBJECTS = 2_000
MAX_MESSAGES = 5_000
MAX_ITEMS = 5_000
MAX_EVENTS = 5_000
MAX_BODY_BYTES = 2**20
"""Past these, reading stops: the state is too large to be any task's answer."""
MAX_CONTENT_BYTES = 64 * 2**20
"""Bytes of contents (object bodies read, messages, items, log events) past which reading stops:
eight times the largest state file, and the host keeps several copies of what it reads (400 MB
of log events took 1.6 GB to read)."""
EVENTS_PAGE = 50
"""Log events asked for at once: a page holds at most this many batches' worth of bytes."""
MAX_RESOURCES = 100
"""Buckets, queues, tables, log groups or log streams (each kind counted apart) past which
reading stops. No task holds near so many, and each costs reads of its own (some twenty settings
for a bucket): thousands of empty buckets kept the host reading for minutes. They are counted
from the listing, before any of them is read."""
SEED_GROUP = "seeded"
"""The message group of the messages a FIFO queue of the initial state is seeded with."""
READ_DEADLINE_S = 120.0
"""Wall-clock seconds reading one state may take, whatever it holds: past them, reading stops as
it does past the limits above. A state within the limits is read in seconds."""
_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


class StateTooLargeError(Exception):
    """The emulator holds more than a task's state could: reading it stopped."""


@dataclass(frozen=True)
class _Deadline:
    """When reading one state must stop (a :func:`time.monotonic` instant)."""

    at: float

    def check(self) -> None:
        """Raises :class:`StateTooLargeError` once the instant has passed."""
        if time.monotonic() > self.at:
            raise StateTooLargeError(f"reading it took more than {READ_DEADLINE_S:g} s")


@dataclass
class _Budget:
    """The bytes of contents reading one state may still take in."""

    left: int

    def spend(self, size: int) -> None:
        """Raises :class:`StateTooLargeError` once more than :data:`MAX_CONTENT_BYTES` were
        spent."""
        self.left -= size
        if self.left < 0:
            raise StateTooLargeError(f"its contents are more than {MAX_CONTENT_BYTES} bytes")


def _listed(pages: Iterable[dict[str, Any]], key: str, kind: str, before: int = 0) -> list[Any]:
    """The entries at ``key`` of a listing's pages. Raises :class:`StateTooLargeError` as soon
    as they and the ``before`` listed already are more than :data:`MAX_RESOURCES`."""
    found: list[Any] = []
    for page in pages:
        found += page.get(key, [])
        if before + len(found) > MAX_RESOURCES:
            raise StateTooLargeError(f"more than {MAX_RESOURCES} {kind}")
    return found


def seed(emulator: Emulator, state: CloudState, path: str = "the initial state") -> None:
    """Create everything in ``state`` (read from ``path``) in the (empty) emulator. Raises
    :class:`TaskFormatError` naming ``path`` and the resource when the emulator refuses what
    the state holds (a bucket name S3 does not allow, an empty log message, an item whose keys
    repeat another's): that is the task's fault, not the machine's."""
    s3 = emulator.client("s3")
    for bucket, objects in state.buckets.items():
        with _refusals(path, f"buckets.{bucket}"):
            s3.create_bucket(Bucket=bucket)
            for key, body in objects.items():
                s3.put_object(Bucket=bucket, Key=key, Body=body.encode())
    sqs = emulator.client("sqs")
    for queue, messages in state.queues.items():
        fifo = queue.endswith(".fifo")
        with _refusals(path, f"queues.{queue}"):
            attributes = {"FifoQueue": "true"} if fifo else {}
            url = sqs.create_queue(QueueName=queue, Attributes=attributes)["QueueUrl"]
            for start in range(0, len(messages), 10):
                entries = [
                    _entry(str(n), message) | (_in_order(state, queue, start + n) if fifo else {})
                    for n, message in enumerate(messages[start : start + 10])
                ]
                _all_sent(sqs.send_message_batch(QueueUrl=url, Entries=entries))
    for table, content in state.tables.items():
        with _refusals(path, f"tables.{table}"):
            _seed_table(emulator, table, content)
    logs = emulator.client("logs")
    now = int(time.time() * 1000)
    for group, streams in state.logs.items():
        with _refusals(path, f"logs.{group}"):
            logs.create_log_group(logGroupName=group)
            for stream, messages in streams.items():
                logs.create_log_stream(logGroupName=group, logStreamName=stream)
                if messages:
                    events = [{"timestamp": now + n, "message": m} for n, m in enumerate(messages)]
                    logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=events)


def _in_order(state: CloudState, queue: str, number: int) -> dict[str, str]:
    """What a FIFO queue's message needs: a group (the state's, or one for every seeded
    message, so that they are received in the state's order) and a deduplication id (its
    place, so that no two are taken for one)."""
    groups = state.groups.get(queue)
    group = groups[number] if groups else SEED_GROUP
    return {"MessageGroupId": group, "MessageDeduplicationId": str(number)}


@contextmanager
def _refusals(path: str, field: str) -> Iterator[None]:
    """Turns the emulator's refusal of a state's data into a :class:`TaskFormatError`; a
    failure of the emulator itself (no answer, a 5xx) passes through as it is."""
    try:
        yield
    except ClientError as exc:
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 500)
        if not 400 <= status < 500:
            raise
        raise _refused(exc, path, field) from None
    except (ParamValidationError, TypeError, ValueError) as exc:
        raise _refused(exc, path, field) from None


def _refused(exc: Exception, path: str, field: str) -> TaskFormatError:
    reason = " ".join(str(exc).split())[:300]
    return TaskFormatError(
        f"the emulator refuses it: {reason}",
        path=path,
        field=field,
        fix="give the state names and contents the cloud accepts",
    )


def _entry(number: str, message: Message) -> dict[str, Any]:
    """The batch entry that sends ``message``, its attributes typed as SQS types them."""
    if isinstance(message, str):
        return {"Id": number, "MessageBody": message}
    attributes = {
        name: {"DataType": "String", "StringValue": value}
        if isinstance(value, str)
        else {"DataType": "Number", "StringValue": repr(value)}
        for name, value in message.attributes.items()
    }
    return {"Id": number, "MessageBody": message.body, "MessageAttributes": attributes}


def _attributes(sent: dict[str, Any]) -> dict[str, str | int | float]:
    """A received message's attributes as a state holds them: a ``String`` one as its text, a
    ``Number`` one as its number; any other type (binary, or a custom type such as
    ``String.id``) as a summary that no value of a state equals."""
    found: dict[str, str | int | float] = {}
    for name, value in sent.items():
        kind, text = value.get("DataType", ""), value.get("StringValue")
        number = _number(text) if kind == "Number" else None
        if kind == "String" and isinstance(text, str):
            found[name] = text
        elif number is not None:
            found[name] = number
        else:
            shown = text if isinstance(text, str) else _binary(bytes(value.get("BinaryValue", b"")))
            found[name] = f"<{kind} attribute: {shown}>"
    return found


def _number(text: object) -> int | float | None:
    """The number a ``Number`` attribute holds, or None when it holds none."""
    try:
        number = Decimal(str(text))
    except ArithmeticError:
        return None
    if not number.is_finite():
        return None
    return int(number) if number == number.to_integral_value() else float(number)


def _all_sent(answer: dict[str, Any]) -> None:
    """Raises ``ValueError`` when a batch of messages was refused in part."""
    failed = answer.get("Failed") or []
    if failed:
        raise ValueError(f"a message was refused: {failed[0].get('Message', failed[0])}")


def _seed_table(emulator: Emulator, name: str, table: TableState) -> None:
    dynamodb = emulator.client("dynamodb")
    keys = table.key_schema()
    dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": key.name, "KeyType": key.role} for key in keys],
        AttributeDefinitions=[
            {"AttributeName": key.name, "AttributeType": key.type} for key in keys
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for start in range(0, len(table.items), 25):
        requests = [
            {"PutRequest": {"Item": to_dynamo(item)}} for item in table.items[start : start + 25]
        ]
        dynamodb.batch_write_item(RequestItems={name: requests})


def to_dynamo(item: dict[str, Any]) -> dict[str, Any]:
    """A plain JSON item in DynamoDB's typed form."""
    return {key: _serializer.serialize(_decimals(value)) for key, value in item.items()}


def _decimals(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_decimals(v) for v in value]
    if isinstance(value, dict):
        return {k: _decimals(v) for k, v in value.items()}
    return value


def _plain(value: Any) -> Any:
    """An attribute value of an item as plain JSON. A binary value (no state can hold one)
    becomes a summary that no text equals, even a text of the same bytes."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Binary | bytes | bytearray):
        return _binary(value.value if isinstance(value, Binary) else bytes(value))
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return _set_of(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _set_of(values: set[Any] | frozenset[Any]) -> str:
    """A set (DynamoDB's ``SS``, ``NS`` or ``BS``), which no state holds, as a summary of its
    members in order: equal to the same set, whatever order it was written in, and never to a
    list (``L``) of the same members."""
    members = [_plain(v) for v in values]
    if all(isinstance(m, str) for m in values):
        kind = "string"
    elif all(isinstance(m, Decimal) for m in values):
        kind = "number"
    else:
        kind = "binary"
    ordered = sorted(members)
    return f"<{kind} set: {json.dumps(ordered, ensure_ascii=False)}>"


def _binary(data: bytes) -> str:
    return f"<binary: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}>"


def text_of(body: bytes) -> str:
    """A body as text; bytes that are not UTF-8 become a visible, never-matching summary."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        digest = hashlib.sha256(body).hexdigest()[:16]
        return f"<{len(body)} bytes that are not UTF-8, sha256 {digest}>"


def read_state(emulator: Emulator) -> CloudState:
    """Everything the emulator holds, and the settings of what holds it (see
    :mod:`.resource_settings`). Raises :class:`StateTooLargeError` past the limits (contents
    past :data:`MAX_CONTENT_BYTES` among them), or when reading takes longer than
    :data:`READ_DEADLINE_S`."""
    deadline = _Deadline(time.monotonic() + READ_DEADLINE_S)
    budget = _Budget(MAX_CONTENT_BYTES)
    reads: dict[str, Reads] = {}
    objects: dict[str, dict[str, Reads]] = {}
    groups: dict[str, tuple[str, ...]] = {}
    state = CloudState(
        buckets=_buckets(emulator, reads, objects, deadline, budget),
        queues=_queues(emulator, reads, groups, deadline, budget),
        tables=_tables(emulator, reads, deadline, budget),
        logs=_logs(emulator, reads, deadline, budget),
    )
    reads |= account_reads(emulator.client)
    settings = gather(reads, objects, deadline.check)
    return state.model_copy(update={"settings": settings, "groups": groups})


def births(emulator: Emulator) -> dict[str, str]:
    """When each bucket, queue, table and log group was created, by its criterion's name
    (``bucket:NAME``...): one deleted and created again under its name has a later time. Asked
    of the emulator itself, to the microsecond: the times the APIs tell are to the second (a
    bucket's ``CreationDate``) or the millisecond, the same for a resource made again within
    them. Raises :class:`StateTooLargeError` past :data:`MAX_RESOURCES` of a kind, and
    :class:`~assay.errors.SandboxError` when the emulator does not tell."""
    found = emulator.births()
    kinds = Counter(label.partition(":")[0] for label in found)
    for kind, count in sorted(kinds.items()):
        if count > MAX_RESOURCES:
            raise StateTooLargeError(f"more than {MAX_RESOURCES} {kind} resources")
    return found


def _buckets(
    emulator: Emulator,
    reads: dict[str, Reads],
    objects_of: dict[str, dict[str, Reads]],
    deadline: _Deadline,
    budget: _Budget,
) -> dict[str, dict[str, str]]:
    s3 = emulator.client("s3")
    found: dict[str, dict[str, str]] = {}
    count = 0
    listed: dict[str, list[tuple[str, int]]] = {}
    buckets = _listed([s3.list_buckets()], "Buckets", "buckets")
    for bucket in sorted(b["Name"] for b in buckets):
        deadline.check()
        listed[bucket] = []
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            listed[bucket] += [(e["Key"], e["Size"]) for e in page.get("Contents", [])]
            count += len(page.get("Contents", []))
            if count > MAX_OBJECTS:  # counted before any body is fetched
                raise StateTooLargeError(f"more than {MAX_OBJECTS} objects")
    for bucket, entries in listed.items():
        objects: dict[str, str] = {}
        label = f"bucket:{bucket}"
        for key, size in entries:
            deadline.check()
            if size > MAX_BODY_BYTES:
                objects[key] = f"<{size} bytes, larger than any answer>"
                head = s3.head_object(Bucket=bucket, Key=key)
            else:
                budget.spend(size)  # before the body is fetched
                head = s3.get_object(Bucket=bucket, Key=key)
                objects[key] = text_of(head["Body"].read())
            objects_of.setdefault(label, {})[key] = object_reads(s3, bucket, key, head)
        found[bucket] = objects
        reads[label] = bucket_reads(s3, bucket)
    return found


def _queues(
    emulator: Emulator,
    reads: dict[str, Reads],
    groups: dict[str, tuple[str, ...]],
    deadline: _Deadline,
    budget: _Budget,
) -> dict[str, tuple[Message, ...]]:
    """Each queue's messages, asked of the emulator with the trusted token rather than
    received (see :data:`~._emulator_process.MESSAGES_PATH`): receiving reads no more than ten
    messages of a FIFO queue's group, and moves a message received often enough to the
    dead-letter queue, which may have been read already. A message in flight (received and
    not deleted) or delayed is held as a placeholder that no state's message equals. The
    message group of each message of a FIFO queue goes into ``groups``."""
    sqs = emulator.client("sqs")
    found: dict[str, tuple[Message, ...]] = {}
    urls = _listed(sqs.get_paginator("list_queues").paginate(), "QueueUrls", "queues")
    for url in sorted(urls):
        deadline.check()
        account, name = url.rstrip("/").rsplit("/", 2)[-2:]
        hidden = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        reads[f"queue:{name}"] = queue_reads(sqs, url, hidden)
        held = emulator.queue_messages(account, name)
        if "too_large" in held:
            raise StateTooLargeError(str(held["too_large"])[:200])
        if len(held["messages"]) > MAX_MESSAGES:
            raise StateTooLargeError(f"more than {MAX_MESSAGES} messages in {name}")
        budget.spend(len(json.dumps(held["messages"])))
        found[name], grouped = _held_messages(held["messages"])
        if name.endswith(".fifo"):
            groups[name] = grouped
    return found


_PLACEHOLDERS = {
    "in_flight": "<a message in flight: received and not deleted ({})>",
    "delayed": "<a message sent with a delay: not yet visible ({})>",
}


def _held_messages(listed: list[Any]) -> tuple[tuple[Message, ...], tuple[str, ...]]:
    """The messages the emulator listed, as a state holds them: the in-flight and delayed
    ones as numbered placeholders, the others by body, with their attributes if any, in the
    queue's order; and the message group of each (in its own group, a placeholder)."""
    entries = [entry for entry in listed if isinstance(entry, dict)]
    counts = Counter(entry.get("state") for entry in entries)
    found: list[Message] = [
        shown.format(n + 1) for state, shown in _PLACEHOLDERS.items() for n in range(counts[state])
    ]
    groups = [f"<placeholder {n + 1}>" for n in range(len(found))]
    for entry in entries:
        if entry.get("state") == "visible":
            found.append(_message(entry))
            groups.append(str(entry.get("group") or SEED_GROUP)[:128])
    return tuple(found), tuple(groups)


def _message(entry: dict[str, Any]) -> Message:
    """A message as a state holds it: its body, with its attributes if it has any."""
    sent = entry.get("attributes") or {}
    if not isinstance(sent, dict) or not sent:
        return str(entry.get("body", ""))
    typed = {
        name: {**value, "BinaryValue": _decoded(value["BinaryValue"])}
        if isinstance(value, dict) and "BinaryValue" in value
        else value
        for name, value in sent.items()
        if isinstance(value, dict)
    }
    return QueueMessage(body=str(entry.get("body", "")), attributes=_attributes(typed))


def _decoded(value: object) -> bytes:
    """A binary attribute's value as the emulator holds it (base64 text) as its bytes."""
    text = str(value)
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        return text.encode()


def _tables(
    emulator: Emulator, reads: dict[str, Reads], deadline: _Deadline, budget: _Budget
) -> dict[str, TableState]:
    dynamodb = emulator.client("dynamodb")
    found: dict[str, TableState] = {}
    names = _listed(dynamodb.get_paginator("list_tables").paginate(), "TableNames", "tables")
    for name in sorted(names):
        deadline.check()
        description = dynamodb.describe_table(TableName=name)["Table"]
        keys = {entry["KeyType"]: entry["AttributeName"] for entry in description["KeySchema"]}
        types = {
            entry["AttributeName"]: entry["AttributeType"]
            for entry in description.get("AttributeDefinitions", [])
        }
        reads[f"table:{name}"] = table_reads(dynamodb, name, description)
        items: list[dict[str, Any]] = []
        for page in dynamodb.get_paginator("scan").paginate(TableName=name):
            deadline.check()
            budget.spend(len(json.dumps(page.get("Items", []), default=str)))
            for item in page.get("Items", []):
                items.append({k: _plain(_deserializer.deserialize(v)) for k, v in item.items()})
                if len(items) > MAX_ITEMS:
                    raise StateTooLargeError(f"more than {MAX_ITEMS} items in {name}")
        found[name] = TableState(
            hash_key=keys["HASH"],
            range_key=keys.get("RANGE"),
            hash_type=types.get(keys["HASH"]),
            range_type=types.get(keys["RANGE"]) if "RANGE" in keys else None,
            items=tuple(items),
        )
    return found


def _logs(
    emulator: Emulator, reads: dict[str, Reads], deadline: _Deadline, budget: _Budget
) -> dict[str, dict[str, tuple[str, ...]]]:
    logs = emulator.client("logs")
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    count = 0
    groups = _listed(
        logs.get_paginator("describe_log_groups").paginate(), "logGroups", "log groups"
    )
    described = {g["logGroupName"]: g for g in groups}
    every_stream = 0
    for group in sorted(described):
        deadline.check()
        reads[f"logs:{group}"] = log_group_reads(logs, described[group])
        streams: dict[str, tuple[str, ...]] = {}
        pages = logs.get_paginator("describe_log_streams").paginate(logGroupName=group)
        names = [
            s["logStreamName"] for s in _listed(pages, "logStreams", "log streams", every_stream)
        ]
        every_stream += len(names)
        for stream in sorted(names):
            streams[stream] = tuple(_events(logs, group, stream, (deadline, budget), count))
            count += len(streams[stream])
        found[group] = streams
    return found


def _events(
    logs: Any, group: str, stream: str, bounds: tuple[_Deadline, _Budget], before: int
) -> list[str]:
    """The messages of a log stream, oldest first, :data:`EVENTS_PAGE` at a time. Raises
    :class:`StateTooLargeError` as soon as they and the ``before`` read already are more than
    :data:`MAX_EVENTS`, or past the ``bounds``."""
    deadline, budget = bounds
    messages: list[str] = []
    token: str | None = None
    while True:
        deadline.check()
        kwargs: dict[str, Any] = {"nextToken": token} if token else {"startFromHead": True}
        page = logs.get_log_events(
            logGroupName=group, logStreamName=stream, limit=EVENTS_PAGE, **kwargs
        )
        events = page.get("events", [])
        budget.spend(sum(len(event["message"]) for event in events))
        messages += [event["message"] for event in events]
        if before + len(messages) > MAX_EVENTS:
            raise StateTooLargeError(f"more than {MAX_EVENTS} log events")
        if not events or page.get("nextForwardToken") in (None, token):
            return messages
        token = page["nextForwardToken"]
