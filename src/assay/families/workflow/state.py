"""The state of an emulated cloud: what a task starts from and what it must end with.

One JSON document, the same shape for the initial state (``workspace/``), the expected final
state (``hidden/``) and what the verifier reads back from an emulator::

    {
      "buckets": {"invoices": {"in/2024-05.csv": "id,region,amount\\n..."}},
      "queues":  {"orders-eu": ["{\\"id\\": 7}", {"body": "...", "attributes": {"tries": 2}}]},
      "tables":  {"stock": {"hash_key": "sku", "items": [{"sku": "A1", "qty": 3}]}},
      "logs":    {"/ops/invoices": {"summary": ["routed 12, quarantined 1"]}},
      "settings": {"bucket:invoices": {"versioning": {"Status": "Enabled"}},
                   "logs:/ops/invoices": {"retentionInDays": 30}}
    }

Object bodies, message bodies and log messages are text; items are JSON objects whose key
attributes are non-empty strings or integers (two attributes: a sort key is not the partition
key). A table's key schema is judged with it: the names of its keys and the type of each
(``S``, ``N`` or ``B``), which ``hash_type`` and ``range_type`` may give; left out, a key's type
is that of its values in the items (a text ``S``, an integer ``N``), or, when no item gives one,
that of the same key of the initial state's table, or ``S`` (as a table seeded empty is made).
A state file is plain JSON that a cloud can hold: a name given twice in one object, a number
that is not finite (``NaN``), a lone surrogate or nesting past :data:`MAX_DEPTH` is
refused by field. A message is its body, or an object naming its body and its
message attributes (a text is a ``String`` attribute, a number a ``Number`` one): a queue any of
whose expected messages names its attributes is judged with every message's attributes (one that
names none must have none); the other queues are judged by the bodies alone. No state holds a
set (a DynamoDB ``SS``, ``NS`` or ``BS``): one read from an emulator equals no list.

A queue named ``*.fifo`` is a FIFO queue, and its messages are in order: ``groups`` may give,
by queue, the message group of each of its messages (a list as long as the queue's), and then
each group's messages compare in order, groups by their messages and never by their ids (a
reading from an emulator always gives them). A FIFO queue whose groups a state does not give
is one group: all its messages in order.

``settings`` holds, by resource (``bucket:NAME``, ``queue:NAME``, ``table:NAME``,
``logs:NAME``, and ``account:SERVICE`` for what belongs to the account), the settings that differ
from those of a fresh resource: its policy, ACL, retention, tags... (see :mod:`.resource_settings`
for what is read and how it is named). What a state leaves out is at its default, so a state
without ``settings`` says that every resource keeps its defaults. An initial state holds none:
the emulator is seeded with contents only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from assay.errors import TaskFormatError

MAX_STATE_BYTES = 8 * 2**20
"""Largest state file a task may hold."""
MAX_DEPTH = 64
"""Deepest nesting of objects and arrays a state file may hold: an item's attributes nest 32
deep at most in DynamoDB, and a state nests them five deep."""
ACCOUNT_SERVICES = ("dynamodb", "logs", "s3", "sqs")
"""Services whose account-wide settings a state may name (``account:SERVICE``)."""
GROUPS_ERROR = "fifo_groups"
"""The type of the validation error of a state whose ``groups`` do not fit its queues."""


def _attribute_value(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        # pydantic turns a ValueError, not a TypeError, into the field's error
        raise ValueError("a message attribute is a text or a number")  # noqa: TRY004
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("a message attribute's number is finite")
    return value


AttributeValue = Annotated[str | int | float, BeforeValidator(_attribute_value)]
"""A message attribute's value: a text (``String``) or a finite number (``Number``)."""


class QueueMessage(BaseModel):
    """A message and its message attributes (a message given as its body alone is one whose
    attributes are not judged, unless another message of its queue names some)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    body: str = Field(description="The body (text).")
    attributes: dict[str, AttributeValue] = Field(
        default_factory=dict,
        description="Attribute name to its value: a text is a String attribute, a number a "
        "Number one. Empty: the message has none.",
    )

    def __hash__(self) -> int:
        return hash(self.body)  # equal messages have equal bodies (2 == 2.0: not the JSON)


Message = Annotated[
    Annotated[str, Tag("body")] | Annotated[QueueMessage, Tag("message")],
    Discriminator(lambda value: "message" if isinstance(value, dict | QueueMessage) else "body"),
]
"""A message of a queue: its body, or its body and attributes."""


def body_of(message: Message) -> str:
    """The body of ``message``."""
    return message if isinstance(message, str) else message.body


KeyType = Literal["S", "N", "B"]
"""The type of a key attribute, as DynamoDB names it: a text, a number, binary."""
_TYPE_OF = {"S": "text", "N": "number", "B": "binary value"}


@dataclass(frozen=True)
class KeyAttribute:
    """One attribute of a table's key schema."""

    name: str
    role: Literal["HASH", "RANGE"]
    type: KeyType

    def __str__(self) -> str:
        return f"{self.name} ({self.role}, {self.type})"


class TableState(BaseModel):
    """A key-value table: its key attributes and its items."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hash_key: str = Field(min_length=1, description="Name of the partition key attribute.")
    range_key: str | None = Field(
        default=None, min_length=1, description="Name of the sort key, if any."
    )
    hash_type: KeyType | None = Field(
        default=None,
        description="Type of the partition key (S, N or B); None: that of its values in the "
        "items, else the initial state's, else S.",
    )
    range_type: KeyType | None = Field(
        default=None,
        description="Type of the sort key (S, N or B); None: that of its values in the items, "
        "else the initial state's, else S.",
    )
    items: tuple[dict[str, Any], ...] = Field(default=(), description="The items, plain JSON.")

    def key_schema(self, before: TableState | None = None) -> tuple[KeyAttribute, ...]:
        """The partition key, then the sort key if any, each with its type: the one given, or
        that of the first item's value of it, or that of the key of the same name and role
        of the table ``before`` (the initial state's), or ``S``."""
        keys: list[tuple[str, Literal["HASH", "RANGE"], KeyType | None]] = [
            (self.hash_key, "HASH", self.hash_type)
        ]
        if self.range_key is not None:
            keys.append((self.range_key, "RANGE", self.range_type))
        earlier = {(k.name, k.role): k.type for k in before.key_schema()} if before else {}
        return tuple(
            KeyAttribute(
                name, role, given or self._held_type(name) or earlier.get((name, role), "S")
            )
            for name, role, given in keys
        )

    def _held_type(self, key: str) -> KeyType | None:
        value = next((item[key] for item in self.items if key in item), None)
        if isinstance(value, str):
            return "S"
        if isinstance(value, int | float) and not isinstance(value, bool):
            return "N"
        return None

    def with_key_types(self, before: TableState | None = None) -> TableState:
        """This table with the type of each key given (see :meth:`key_schema`)."""
        types = {key.role: key.type for key in self.key_schema(before)}
        return self.model_copy(
            update={"hash_type": types["HASH"], "range_type": types.get("RANGE")}
        )


class CloudState(BaseModel):
    """Buckets with their objects, queues with their messages, tables, log groups."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    buckets: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="Bucket name to object key to body (text)."
    )
    queues: dict[str, tuple[Message, ...]] = Field(
        default_factory=dict,
        description="Queue name to its messages: each a body, or a body and its attributes.",
    )
    tables: dict[str, TableState] = Field(
        default_factory=dict, description="Table name to its keys and items."
    )
    logs: dict[str, dict[str, tuple[str, ...]]] = Field(
        default_factory=dict, description="Log group to stream to the messages of its events."
    )
    settings: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Resource (``bucket:NAME``..., ``account:SERVICE``) to the settings that "
        "differ from a fresh resource's, plain JSON.",
    )
    groups: dict[str, tuple[Annotated[str, Field(min_length=1, max_length=128)], ...]] = Field(
        default_factory=dict,
        description="FIFO queue (``*.fifo``) to the message group of each of its messages, in "
        "the order of its messages; a FIFO queue left out is one group.",
    )

    @model_validator(mode="after")
    def _groups_fit(self) -> CloudState:
        """Raises a ``ValidationError`` (type ``fifo_groups``, its ``field`` in the context)
        unless each queue ``groups`` names is a FIFO queue of the state and given one group
        for each of its messages."""
        for name, groups in self.groups.items():
            problem = groups_problem(self, name, groups)
            if problem is not None:
                raise PydanticCustomError(
                    GROUPS_ERROR,
                    "{field}: {problem}",
                    {"field": f"groups.{name}", "problem": problem[0], "fix": problem[1]},
                )
        return self

    def resources(self) -> list[tuple[str, str]]:
        """Every (kind, name) held, sorted: ``("bucket", "invoices")``..."""
        named = [
            *(("bucket", name) for name in self.buckets),
            *(("queue", name) for name in self.queues),
            *(("table", name) for name in self.tables),
            *(("logs", name) for name in self.logs),
        ]
        return sorted(named)

    def labels(self) -> set[str]:
        """The resources settings may name: ``bucket:NAME``... and ``account:SERVICE``."""
        return {f"{kind}:{name}" for kind, name in self.resources()} | {
            f"account:{service}" for service in ACCOUNT_SERVICES
        }

    def to_json(self) -> bytes:
        """The state as the JSON a task stores (no ``settings`` or ``groups`` when there are
        none)."""
        empty = {name for name in ("settings", "groups") if not getattr(self, name)}
        value = self.model_dump(mode="json", exclude=empty or None)
        for table in value.get("tables", {}).values():
            for name in ("hash_type", "range_type"):
                if table[name] is None:
                    del table[name]
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def parse_state(data: bytes, path: str) -> CloudState:
    """The state in ``data``; raises :class:`TaskFormatError` naming ``path`` and the field."""
    if len(data) > MAX_STATE_BYTES:
        raise TaskFormatError(
            f"the state file is larger than {MAX_STATE_BYTES} bytes",
            path=path,
            fix="keep task states small",
        )
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=_once_each)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TaskFormatError(
            f"not JSON: {str(exc)[:200]}", path=path, fix="write the state as a JSON object"
        ) from None
    odd = _not_plain(value)
    if odd is not None:
        raise TaskFormatError(odd[1], path=path, field=odd[0] or "(top level)", fix=odd[2])
    try:
        state = CloudState.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == GROUPS_ERROR:
            context = first.get("ctx", {})
            raise TaskFormatError(
                context["problem"], path=path, field=context["field"], fix=context["fix"]
            ) from None
        loc = first["loc"]
        if loc[:1] == ("queues",) and loc[3:4] == ("message",):
            loc = loc[:3] + loc[4:]  # the tag of the form a message takes, not a field
        field = ".".join(str(part) for part in loc) or "(top level)"
        raise TaskFormatError(
            first["msg"],
            path=path,
            field=field,
            fix="use the shape described in assay.families.workflow.state",
        ) from None
    for name, table in state.tables.items():
        _check_keys(name, table, path)
    known = state.labels()
    for label, settings in state.settings.items():
        if label not in known:
            raise TaskFormatError(
                f"settings name {label!r}, which is no resource of this state",
                path=path,
                field=f"settings.{label}",
                fix="name a resource as bucket:NAME, queue:NAME, table:NAME, logs:NAME or "
                "account:SERVICE",
            )
        if not settings:
            raise TaskFormatError(
                "empty settings",
                path=path,
                field=f"settings.{label}",
                fix="leave out a resource whose settings are all at their defaults",
            )
    return state


def _not_plain(value: object) -> tuple[str, str, str] | None:
    """The place (dotted), problem and fix of the first part of the JSON ``value`` that a
    state cannot hold: nesting past :data:`MAX_DEPTH`, a number that is not finite (``NaN``,
    ``Infinity``, ``1e999``), a text or name holding a lone surrogate (``\\ud800``); or None.
    Walked without recursion, however deep the value."""
    stack: list[tuple[object, tuple[str, ...]]] = [(value, ())]
    while stack:
        held, place = stack.pop()
        field = ".".join(place[:8]) + (".…" if len(place) > 8 else "")
        if isinstance(held, dict | list) and len(place) >= MAX_DEPTH:
            return field, f"nested more than {MAX_DEPTH} deep", "flatten the value"
        if isinstance(held, float) and not math.isfinite(held):
            return field, f"{held} is not a JSON number", "write a finite number"
        if isinstance(held, str) and not _encodable(held):
            return field, "a text holds a lone surrogate", "write the text as valid Unicode"
        if isinstance(held, dict):
            for key, inner in held.items():
                if not _encodable(key):
                    return field, "a name holds a lone surrogate", "write names as valid Unicode"
                stack.append((inner, (*place, key)))
        elif isinstance(held, list):
            stack.extend((inner, (*place, str(number))) for number, inner in enumerate(held))
    return None


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose names are given once each; raises ``ValueError`` naming one given
    twice (``json`` keeps the last, and the state would silently lose the first)."""
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise ValueError(f"the name {name!r} is given twice in one object")
        found[name] = value
    return found


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _check_keys(name: str, table: TableState, path: str) -> None:
    """Raises :class:`TaskFormatError` unless the table's keys are two attributes and each
    item gives them as a non-empty text or an integer, as DynamoDB takes them."""
    if table.range_key == table.hash_key:
        raise TaskFormatError(
            f"the sort key is the partition key, {table.hash_key!r}",
            path=path,
            field=f"tables.{name}.range_key",
            fix="name another attribute as the sort key, or leave range_key out",
        )
    if table.range_type is not None and table.range_key is None:
        raise TaskFormatError(
            "a range_type is given for a table without a sort key",
            path=path,
            field=f"tables.{name}.range_type",
            fix="name the sort key as range_key, or leave range_type out",
        )
    schema = table.key_schema()
    for number, item in enumerate(table.items):
        for key in schema:
            value = item.get(key.name)
            if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
                raise TaskFormatError(
                    f"item {number} has no string or integer {key.name!r}"
                    + (f" (it is {json.dumps(value)})" if key.name in item else ""),
                    path=path,
                    field=f"tables.{name}.items.{number}.{key.name}",
                    fix="give every item its key attributes, each a non-empty text or an integer",
                )
            held = "S" if isinstance(value, str) else "N"
            if held != key.type:
                raise TaskFormatError(
                    f"item {number} gives {key.name!r} as a {_TYPE_OF[held]}, but the "
                    f"table's key {key} is a {_TYPE_OF[key.type]}",
                    path=path,
                    field=f"tables.{name}.items.{number}.{key.name}",
                    fix="give every item's key the type of the table's key (a binary key "
                    "holds no item a state can write)",
                )


def groups_problem(state: CloudState, name: str, groups: tuple[str, ...]) -> tuple[str, str] | None:
    """What is wrong with ``groups`` given for the queue ``name`` of ``state``, and the fix;
    None when it is a FIFO queue of the state and they give a group to each of its messages."""
    if name not in state.queues or not name.endswith(".fifo"):
        return (
            f"groups are given for {name!r}, which is no FIFO queue of this state",
            "give groups only for queues of the state named *.fifo",
        )
    if len(groups) != len(state.queues[name]):
        return (
            f"{len(groups)} groups for {len(state.queues[name])} messages",
            "give one message group for each message, in the order of the messages",
        )
    return None
