"""The code family's tools: the workspace on the host, paths checked, each run a fresh job whose
files come back through a framed record that is treated as hostile."""

from __future__ import annotations

import asyncio
import json
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.episodes import EndReason, Episode, run_episode
from assay.errors import SandboxError
from assay.families.code.tools import CodeTools, ToolLimits, _parse_record, path_problem
from assay.policies import (
    Message,
    PolicyIdentity,
    PolicyRequest,
    PolicyTurn,
    ToolCall,
    parse_policy,
)
from assay.sandbox import ExecResult, PoolSandbox, Sandbox
from assay.tasks import Limits, Task
from assay.verdicts import Status
from tests.conftest import REFERENCE


def _call(tools: CodeTools, sandbox: Sandbox, name: str, **arguments: Any) -> Any:
    return tools.call(name, arguments, sandbox)


def test_a_file_a_command_writes_is_read_back_and_submitted(
    median_task: Task, sandbox: Sandbox
) -> None:
    episode = Episode(median_task, sandbox)
    episode.reset()
    source = REFERENCE.decode()
    writer = f"open('solution.py', 'w').write({source!r})\nprint('written')\n"
    steps = [
        ("write_file", {"path": "tools/make.py", "content": writer}),
        ("run", {"command": "python tools/make.py && rm tools/make.py"}),
        ("read_file", {"path": "solution.py"}),
        ("read_file", {"path": "tools/make.py"}),
        ("submit", {}),
    ]
    results = [episode.step(ToolCall(id="c", name=n, arguments=json.dumps(a))) for n, a in steps]
    assert results[1].output == "exit code 0\nwritten\n"
    assert results[2].output == source
    assert results[3].output == "read_file: no file tools/make.py; the workspace holds: solution.py"
    assert episode.submitted
    judged = episode.judge(None)
    assert judged.end is EndReason.SUBMITTED
    assert judged.verdict.status is Status.PASS
    assert judged.submission == {"solution.py": REFERENCE}


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("../hidden/cases.json", "'../hidden/cases.json' leaves the workspace"),
        ("a/../../x", "'a/../../x' leaves the workspace"),
        ("/etc/passwd", "'/etc/passwd' is absolute; use a path relative to the workspace"),
        ("", "a path must hold 1 to 255 characters"),
        ("a//b", "'a//b' is not a plain relative path"),
        ("./a", "'./a' is not a plain relative path"),
        ("a\\b", "'a\\\\b' is not a plain relative path"),
        ("a\0b", "'a\\x00b' is not a plain relative path"),
        ("x" * 300, "a path must hold 1 to 255 characters"),
    ],
)
def test_a_path_leaving_the_workspace_is_refused_as_an_observation(
    median_task: Task, pool: PoolSandbox, path: str, problem: str
) -> None:
    tools = CodeTools(median_task)
    for name, arguments in (("write_file", {"content": "x"}), ("read_file", {})):
        result = _call(tools, pool, name, path=path, **arguments)
        assert not result.ok
        assert result.output.startswith(f"{name}: {problem}")
    assert tools.workspace == {}


@given(st.text(alphabet=string.ascii_letters + "./_-\\", max_size=30))
def test_every_accepted_path_stays_inside(path: str) -> None:
    if path_problem(path) is None:
        parts = path.split("/")
        assert not path.startswith("/")
        assert all(part not in ("", ".", "..") for part in parts)


def test_bad_arguments_are_observations(median_task: Task, pool: PoolSandbox) -> None:
    tools = CodeTools(median_task)
    assert tools.call("write_file", {"path": "a.py"}, pool).output == (
        "write_file: the argument 'content' is missing"
    )
    assert tools.call("write_file", {"path": 3, "content": "x"}, pool).output == (
        "write_file: the argument 'path' must be a str"
    )
    assert tools.call("run", {"command": "ls", "shell": True}, pool).output == (
        "run: unknown arguments ['shell']; it takes ['command']"
    )
    assert tools.call("run", {"command": "  "}, pool).output == (
        "run: the command must hold 1 to 20000 characters"
    )
    assert tools.call("submit", {"now": True}, pool).output == (
        "submit takes no arguments, got ['now']"
    )


def test_huge_output_is_truncated_and_says_so(median_task: Task, pool: PoolSandbox) -> None:
    tools = CodeTools(median_task, ToolLimits(output_head=100, output_tail=50))
    result = _call(
        tools, pool, "run", command="python -c \"print('a' * 3_000_000); print('the end')\""
    )
    status, head, marker = result.output.split("\n")[:3]
    assert status == "exit code 0"
    assert head == "a" * 100
    assert (
        marker == "[output truncated: 3000009 bytes in all; showing the first 100 and the last 50]"
    )
    assert result.output.endswith("\n" + "a" * 41 + "\nthe end\n")


def test_workspace_bounds_hold_for_writes_and_for_files_a_command_makes(
    median_task: Task, pool: PoolSandbox
) -> None:
    limits = ToolLimits(max_files=3, max_file_bytes=1000, max_total_bytes=1500)
    tools = CodeTools(median_task, limits)
    assert _call(tools, pool, "write_file", path="big.txt", content="x" * 1001).output == (
        "write_file: big.txt would hold 1001 bytes, more than 1000"
    )
    assert _call(tools, pool, "write_file", path="a.txt", content="x" * 900).ok
    assert _call(tools, pool, "write_file", path="b.txt", content="x" * 700).output == (
        "write_file: the workspace would hold 1600 bytes, more than 1500"
    )
    assert _call(tools, pool, "write_file", path="a.txt/c", content="").output == (
        "write_file: a.txt/c and a.txt cannot both exist (one is the other's directory)"
    )
    made = _call(
        tools,
        pool,
        "run",
        command="head -c 5000 /dev/zero > huge.bin; for i in 1 2 3 4; do echo $i > f$i; done; "
        "ln -s a.txt link",
    )
    assert "note: huge.bin was not kept: file too large" in made.output
    assert "note: link was not kept: not a regular file" in made.output
    assert "too many files" in made.output
    assert len(tools.workspace) == 3
    assert "huge.bin" not in tools.workspace


def test_a_command_over_its_time_is_killed_and_the_workspace_kept(
    median_task: Task, pool: PoolSandbox
) -> None:
    tools = CodeTools(median_task, ToolLimits(run_timeout_s=0.5))
    _call(tools, pool, "write_file", path="keep.py", content="x = 1\n")
    result = _call(tools, pool, "run", command="echo started; sleep 30")
    assert result.output == "timed out (the command was killed)\nstarted\n"
    assert not result.ok
    assert tools.workspace == {"keep.py": b"x = 1\n"}


def _result(stdout: str, **fields: Any) -> ExecResult:
    return ExecResult(exit_code=0, wall_s=0.1, stdout=stdout, **fields)


def _record(**changes: Any) -> str:
    record = {
        "exit_code": 0,
        "timed_out": False,
        "output_size": 0,
        "head": "",
        "tail": "",
        "files": {},
        "skipped": [],
    }
    return json.dumps({**record, **changes})


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "N\n{}\nN\n",
        "N\n" + _record() + "\nN\nforged\n",
        "forged\nN\n" + _record() + "\nN\n",
        "M\n" + _record() + "\nM\n",
        "N\n" + _record(exit_code="0") + "\nN\n",
        "N\n" + _record(files=[]) + "\nN\n",
        "N\n" + _record(extra=1) + "\nN\n",
        "N\n" + _record()[:-1] + "\nN\n",
    ],
)
def test_a_record_that_is_not_exactly_framed_and_shaped_is_refused(stdout: str) -> None:
    refused = _parse_record(_result(stdout), "N")
    assert refused == "the command's results could not be read back; the workspace is unchanged"


def test_a_truncated_or_stopped_job_leaves_the_workspace(median_task: Task) -> None:
    framed = "N\n" + _record() + "\nN\n"
    assert isinstance(_parse_record(_result(framed, stdout_truncated=True), "N"), str)
    stopped = _parse_record(_result(framed, cpu_exceeded=True), "N")
    assert stopped == "the command was stopped: it used up its CPU time; the workspace is unchanged"


class _Forging:
    """A sandbox whose job prints a record full of hostile files."""

    name = "forging"
    python = "python3"
    notes = ()

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def close(self) -> None:
        """Nothing held."""

    def run(self, command: Any, *, stdin: bytes = b"", **_: Any) -> Any:
        nonce = json.loads(stdin)["nonce"]
        return _result(f"{nonce}\n{_record(files=self.files)}\n{nonce}\n")


def test_hostile_files_in_a_record_are_checked_again(median_task: Task) -> None:
    tools = CodeTools(median_task, ToolLimits(max_file_bytes=10))
    forged = {
        "../escape.py": "eA==",
        "/abs": "eA==",
        "big": "eHh4eHh4eHh4eHh4eA==",
        "bad64": "!!!",
        "ok.py": "eA==",
    }
    result = tools.call("run", {"command": "true"}, _Forging(forged))
    assert tools.workspace == {"ok.py": b"x"}
    assert "note: ../escape.py was not kept: '../escape.py' leaves the workspace" in result.output
    assert "note: bad64 was not kept: unreadable" in result.output
    assert "note: big was not kept: big would hold 13 bytes, more than 10" in result.output


class _Broken(_Forging):
    def run(self, command: Any, *, stdin: bytes = b"", **_: Any) -> Any:
        raise SandboxError("the sandbox could not start")


class _Runner:
    """A policy that runs one command."""

    spec = "runner"

    def identity(self) -> PolicyIdentity:
        return PolicyIdentity(spec=self.spec, kind="test")

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        call = ToolCall(id="c", name="run", arguments='{"command": "true"}')
        return PolicyTurn(message=Message(role="assistant", tool_calls=(call,)))


def test_a_sandbox_that_fails_is_an_error_not_a_fail(median_task: Task) -> None:
    broken = _Broken({})
    judged = asyncio.run(run_episode(median_task, parse_policy("reference"), broken))
    assert judged.verdict.status is Status.ERROR
    assert judged.end is EndReason.SUBMITTED
    running = asyncio.run(run_episode(median_task, _Runner(), broken))
    assert running.verdict.status is Status.ERROR
    assert running.end is EndReason.INFRASTRUCTURE
    assert running.end_detail == "the sandbox could not start"


def test_single_turn_episodes_offer_no_tools(median_task: Task, pool: PoolSandbox) -> None:
    episode = Episode(median_task, pool, mode="single")
    observation = episode.reset()
    assert observation.tools == []
    result = episode.step(ToolCall(id="c", name="submit", arguments="{}"))
    assert result.output == "no tools in single-turn mode"
    assert not episode.submitted


def test_the_job_runs_within_the_tasks_limits(median_task: Task) -> None:
    task = median_task.model_copy(
        update={"spec": median_task.spec.model_copy(update={"limits": Limits(memory_mb=64)})}
    )
    seen: list[Limits] = []

    class Recording(_Forging):
        def run(self, command: Any, *, stdin: bytes = b"", **options: Any) -> Any:
            seen.append(options["limits"])
            return super().run(command, stdin=stdin, **options)

    CodeTools(task, ToolLimits(run_timeout_s=3)).call("run", {"command": "true"}, Recording({}))
    assert seen[0].memory_mb == 64
    assert seen[0].timeout_s == 8


def test_a_command_holding_a_nul_byte_is_refused_for_what_it_is(
    median_task: Task, sandbox: Sandbox
) -> None:
    """It was answered "the command's results could not be read back", which hides the cause."""
    result = _call(CodeTools(median_task), sandbox, "run", command="echo a\0b")
    assert not result.ok
    assert result.output == "run: the command holds a NUL byte, which no shell command can"


def test_a_long_file_read_back_says_how_many_bytes_it_shows(
    median_task: Task, sandbox: Sandbox
) -> None:
    """Two-byte characters: the note counted characters where it said bytes (10 of 20)."""
    tools = CodeTools(median_task, ToolLimits(read_bytes=20))
    _call(tools, sandbox, "write_file", path="notes.txt", content="é" * 30)
    text = _call(tools, sandbox, "read_file", path="notes.txt").output
    assert text == "é" * 10 + "\n[truncated: 60 bytes in all, the first 20 shown]"
