"""The config family's tools (the cluster, validation of a draft, submit), its single-turn
answers, its reward hacks, and ``assay run`` over its task."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.families.base import RedTeamFamily, ToolFamily, Toolset
from assay.families.config import ConfigFamily
from assay.sandbox import PoolSandbox
from assay.verdicts import Status
from tests.families.config.conftest import FIXTURES, ONLY_API, fixture_task

family = ConfigFamily()


def test_the_family_gives_toolsets_and_hacks() -> None:
    assert isinstance(family, ToolFamily)
    assert isinstance(family, RedTeamFamily)
    tools = family.tools(fixture_task())
    assert isinstance(tools, Toolset)
    assert tools.fence == "yaml"
    assert [s["function"]["name"] for s in tools.schemas()] == ["cluster", "validate", "submit"]


def test_cluster_shows_the_description_as_written(pool: PoolSandbox) -> None:
    task = fixture_task()
    result = family.tools(task).call("cluster", {}, pool)
    assert result.ok
    assert result.output == task.workspace["cluster.yaml"].decode()


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("reference", "valid: 1 object applied"),
        # validation says nothing of the requirement: a wrong but valid policy is valid
        ("bad-or-instead-of-and", "valid: 1 object applied"),
        ("bad-field-typo", "invalid: objects were refused\n- submission.yaml document 1: "),
    ],
)
def test_validate_checks_objects_not_the_requirement(
    label: str, shown: str, pool: PoolSandbox
) -> None:
    task = fixture_task()
    draft = task.solutions[label]["policy.yaml"].decode()
    result = family.tools(task).call("validate", {"yaml": draft}, pool)
    assert result.ok is shown.startswith("valid"), result.output
    assert result.output.startswith(shown), result.output
    assert "requirement" not in result.output.replace("not the requirement", "")


@pytest.mark.parametrize(
    ("name", "arguments", "shown"),
    [
        ("validate", {"yaml": "kind: [\n"}, "invalid: the YAML could not be read"),
        ("validate", {"yaml": "apiVersion: v1\nkind: Pod\n"}, "kind 'Pod' is not one"),
        ("validate", {"yaml": "a: &a [*a]\n"}, "unfinished anchor"),
        ("validate", {"yaml": "x" * (2 << 20)}, "at most 1048576 bytes"),
        ("validate", {}, "the argument 'yaml' must be a string"),
        ("validate", {"yaml": 3}, "the argument 'yaml' must be a string"),
        ("submit", {"yaml": "", "force": True}, "unknown arguments ['force']"),
        ("cluster", {"path": "/etc/passwd"}, "cluster takes no arguments"),
        ("kubectl", {}, "unknown tool 'kubectl'; the tools are cluster, validate, submit"),
    ],
)
def test_refused_and_malformed_calls_are_observations(
    name: str, arguments: dict[str, object], shown: str, pool: PoolSandbox
) -> None:
    tools = family.tools(fixture_task())
    result = tools.call(name, arguments, pool)
    assert not result.ok
    assert shown in result.output, result.output
    assert tools.submission() == {}


def test_a_submission_is_judged_from_its_text(pool: PoolSandbox) -> None:
    task = fixture_task()
    tools = family.tools(task)
    for name, arguments in tools.script(task.solutions["reference"]):
        result = tools.call(name, arguments, pool)
    assert result.submitted
    assert family.verify(task, tools.submission(), pool).status is Status.PASS
    answer = tools.script_answer(task.solutions["bad-any-namespace"])
    assert "```yaml\n" in answer
    text = answer.split("```yaml\n")[1].split("```")[0]
    verdict = family.verify(task, tools.answer_files(text), pool)
    assert verdict.status is Status.FAIL
    several = {"a.yaml": b"# first\n", "b.yaml": task.solutions["reference"]["policy.yaml"]}
    joined = tools.answer_files(tools.script(several)[0][1]["yaml"])
    assert family.verify(task, joined, pool).status is Status.PASS


def test_every_hack_fails_and_none_is_an_error(pool: PoolSandbox) -> None:
    task = fixture_task()
    hacks = family.exploits(task)
    names = [hack.name for hack in hacks]
    assert len(names) == len(set(names)) >= 12
    for name in ("allow-all", "empty", "selects-nothing", "wildcard-rbac"):
        assert name in names
    for hack in hacks:
        verdict = family.verify(task, hack.files, pool)
        assert verdict.status is Status.FAIL, (hack.name, verdict.summary)
        assert any(not c.passed and c.evidence for c in verdict.criteria), hack.name


def test_no_hacks_for_a_task_whose_expectations_are_unreadable() -> None:
    task = fixture_task().model_copy(update={"hidden": {}})
    assert family.exploits(task) == []


@pytest.mark.parametrize("mode", ["tools", "single"])
def test_assay_run_with_the_reference_policy(
    mode: str, run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    tasks = FIXTURES / ONLY_API
    result = run_cli("run", str(tasks), "--policy", "reference", "--mode", mode)
    assert result.exit_code == 0, result.output
    assert "100.0% of 1" in result.stdout
    result = run_cli("run", str(tasks), "--policy", "bad:any-namespace", "--mode", mode)
    assert result.exit_code == 0, result.output
    assert "0.0% of 1" in result.stdout
