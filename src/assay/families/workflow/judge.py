"""Judging a final state against the expected one: one criterion per resource.

A resource the task changes (its expected state differs from the initial one) is a requirement:
its criterion is named ``bucket:NAME``, ``queue:NAME``, ``table:NAME`` or ``logs:NAME``, of kind
``state``. A resource the task leaves alone must be exactly as it was (kind ``unchanged``), and a
resource that neither state holds must not exist (kind ``extra``). Evidence is the difference.
A resource's settings (its policy, ACL, retention...: see :mod:`.resource_settings`) are part of
it: a setting the expected state does not give must be at its default. The account's own
settings of a service are judged the same way, as a resource ``account:SERVICE`` that exists
when any of them is not at its default.

How contents compare: texts that hold JSON (an object or an array) in the expected state compare
as JSON values; other texts compare with line endings and trailing white space at the end
ignored. Objects compare by key; messages, log events of a stream and items compare as
multisets, so a duplicate is a difference; a table's key schema (the name, role and type of
each key, see :mod:`.state`) is compared with its items. A queue's messages compare with their
attributes when the expected state names the attributes of any of them (see :mod:`.state`), by
their bodies alone otherwise. A FIFO queue's (``*.fifo``) messages compare in order: as their
message groups, each group's messages in order, groups matched by their messages and never by
their ids, so the same messages sent in another order, or grouped otherwise, are a difference.

A vague request may have several reasonable readings, each with its expected state: the final
state is judged against each, and the reading it comes closest to decides.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.families.workflow.state import CloudState, Message, QueueMessage, body_of
from assay.verdicts import Criterion

MAX_EVIDENCE = 1_500
_SHOWN = 5


def judge_state(initial: CloudState, expected: CloudState, actual: CloudState) -> list[Criterion]:
    """The criteria of ``actual`` against ``expected``, each resource once."""
    expected = _typed_keys(expected, initial)
    attributed = _attributed(expected)
    before = _contents(initial, attributed)
    want = _contents(expected, attributed)
    got = _contents(actual, attributed)
    criteria = []
    for resource in sorted(set(want) | set(got)):
        kind, name = resource
        label = f"{kind}:{name}"
        if kind == "account":
            criteria.append(
                _account(label, before.get(resource), want.get(resource), got.get(resource))
            )
            continue
        if resource not in want:
            gone = [f"{kind} {name} should not exist"]
            criteria.append(_criterion(label, "extra", gone, kept=resource not in before))
            continue
        kept = before.get(resource) == want[resource]
        kind_of = "unchanged" if kept else "state"
        if resource not in got:
            missing = [f"{kind} {name} is missing"]
            criteria.append(_criterion(label, kind_of, missing, kept=kept))
            continue
        differences = _difference(kind, want[resource], got[resource])
        criteria.append(_criterion(label, kind_of, differences, kept=kept))
    return criteria


def _typed_keys(expected: CloudState, initial: CloudState) -> CloudState:
    """``expected`` with the type of each table's keys given: those it leaves out are the
    items', else the initial state's (a table the task empties keeps its keys), else ``S``."""
    tables = {
        name: table.with_key_types(initial.tables.get(name))
        for name, table in expected.tables.items()
    }
    return expected.model_copy(update={"tables": tables})


def _account(label: str, before: Any, want: Any, got: Any) -> Criterion:
    """The account's settings of one service, which are at their defaults when not listed."""
    at_default: tuple[None, dict[str, str]] = (None, {})
    kept = (before or at_default) == (want or at_default)
    differences = _setting_difference((want or at_default)[1], (got or at_default)[1])
    return _criterion(label, "unchanged" if kept else "state", differences, kept=kept)


def judge_readings(
    initial: CloudState, readings: Mapping[str, CloudState], actual: CloudState
) -> tuple[str, list[Criterion]]:
    """The reading ``actual`` comes closest to (all requirements met first, then the share
    met; the first reading on a tie) and its criteria."""
    judged = {name: judge_state(initial, expected, actual) for name, expected in readings.items()}
    return max(judged.items(), key=lambda item: _standing(item[1]))


def _standing(criteria: list[Criterion]) -> tuple[bool, float]:
    met = sum(c.passed for c in criteria)
    return met == len(criteria), met / max(len(criteria), 1)


def _criterion(name: str, kind: str, differences: list[str], *, kept: bool) -> Criterion:
    """``kept``: the initial state meets it already (the resource is to stay as it is, or was
    not there and must not be)."""
    evidence = "; ".join(differences)
    if len(evidence) > MAX_EVIDENCE:
        evidence = evidence[:MAX_EVIDENCE] + " …"
    return Criterion(
        name=name, passed=not differences, evidence=evidence, kind=kind, met_at_start=kept
    )


Contents = dict[tuple[str, str], Any]


def _attributed(state: CloudState) -> frozenset[str]:
    """The queues of ``state`` one of whose messages names its attributes."""
    return frozenset(
        name
        for name, messages in state.queues.items()
        if any(isinstance(message, QueueMessage) for message in messages)
    )


def _contents(state: CloudState, attributed: Collection[str]) -> Contents:
    """Each resource's contents and settings in comparable form; the messages of the
    ``attributed`` queues with their attributes, the others' by their bodies alone."""
    found = {
        resource: (held, _settings(state, resource))
        for resource, held in _held(state, attributed).items()
    }
    for label in state.settings:
        kind, _, name = label.partition(":")
        if kind == "account":
            found["account", name] = (None, _settings(state, ("account", name)))
    return found


def _settings(state: CloudState, resource: tuple[str, str]) -> dict[str, str]:
    settings = state.settings.get(f"{resource[0]}:{resource[1]}", {})
    return {name: _canonical(value) for name, value in settings.items()}


def _held(state: CloudState, attributed: Collection[str]) -> Contents:
    """Each resource's contents in comparable form."""
    found: Contents = {}
    for name, objects in state.buckets.items():
        found["bucket", name] = {key: _normal(body) for key, body in objects.items()}
    for name, messages in state.queues.items():
        if name in attributed:
            compared = [_with_attributes(m) for m in messages]
        else:
            compared = [_normal(body_of(m)) for m in messages]
        if name.endswith(".fifo"):
            found["queue", name] = _in_groups(name, compared, state.groups.get(name))
        else:
            found["queue", name] = _multiset(compared)
    for name, table in state.tables.items():
        keys = tuple(str(key) for key in table.key_schema())
        found["table", name] = (keys, _multiset("json:" + _canonical(item) for item in table.items))
    for name, streams in state.logs.items():
        found["logs", name] = {
            stream: _multiset(_normal(m) for m in messages) for stream, messages in streams.items()
        }
    return found


def _normal(text: str) -> str:
    """JSON texts as canonical JSON; other texts with line endings and trailing space evened."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return "json:" + _canonical(json.loads(stripped))
        except (ValueError, RecursionError):
            pass
    return "text:" + text.replace("\r\n", "\n").rstrip()


def _with_attributes(message: Message) -> str:
    """A message's body (as :func:`_normal` has it) and its attributes, in comparable form."""
    attributes = {} if isinstance(message, str) else message.attributes
    return "message:" + _canonical([_normal(body_of(message)), attributes])


def _canonical(value: Any) -> str:
    return json.dumps(_numbers(value), sort_keys=True, ensure_ascii=False)


def _numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    return value


def _multiset(values: Iterable[str]) -> Counter[str]:
    return Counter(values)


@dataclass(frozen=True)
class _Fifo:
    """A FIFO queue's messages as compared: each message group's messages in order, the
    groups as a multiset (their ids are not compared)."""

    groups: Counter[tuple[str, ...]]

    def messages(self) -> Counter[str]:
        """Every message, whatever its group and place."""
        found: Counter[str] = Counter()
        for group, count in self.groups.items():
            for message in group:
                found[message] += count
        return found


def _in_groups(queue: str, messages: list[str], groups: tuple[str, ...] | None) -> _Fifo:
    """``messages`` of the FIFO queue ``queue`` by their ``groups`` (one for each message), or
    as one group when the state gives none. Raises ``ValueError`` naming the queue when the
    groups are not one a message: a state that was never validated (``model_copy``)."""
    if groups is not None and len(groups) != len(messages):
        raise ValueError(
            f"groups.{queue}: {len(groups)} groups for {len(messages)} messages (a state "
            "changed with model_copy is not validated: build it with CloudState(...))"
        )
    by_group: dict[str, list[str]] = {}
    for message, group in zip(messages, groups or ("",) * len(messages), strict=True):
        by_group.setdefault(group, []).append(message)
    return _Fifo(Counter(tuple(held) for held in by_group.values()))


def _shown(value: str) -> str:
    kind, _, text = value.partition(":")
    if kind == "message":
        body, attributes = json.loads(text)
        listed = _canonical(attributes)
        clipped = listed[:120] + ("…" if len(listed) > 120 else "")
        return f"{_shown(body)} with attributes {clipped}"
    return json.dumps(text[:120] + ("…" if len(text) > 120 else ""), ensure_ascii=False)


def _difference(kind: str, want: Any, got: Any) -> list[str]:
    """What differs between two resources' contents and settings."""
    held = _held_difference(kind, want[0], got[0]) if kind != "account" else []
    return held + _setting_difference(want[1], got[1])


def _setting_difference(want: dict[str, str], got: dict[str, str]) -> list[str]:
    differences = []
    for name in sorted(set(want) | set(got)):
        if name not in got:
            differences.append(f"setting {name} is at its default, expected {_json(want[name])}")
        elif name not in want:
            differences.append(f"setting {name} is {_json(got[name])}, expected its default")
        elif want[name] != got[name]:
            shown = f"{_json(got[name])}, expected {_json(want[name])}"
            differences.append(f"setting {name} is {shown}")
    return differences


def _json(text: str) -> str:
    return text[:200] + ("…" if len(text) > 200 else "")


def _held_difference(kind: str, want: Any, got: Any) -> list[str]:
    if kind == "bucket":
        return _keyed("object", want, got)
    if kind == "queue" and isinstance(want, _Fifo) and isinstance(got, _Fifo):
        return _counted("message", want.messages(), got.messages()) or _order(want, got)
    if kind == "queue":
        return _counted("message", want, got)
    if kind == "table":
        keys_differ = [f"key schema is {_keys(got[0])}, expected {_keys(want[0])}"]
        return (keys_differ if want[0] != got[0] else []) + _counted("item", want[1], got[1])
    differences = []
    for stream in sorted(set(want) | set(got)):
        if stream not in got:
            differences.append(f"stream {stream} is missing")
        elif stream not in want:
            differences.append(f"stream {stream} should not exist")
        else:
            differences += [f"{stream}: {d}" for d in _counted("event", want[stream], got[stream])]
    return differences


def _keys(schema: tuple[str, ...]) -> str:
    """A key schema as evidence shows it: ``sku (HASH, S), day (RANGE, N)``."""
    return ", ".join(schema)


def _keyed(what: str, want: dict[str, str], got: dict[str, str]) -> list[str]:
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    changed = sorted(key for key in set(want) & set(got) if want[key] != got[key])
    differences = []
    if missing:
        differences.append(f"{len(missing)} {what}(s) missing: {_list(missing)}")
    if extra:
        differences.append(f"{len(extra)} unexpected {what}(s): {_list(extra)}")
    for key in changed[:_SHOWN]:
        differences.append(f"{key} holds {_shown(got[key])}, expected {_shown(want[key])}")
    if len(changed) > _SHOWN:
        differences.append(f"and {len(changed) - _SHOWN} more {what}(s) differ")
    return differences


def _counted(what: str, want: Counter[str], got: Counter[str]) -> list[str]:
    missing = want - got
    extra = got - want
    differences = []
    if missing:
        shown = [_shown(v) + (f" (x{n})" if n > 1 else "") for v, n in sorted(missing.items())]
        differences.append(f"{missing.total()} {what}(s) missing: {_list(shown)}")
    if extra:
        shown = [_shown(v) + (f" (x{n})" if n > 1 else "") for v, n in sorted(extra.items())]
        differences.append(f"{extra.total()} unexpected {what}(s): {_list(shown)}")
    return differences


def _order(want: _Fifo, got: _Fifo) -> list[str]:
    """How a FIFO queue holding the expected messages differs in their order or groups."""
    if want.groups == got.groups:
        return []
    missing = sorted(want.groups - got.groups)
    extra = sorted(got.groups - want.groups)
    shown = ", ".join(f"[{_list([_shown(m) for m in group])}]" for group in extra[:2])
    expected = ", ".join(f"[{_list([_shown(m) for m in group])}]" for group in missing[:2])
    return [
        f"the messages are right but in another order or grouping: message groups in order "
        f"{shown}, expected {expected}"
    ]


def _list(values: list[str]) -> str:
    shown = ", ".join(values[:_SHOWN])
    return shown + (f" and {len(values) - _SHOWN} more" if len(values) > _SHOWN else "")


def idempotence(first: CloudState, second: CloudState, *, required: bool) -> Criterion:
    """Whether a second run of the script left the state as the first run did."""
    differences = [
        f"{kind}:{name}: {d}"
        for (kind, name), diffs in _state_differences(first, second)
        for d in diffs
    ]
    evidence = "; ".join(differences)[:MAX_EVIDENCE]
    return Criterion(
        name="idempotent",
        passed=not differences,
        evidence=("a second run changed: " + evidence) if differences else "",
        kind="idempotence" if required else "idempotence-scored",
    )


def _state_differences(
    first: CloudState, second: CloudState
) -> list[tuple[tuple[str, str], list[str]]]:
    every = _attributed(first) | _attributed(second)
    a, b = _contents(first, every), _contents(second, every)
    found = []
    for resource in sorted(set(a) | set(b)):
        if resource not in b:
            found.append((resource, ["deleted"]))
        elif resource not in a:
            found.append((resource, ["created"]))
        elif a[resource] != b[resource]:
            found.append((resource, _difference(resource[0], a[resource], b[resource])))
    return found
