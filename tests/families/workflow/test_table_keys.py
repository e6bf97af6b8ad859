"""A table's key schema is judged: the name, role and type (S, N, B) of each key, not only its
items, so an empty table made with a number key where a text key is expected is a failure."""

from __future__ import annotations

import pytest

from assay.errors import TaskFormatError
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.state import CloudState, TableState, parse_state
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.families.workflow.tasks import state_task
from tests.families.workflow.test_verify import failed

pytestmark = pytest.mark.sandbox

CREATE = """
import boto3
dynamodb = boto3.client("dynamodb")
dynamodb.create_table(
    TableName="archive",
    KeySchema=[{{"AttributeName": "{name}", "KeyType": "HASH"}}],
    AttributeDefinitions=[{{"AttributeName": "{name}", "AttributeType": "{kind}"}}],
    BillingMode="PAY_PER_REQUEST",
)
"""
RECREATE = """
import boto3
dynamodb = boto3.client("dynamodb")
dynamodb.delete_table(TableName="stock")
dynamodb.create_table(
    TableName="stock",
    KeySchema=[{{"AttributeName": "{name}", "KeyType": "HASH"}}],
    AttributeDefinitions=[{{"AttributeName": "{name}", "AttributeType": "{kind}"}}],
    BillingMode="PAY_PER_REQUEST",
)
"""
EMPTY_STOCK = CloudState(tables={"stock": TableState(hash_key="sku")})


def verify(task: Task, script: str) -> Verdict:
    return WorkflowFamily().verify(task, {"solution.py": script.encode()}, LocalSandbox())


@pytest.fixture(scope="module")
def archiving() -> Task:
    """Create the empty table ``archive``, keyed by the text ``id`` (S, as no item says)."""
    expected = CloudState(tables={"archive": TableState(hash_key="id")})
    return state_task(CloudState(), expected, CREATE.format(name="id", kind="S"))


def test_the_reference_creating_the_table_passes(archiving: Task) -> None:
    verdict = verify(archiving, CREATE.format(name="id", kind="S"))
    assert verdict.status is Status.PASS, failed(verdict)


def test_an_empty_table_with_a_number_key_where_a_text_is_expected_fails(archiving: Task) -> None:
    """It passed: the key's name was compared, its type never, and no item showed it."""
    verdict = verify(archiving, CREATE.format(name="id", kind="N"))
    assert verdict.status is Status.FAIL
    assert failed(verdict)["table:archive"] == "key schema is id (HASH, N), expected id (HASH, S)"


def test_an_empty_table_with_a_binary_key_fails(archiving: Task) -> None:
    verdict = verify(archiving, CREATE.format(name="id", kind="B"))
    assert verdict.status is Status.FAIL
    assert "id (HASH, B)" in failed(verdict)["table:archive"]


def test_an_empty_table_keyed_by_another_name_fails(archiving: Task) -> None:
    verdict = verify(archiving, CREATE.format(name="archive_id", kind="S"))
    assert verdict.status is Status.FAIL
    assert "expected id (HASH, S)" in failed(verdict)["table:archive"]


def test_a_seeded_table_remade_with_a_number_key_shows_the_key_schema() -> None:
    """A table seeded empty is made with a text key; one made again with a number key fails
    (as any table made again does) and the evidence says how its keys differ."""
    task = state_task(EMPTY_STOCK, EMPTY_STOCK, "pass\n")
    assert verify(task, "pass\n").status is Status.PASS
    verdict = verify(task, RECREATE.format(name="sku", kind="N"))
    assert verdict.status is Status.FAIL
    evidence = failed(verdict)["table:stock"]
    assert evidence.startswith("key schema is sku (HASH, N), expected sku (HASH, S); ")


def test_a_declared_key_type_is_the_one_judged() -> None:
    expected = CloudState(tables={"archive": TableState(hash_key="id", hash_type="N")})
    task = state_task(CloudState(), expected, CREATE.format(name="id", kind="N"))
    assert verify(task, CREATE.format(name="id", kind="N")).status is Status.PASS
    verdict = verify(task, CREATE.format(name="id", kind="S"))
    assert verdict.status is Status.FAIL
    assert "expected id (HASH, N)" in failed(verdict)["table:archive"]


def test_a_table_emptied_keeps_the_key_type_of_its_items() -> None:
    """An expected table with no items and no type given keeps the initial table's: a task
    emptying a table keyed by numbers is met by deleting its items."""
    initial = CloudState(
        tables={"jobs": TableState(hash_key="n", items=({"n": 1}, {"n": 2, "done": True}))}
    )
    expected = CloudState(tables={"jobs": TableState(hash_key="n")})
    empty = """
import boto3
table = boto3.resource("dynamodb").Table("jobs")
for n in (1, 2):
    table.delete_item(Key={"n": n})
"""
    verdict = verify(state_task(initial, expected, empty), empty)
    assert verdict.status is Status.PASS, failed(verdict)


@pytest.mark.parametrize(
    ("table", "field", "words"),
    [
        (
            '{"hash_key": "sku", "hash_type": "N", "items": [{"sku": "A1"}]}',
            "tables.stock.items.0.sku",
            "gives 'sku' as a text, but the table's key sku (HASH, N) is a number",
        ),
        (
            '{"hash_key": "sku", "items": [{"sku": "A1"}, {"sku": 7}]}',
            "tables.stock.items.1.sku",
            "gives 'sku' as a number, but the table's key sku (HASH, S) is a text",
        ),
        (
            '{"hash_key": "sku", "hash_type": "B", "items": [{"sku": "A1"}]}',
            "tables.stock.items.0.sku",
            "is a binary value",
        ),
        (
            '{"hash_key": "sku", "range_type": "N"}',
            "tables.stock.range_type",
            "a range_type is given for a table without a sort key",
        ),
        ('{"hash_key": "sku", "hash_type": "SS"}', "tables.stock.hash_type", "'S', 'N' or 'B'"),
    ],
    ids=["declared N, text item", "mixed items", "binary key with items", "range_type alone",
         "unknown type"],
)  # fmt: skip
def test_a_key_type_no_item_can_meet_names_its_field(table: str, field: str, words: str) -> None:
    """A state no table could hold: each was read, and an expected one failed every solution."""
    data = ('{"tables": {"stock": ' + table + "}}").encode()
    with pytest.raises(TaskFormatError) as raised:
        parse_state(data, "t/hidden/expected.json")
    text = str(raised.value)
    assert "\n" not in text
    assert text.startswith(f"t/hidden/expected.json: {field}: ")
    assert words in text


def test_key_types_round_trip_and_are_left_out_when_not_given() -> None:
    typed = CloudState(
        tables={"t": TableState(hash_key="a", range_key="b", hash_type="N", range_type="B")}
    )
    assert parse_state(typed.to_json(), "t.json") == typed
    assert b"hash_type" not in EMPTY_STOCK.to_json()
    assert parse_state(EMPTY_STOCK.to_json(), "t.json") == EMPTY_STOCK


def test_the_sensitivity_probe_of_an_empty_table_changes_its_key_type(archiving: Task) -> None:
    """The audit's probes of a task making an empty table held none on its key: a verifier that
    ignored key types passed every probe. The probe expects the other type, and the reference
    fails it on the key schema alone."""
    [probe] = [p for p in WorkflowFamily().probes(archiving) if "keys" in p.name]
    assert probe.name == "table-keys:archive"
    assert probe.what == "its key id expected of type N"
    verdict = verify(probe.task, CREATE.format(name="id", kind="S"))
    assert verdict.status is Status.FAIL
    assert failed(verdict) == {"table:archive": "key schema is id (HASH, S), expected id (HASH, N)"}
