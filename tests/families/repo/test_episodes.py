"""Repo episodes: the tools over a whole project, a multi-round loop of reading, running the
project's tests, fixing and submitting, and the scripted policies in both modes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.episodes import EndReason
from assay.episodes.prompts import prompt_messages
from assay.families.repo import RepoFamily
from assay.families.repo.tools import MAX_MATCHES, RepoTools
from assay.policies import parse_policy
from assay.policies.base import PolicyIdentity, PolicyRequest, PolicyTurn
from assay.policies.messages import Message, ToolCall
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.episodes.conftest import drive

pytestmark = pytest.mark.sandbox
EXPORT = "rota/export.py"
BROKEN = '    return f"{minutes / 60:.2f}"\n'
FIXED = '    return f"{minutes / 60:.2f}".replace(".", ",")\n'


def test_search_and_listing_find_their_way_around_the_project(
    decimal_comma: Task, pool: PoolSandbox
) -> None:
    tools = RepoTools(decimal_comma)
    names = [schema["function"]["name"] for schema in tools.schemas()]
    assert names == ["write_file", "read_file", "run", "search", "list_files", "submit"]
    listing = tools.call("list_files", {}, pool)
    assert "rota/_vendor/icalfold.py" in listing.output
    assert "README.md" in listing.output
    only = tools.call("list_files", {"path": "tests"}, pool).output.splitlines()
    assert all(line.startswith("tests/") for line in only)
    found = tools.call("search", {"text": "def hours_text"}, pool)
    assert found.output.startswith("rota/export.py:")
    folded = tools.call("search", {"text": "DEF HOURS_TEXT", "ignore_case": True}, pool)
    assert folded.output == found.output
    assert tools.call("search", {"text": "(?:.*)*x"}, pool).output == "no matches"  # literal
    many = tools.call("search", {"text": "e"}, pool).output.splitlines()
    assert len(many) == MAX_MATCHES + 1
    assert many[-1].startswith("[")
    assert "matching lines in all" in many[-1]
    assert not tools.call("search", {"text": "x", "path": "../hidden"}, pool).ok
    assert not tools.call("search", {"pattern": "x"}, pool).ok
    assert not tools.call("grep", {}, pool).ok


def test_read_run_fix_run_again_and_submit(decimal_comma: Task, pool: PoolSandbox) -> None:
    tools = RepoTools(decimal_comma)
    assert BROKEN in tools.call("read_file", {"path": EXPORT}, pool).output
    before = tools.call("run", {"command": "python -m unittest 2>&1 | tail -1"}, pool)
    assert before.output.splitlines()[-1] == "OK"  # the visible tests encode the bug
    shown = tools.call("run", {"command": "python -m rota.cli export data/roster.csv"}, pool)
    assert ";8.00" in shown.output
    source = tools.workspace[EXPORT].decode().replace(BROKEN, FIXED)
    assert tools.call("write_file", {"path": EXPORT, "content": source}, pool).ok
    failing = tools.call("run", {"command": "python -m unittest"}, pool)
    assert not failing.ok
    assert "FAILED (failures=2)" in failing.output
    sed = "sed -i 's/7\\.50/7,50/; s/;4\\.50/;4,50/' tests/test_export.py && python -m unittest"
    assert tools.call("run", {"command": sed}, pool).ok
    assert tools.call("submit", {}, pool).submitted
    verdict = RepoFamily().verify(decimal_comma, tools.submission(), pool)
    assert verdict.status is Status.PASS, verdict.summary


class _Steps:
    """A policy that makes one tool call a turn, from a fixed list: a multi-round agent."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls

    def identity(self) -> PolicyIdentity:
        return PolicyIdentity(spec="steps", kind="reference")

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        done = sum(message.role == "assistant" for message in request.messages)
        if done >= len(self.calls):
            return PolicyTurn(message=Message(role="assistant", content="Done."))
        name, arguments = self.calls[done]
        call = ToolCall(id=f"call-{done}", name=name, arguments=json.dumps(arguments))
        return PolicyTurn(message=Message(role="assistant", content=None, tool_calls=(call,)))


def test_a_multi_round_episode_passes(decimal_comma: Task, pool: PoolSandbox) -> None:
    fixed = decimal_comma.solutions["reference"]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search", {"text": "hours_text"}),
        ("read_file", {"path": EXPORT}),
        ("run", {"command": "python -m rota.cli export data/roster.csv --format weekly"}),
        ("write_file", {"path": EXPORT, "content": fixed[EXPORT].decode()}),
        ("run", {"command": "python -m unittest"}),
        (
            "write_file",
            {"path": "tests/test_export.py", "content": fixed["tests/test_export.py"].decode()},
        ),
        ("run", {"command": "python -m unittest"}),
        ("submit", {}),
    ]
    trajectory = drive(decimal_comma, _Steps(calls), pool)  # type: ignore[arg-type]
    assert len(trajectory.steps) == len(calls)
    assert trajectory.end is EndReason.SUBMITTED
    assert trajectory.verdict.status is Status.PASS, trajectory.verdict.summary
    ran = [
        tool.result for step in trajectory.steps for tool in step.tools if tool.call.name == "run"
    ]
    assert [result.ok for result in ran] == [True, False, True]


@pytest.mark.parametrize("mode", ["tools", "single"])
def test_scripted_policies_in_both_modes(
    decimal_comma: Task, sorted_leftovers: Task, pool: PoolSandbox, mode: str
) -> None:
    for task in (decimal_comma, sorted_leftovers):
        reference = drive(task, parse_policy("reference"), pool, mode=mode)
        assert reference.verdict.status is Status.PASS, reference.verdict.summary
        for label in [name.removeprefix("bad-") for name in task.known_bad()]:
            bad = drive(task, parse_policy(f"bad:{label}"), pool, mode=mode)
            assert bad.verdict.status is Status.FAIL, label
        empty = drive(task, parse_policy("empty"), pool, mode=mode)
        assert empty.verdict.status is Status.FAIL


def test_a_single_turn_prompt_shows_the_files_the_diff_applies_to(decimal_comma: Task) -> None:
    _, user = prompt_messages(decimal_comma, single=True, fence="diff")
    assert user.content is not None
    assert user.content.startswith(decimal_comma.prompt)
    assert f"{EXPORT}\n```\n" in user.content
    assert BROKEN.strip() in user.content
    assert "hidden" not in user.content.split(decimal_comma.prompt, 1)[1].lower()
    _, tools_user = prompt_messages(decimal_comma, single=False, fence="diff")
    assert BROKEN.strip() not in (tools_user.content or "")  # tools mode reads them itself
