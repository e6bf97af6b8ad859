"""Bad task input is one line naming the file, the field and the fix; lint finds unsound tasks."""

from __future__ import annotations

import json

import pytest

from assay.errors import TaskFormatError
from assay.families import get_family
from assay.families.workflow import WorkflowFamily
from assay.families.workflow.config import expected_state, initial_state, workflow_config
from assay.sandbox import LocalSandbox
from assay.tasks import Task
from tests.families.workflow.tasks import router_task

family = WorkflowFamily()


def with_files(task: Task, **update: object) -> Task:
    return task.model_copy(update=update)


def with_config(task: Task, **config: object) -> Task:
    spec = task.spec.model_copy(update={"config": {**task.spec.config, **config}})
    return task.model_copy(update={"spec": spec})


def message(task: Task) -> str:
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, {"solution.py": b"pass\n"}, LocalSandbox())
    text = str(raised.value)
    assert "\n" not in text
    return text


def test_the_family_is_registered() -> None:
    assert get_family("workflow").name == "workflow"


def test_the_fixture_reads() -> None:
    task = router_task()
    config = workflow_config(task)
    assert initial_state(task, config) != expected_state(task, config)
    assert family.lint(task) == []


def test_an_unknown_setting_names_the_field() -> None:
    text = message(with_config(router_task(), rerun="sometimes"))
    assert text.startswith("invoice-router/task.toml: workflow.rerun:")
    assert "correct the [workflow] table" in text


def test_a_missing_expected_state_names_the_file() -> None:
    text = message(with_files(router_task(), hidden={}))
    assert text.startswith("invoice-router/hidden/expected.json: workflow.expected:")
    assert "add hidden/expected.json" in text


def test_a_state_that_is_not_json_names_the_file() -> None:
    text = message(with_files(router_task(), workspace={"state.json": b"{buckets"}))
    assert text.startswith("invoice-router/workspace/state.json: not JSON")


def test_a_state_of_the_wrong_shape_names_the_field() -> None:
    bad = b'{"queues": {"jobs": "one message"}}'
    text = message(with_files(router_task(), workspace={"state.json": bad}))
    assert text.startswith("invoice-router/workspace/state.json: queues.jobs:")


def test_an_item_without_its_key_names_the_item() -> None:
    bad = b'{"tables": {"stock": {"hash_key": "sku", "items": [{"qty": 1}]}}}'
    text = message(with_files(router_task(), workspace={"state.json": bad}))
    assert "tables.stock.items.0.sku" in text


def test_lint_finds_a_task_that_asks_for_nothing() -> None:
    task = router_task()
    same = with_files(task, hidden={"expected.json": task.workspace["state.json"]})
    messages = [finding.message for finding in family.lint(same)]
    assert any("doing nothing passes" in m for m in messages)
    assert any("workspace/state.json is the expected state" in m for m in messages)


def test_lint_reports_bad_input_as_a_finding() -> None:
    findings = family.lint(with_config(router_task(), initial="state.yaml"))
    assert len(findings) == 1
    assert "workflow.initial" in findings[0].message


def test_a_reading_that_is_not_json_names_its_file() -> None:
    task = router_task()
    hidden = {**task.hidden, "expected-other.json": b"{not json"}
    text = message(with_files(task, hidden=hidden))
    assert text.startswith("invoice-router/hidden/expected-other.json: not JSON")
    assert "expected-other.json" in family.lint(with_files(task, hidden=hidden))[0].message


def test_lint_finds_a_reading_that_asks_for_nothing() -> None:
    task = router_task()
    hidden = {**task.hidden, "expected-lazy.json": task.workspace["state.json"]}
    messages = [finding.message for finding in family.lint(with_files(task, hidden=hidden))]
    assert any("reading lazy is the initial state" in m for m in messages)


@pytest.mark.parametrize(
    ("promise", "rerun", "weight"),
    [
        ("Make it idempotent: the job runs nightly.", "off", 1.0),
        (
            "Der Job kann später noch einmal laufen, ein zweiter Lauf darf also nichts ändern.",
            "off",
            1.0,
        ),
        ("Une relance ne doit rien dupliquer.", "scored", 0.0),
    ],
)
def test_lint_finds_a_promised_rerun_nothing_checks(
    promise: str, rerun: str, weight: float
) -> None:
    """The prompt says a second run changes nothing, and the settings switch that check off:
    a solution that duplicates everything on a rerun would pass."""
    task = router_task()
    prompt = task.prompt + "\n" + promise + "\n"
    unchecked = with_config(with_files(task, prompt=prompt), rerun=rerun, rerun_weight=weight)
    [finding] = [f for f in family.lint(unchecked) if "second run" in f.message]
    assert f'rerun = "{rerun}" leaves it unchecked' in finding.message
    assert finding.severity.value == "error"
    checked = with_config(with_files(task, prompt=prompt), rerun="scored", rerun_weight=1.0)
    assert not [f for f in family.lint(checked) if "second run" in f.message]
    quiet = with_config(task.model_copy(update={"prompt": "Move the invoices.\n"}), rerun="off")
    assert not [f for f in family.lint(quiet) if "second run" in f.message]


def test_the_probes_leave_other_readings_out() -> None:
    task = router_task()
    hidden = {**task.hidden, "expected-other.json": task.hidden["expected.json"]}
    probes = family.probes(with_files(task, hidden=hidden))
    assert probes
    assert all(probe.task.hidden.keys() == {"expected.json"} for probe in probes)


REFUSED_STATES = {
    "buckets.Bad_Bucket!": {"buckets": {"Bad_Bucket!": {}}},
    "buckets.inbox": {"buckets": {"inbox": {"": "a key S3 does not allow"}}},
    "queues.two words": {"queues": {"two words": ["hello"]}},
    "tables.stock": {
        "tables": {"stock": {"hash_key": "sku", "items": [{"sku": "A1"}, {"sku": "A1"}]}}
    },
    "logs./ops": {"logs": {"/ops": {"summary": [""]}}},
}


@pytest.mark.parametrize("field", REFUSED_STATES)
def test_a_state_the_emulator_refuses_is_the_tasks_fault_not_an_error(field: str) -> None:
    """Not an ``error`` verdict (retried, never mended, and blamed on the machine): one line
    naming the state file and the resource."""
    state = json.dumps(REFUSED_STATES[field]).encode()
    text = message(with_files(router_task(), workspace={"state.json": state}))
    assert text.startswith(f"invoice-router/workspace/state.json: {field}: the emulator refuses")
    assert "give the state names and contents the cloud accepts" in text


def _table_of(item: str, keys: str = '"hash_key": "sku"') -> bytes:
    return ('{"tables": {"stock": {' + keys + ', "items": [' + item + "]}}}").encode()


@pytest.mark.parametrize(
    ("state", "field", "words"),
    [
        (_table_of('{"sku": "A1", "qty": NaN}'), "tables.stock.items.0.qty", "not a JSON number"),
        (_table_of('{"sku": "A1", "qty": 1e999}'), "tables.stock.items.0.qty", "inf is not"),
        (_table_of('{"sku": "A1", "v": ' + "[" * 900 + "]" * 900 + "}"), "v.0.0.0.…", "64 deep"),
        (b'{"buckets": {"inbox": {"a": "\\ud800"}}}', "buckets.inbox.a", "lone surrogate"),
        (_table_of('{"sku": true}'), "tables.stock.items.0.sku", "(it is true)"),
        (_table_of('{"sku": ""}'), "tables.stock.items.0.sku", '(it is "")'),
        (
            _table_of('{"sku": "A1"}', '"hash_key": "sku", "range_key": "sku"'),
            "tables.stock.range_key",
            "the sort key is the partition key",
        ),
        (b'{"buckets": {"inbox": {"a": "x"}}, "buckets": {}}', "", "'buckets' is given twice"),
    ],
    ids=["NaN", "infinite", "nested 900 deep", "lone surrogate", "boolean key", "empty key",
         "sort key is the partition key", "a name given twice"],
)  # fmt: skip
def test_a_state_no_cloud_can_hold_names_its_field(state: bytes, field: str, words: str) -> None:
    """Each of these was read as a state: an expected state no final state could meet (NaN
    equals nothing, true is no key), a name given twice losing its first value silently, and
    nesting 900 deep stopping the judge with a RecursionError."""
    text = message(with_files(router_task(), hidden={"expected.json": state}))
    assert text.startswith("invoice-router/hidden/expected.json: ")
    assert field in text
    assert words in text
