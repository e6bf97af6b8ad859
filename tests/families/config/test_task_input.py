"""Bad task input is one line naming the file, the field and the fix; lint finds what is wrong
with a task without a sandbox."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.errors import TaskFormatError
from assay.families.config import ConfigFamily
from assay.families.config.lint import lint_config_task
from assay.sandbox import PoolSandbox
from assay.tasks import Task, save_task
from tests.families.config.conftest import (
    ONLY_API,
    fixture_task,
    with_config,
    with_hidden,
    with_workspace,
)

family = ConfigFamily()


def _raised(task: Task, pool: PoolSandbox) -> str:
    with pytest.raises(TaskFormatError) as raised:
        family.verify(task, fixture_task().solutions["reference"], pool)
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("config", "field", "problem"),
    [
        ({"kubernetes": "1.9"}, "config.kubernetes", "no schemas for Kubernetes 1.9"),
        ({"kubernetes": "v1.30"}, "config.kubernetes", "should match pattern"),
        ({"kinds": ["Pod"]}, "config.kinds", "Pod: use some of NetworkPolicy"),
        ({"kinds": []}, "config.kinds", "at least 1 item"),
        ({"cluster": "../etc/passwd"}, "config.cluster", "should match pattern"),
        ({"colour": "blue"}, "config.colour", "Extra inputs are not permitted"),
        ({"cluster": "other.yaml"}, "config.cluster", "workspace/other.yaml does not exist"),
    ],
)
def test_a_broken_config_table_names_the_field(
    config: dict[str, object], field: str, problem: str, pool: PoolSandbox
) -> None:
    message = _raised(with_config(fixture_task(), **config), pool)
    assert f"{ONLY_API}/task.toml: {field}: " in message
    assert problem in message
    assert message.endswith(")")


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        (b"[[reachability]\n", None, "not TOML"),
        (b"\xff", None, "not TOML"),
        (b"", None, "requires nothing"),
        (b"[[reachability]]\nfrom = '*'\nto = '*'\n", "reachability[0].allowed", "Field required"),
        (
            b"[[reachability]]\nfrom = '*'\nto = '*'\nallowed = true\nport = 70000\n",
            "reachability[0].port",
            "less than or equal to 65535",
        ),
        (
            b"[[permissions]]\nsubject = 'Robot:x'\nverbs = ['get']\nresource = 'pods'\n"
            b"allowed = true\n",
            "permissions[0].subject",
            "is not User:NAME, Group:NAME or ServiceAccount:NS/NAME",
        ),
        (b"[[only]]\nsubject = 'User:a'\nextra = 1\n", "only[0].extra", "Extra inputs"),
        (
            b"[[reachability]]\nfrom = '*'\nto = 'data/db-9'\nallowed = true\n",
            "reachability[0].to",
            "'data/db-9' names no pod of the cluster",
        ),
        # an empty list named no pod and checked nothing, met by any submission
        (
            b"[[reachability]]\nfrom = 'api/*'\nto = []\nallowed = false\n",
            "reachability[0].to",
            "names no pod",
        ),
        (
            b"[[reachability]]\nfrom = []\nto = '*'\nallowed = false\n",
            "reachability[0].from",
            "names no pod",
        ),
        # limits no container can keep, and containers that cannot be exactly none: the
        # reference failed them, so the task loaded and only its audit said it was broken
        (
            b"[[containers]]\nworkload = 'Deployment api/api'\nmax_limits = {cpu = '-1'}\n",
            "containers[0].max_limits",
            "cpu: '-1' is not a positive quantity",
        ),
        (
            b"[[containers]]\nworkload = 'Deployment api/api'\nimages = {}\n",
            "containers[0].images",
            "names no container",
        ),
        # a pod to itself is no connection: the requirement checked nothing and passed
        (
            b"[[reachability]]\nfrom = 'data/db-0'\nto = 'data/db-0'\nallowed = false\n",
            "reachability[0]",
            "decides no connection",
        ),
        # every pair it named was decided again by the requirement after it
        (
            b"[[reachability]]\nfrom = 'api/*'\nto = 'data/db-0'\nallowed = false\n"
            b"[[reachability]]\nfrom = '*'\nto = 'data/db-0'\nallowed = false\n",
            "reachability[0]",
            "decides no connection",
        ),
    ],
)
def test_a_bad_expected_toml_names_the_field(
    text: bytes, field: str | None, problem: str, pool: PoolSandbox
) -> None:
    message = _raised(with_hidden(fixture_task(), "expected.toml", text), pool)
    where = f"{ONLY_API}/hidden/expected.toml: " + (f"{field}: " if field else "")
    assert message.startswith(where), message
    assert problem in message


def test_a_reading_that_decides_no_connection_is_named_by_its_file(pool: PoolSandbox) -> None:
    # the netpol-default-deny-namespace template wrote such a reading for a namespace of one
    # pod: "its pods reach each other" checked nothing
    vacuous = b"[[reachability]]\nfrom = 'data/db-0'\nto = 'data/db-0'\nallowed = true\n"
    task = with_hidden(fixture_task(), "expected-lenient.toml", vacuous)
    message = _raised(task, pool)
    assert message.startswith(f"{ONLY_API}/hidden/expected-lenient.toml: reachability[0]: ")
    assert "decides no connection" in message


def test_a_missing_expected_toml_is_named(pool: PoolSandbox) -> None:
    task = fixture_task().model_copy(update={"hidden": {}})
    assert "hidden/expected.toml: missing" in _raised(task, pool)


@pytest.mark.parametrize(
    ("cluster", "problem"),
    [
        (b"kind: [\n", "ParserError"),
        (b"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nstatus: {podIP: nope}\n", "not an IP"),
    ],
)
def test_a_broken_cluster_file_names_the_file(
    cluster: bytes, problem: str, pool: PoolSandbox
) -> None:
    message = _raised(with_workspace(fixture_task(), "cluster.yaml", cluster), pool)
    assert message.startswith(f"{ONLY_API}/workspace/cluster.yaml: ")
    assert problem in message


def test_the_cli_prints_one_line_for_a_broken_task(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    task_dir = save_task(with_config(fixture_task(), kubernetes="1.9"), tmp_path / "tasks")
    reference = task_dir / "solutions" / "reference"
    result = run_cli("verify", str(task_dir), "--solution", str(reference))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "task.toml: config.kubernetes: no schemas for Kubernetes 1.9" in lines[0]


def test_the_fixture_lints_clean_and_lint_finds_problems() -> None:
    task = fixture_task()
    assert lint_config_task(task) == []
    broken = with_hidden(with_config(task, kinds=["Secret"]), "expected.toml", b"")
    messages = " | ".join(f.message for f in lint_config_task(broken))
    assert "config.kinds" in messages
    solutions = {"reference": {"policy.json": b"{}"}}
    messages = " | ".join(
        f.message for f in lint_config_task(task.model_copy(update={"solutions": solutions}))
    )
    assert "solutions/reference/policy.json is not a YAML file" in messages
    assert "fewer than two known-bad solutions" in messages
