"""Probes for the audit's sensitivity check: the expected state with one requirement changed.

For each kind of resource the task changes, one probe: a message of a queue dropped, an object's
body changed, an item's attribute changed, the key type of a table made empty changed, a log
event dropped. The reference must fail each; a
verifier that still passes it is not looking at that resource. A vague request's other readings
are left out of the probes, so that the reference cannot pass one by another reading.
"""

from __future__ import annotations

from assay.errors import TaskFormatError
from assay.families.base import Probe
from assay.families.workflow.config import (
    expected_state,
    initial_state,
    reading_files,
    workflow_config,
)
from assay.families.workflow.state import CloudState
from assay.tasks.model import Task

MARK = " (changed)"


def workflow_probes(task: Task) -> list[Probe]:
    """The probes of ``task``; empty when its states cannot be read (lint reports that)."""
    try:
        config = workflow_config(task)
        initial, expected = initial_state(task, config), expected_state(task, config)
    except TaskFormatError:
        return []
    changes = [
        *_queue(initial, expected),
        *_bucket(initial, expected),
        *_table(initial, expected),
        *_table_keys(initial, expected),
        *_logs(initial, expected),
    ]
    others = set(reading_files(task, config).values())
    hidden = {name: data for name, data in task.hidden.items() if name not in others}
    probes = []
    for name, what, state in changes:
        changed = task.model_copy(update={"hidden": {**hidden, config.expected: state.to_json()}})
        probes.append(Probe(name=name, what=what, task=changed))
    return probes


Change = tuple[str, str, CloudState]


def _queue(initial: CloudState, expected: CloudState) -> list[Change]:
    for name, messages in sorted(expected.queues.items()):
        if messages and messages != initial.queues.get(name):
            queues = {**expected.queues, name: messages[1:]}
            groups = dict(expected.groups)
            if name in groups:  # a FIFO queue's groups, one for each message
                groups[name] = groups[name][1:]
            state = expected.model_copy(update={"queues": queues, "groups": groups})
            return [(f"queue:{name}", f"one message fewer expected in {name}", state)]
    return []


def _bucket(initial: CloudState, expected: CloudState) -> list[Change]:
    for name, objects in sorted(expected.buckets.items()):
        before = initial.buckets.get(name, {})
        for key, body in sorted(objects.items()):
            if before.get(key) != body:
                bucket = {**objects, key: body + MARK}
                state = expected.model_copy(update={"buckets": {**expected.buckets, name: bucket}})
                return [(f"bucket:{name}", f"{key} expected to hold other text", state)]
    return []


def _table(initial: CloudState, expected: CloudState) -> list[Change]:
    for name, table in sorted(expected.tables.items()):
        before = initial.tables.get(name)
        for number, item in enumerate(table.items):
            if before is None or item not in before.items:
                keys = {table.hash_key, table.range_key}
                attribute = next((a for a in sorted(item) if a not in keys), None)
                if attribute is None:
                    continue
                items = list(table.items)
                items[number] = {**item, attribute: f"{item[attribute]}{MARK}"}
                changed = table.model_copy(update={"items": tuple(items)})
                state = expected.model_copy(update={"tables": {**expected.tables, name: changed}})
                return [(f"table:{name}", f"{attribute} of one item expected otherwise", state)]
    return []


def _table_keys(initial: CloudState, expected: CloudState) -> list[Change]:
    """A table the task makes with no items (nothing else says what its key is): its partition
    key expected of another type."""
    for name, table in sorted(expected.tables.items()):
        if name in initial.tables or table.items:
            continue
        key = table.key_schema()[0]
        other = "N" if key.type == "S" else "S"
        changed = table.with_key_types().model_copy(update={"hash_type": other})
        state = expected.model_copy(update={"tables": {**expected.tables, name: changed}})
        return [(f"table-keys:{name}", f"its key {key.name} expected of type {other}", state)]
    return []


def _logs(initial: CloudState, expected: CloudState) -> list[Change]:
    for name, streams in sorted(expected.logs.items()):
        for stream, messages in sorted(streams.items()):
            if messages and messages != initial.logs.get(name, {}).get(stream):
                group = {**streams, stream: messages[1:]}
                state = expected.model_copy(update={"logs": {**expected.logs, name: group}})
                return [(f"logs:{name}", f"one event fewer expected in {stream}", state)]
    return []
