"""The code family's tools: write_file, read_file, run and submit over an episode's workspace.

The workspace is a dict of files the episode owns on the host, bounded in count and size, its
paths checked. An episode waiting for its model therefore holds no sandbox: each ``run`` is one
fresh sandbox job that starts from the workspace's files. Inside the job a small stdlib-only
wrapper (:mod:`._tools_runner`) runs the command and prints the command's output and the files of
the job's working directory back as one framed, base64-encoded JSON record. Those bytes are
hostile: the record must match the frame exactly, fit the sandbox's output limit, pass a schema,
and every path, size and count is checked again here. A record that fails any check leaves the
workspace as it was and tells the agent so. The files die with the episode.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files as package_files
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from assay.families.base import ToolResult
from assay.families.code.config import code_config
from assay.sandbox.protocol import PACKAGES_DIR, ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits

RUNNER = (
    package_files("assay.families.code").joinpath("_tools_runner.py").read_text(encoding="utf-8")
)
FENCE = "python"
_PATH_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}$")
MAX_PATH_CHARS = 255
MAX_COMMAND_CHARS = 20_000


@dataclass(frozen=True)
class ToolLimits:
    """Bounds of one episode's workspace and tool output."""

    max_files: int = 200
    """Files the workspace may hold."""
    max_file_bytes: int = 512 * 1024
    """Largest file, bytes."""
    max_total_bytes: int = 2 * 1024 * 1024
    """All files together, bytes."""
    output_head: int = 8_000
    """Bytes of a command's output shown from its start."""
    output_tail: int = 4_000
    """Bytes shown from its end, when the output is longer than both together."""
    read_bytes: int = 32_000
    """Bytes of a file ``read_file`` shows."""
    run_timeout_s: float | None = None
    """Wall-time limit of one ``run``; the task's own time limit when None."""


SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Create or replace a text file in the workspace.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Relative path, e.g. solution.py"},
                    "content": {"type": "string", "description": "The whole new content."},
                },
                "required": ["path", "content"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Show a file of the workspace.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Relative path."}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run",
            "description": "Run a shell command (`python file.py`, `python -c ...`) in a fresh "
            "sandbox holding the workspace's files, with a time limit and no network. Files it "
            "writes in the workspace are kept. Shows the exit code and the output.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string", "description": "A shell command."}},
                "required": ["command"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Submit the workspace's files as your answer. Ends the episode.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
]


class CodeTools:
    """One episode's workspace and the tools over it. Implements :class:`Toolset`."""

    fence = FENCE

    def __init__(self, task: Task, limits: ToolLimits | None = None) -> None:
        self.limits = limits or ToolLimits()
        self._task_limits = task.spec.limits
        config = code_config(task)
        self._entrypoint = config.entrypoint
        self._packages = config.imports
        self.workspace: Files = dict(task.workspace)

    def schemas(self) -> list[dict[str, Any]]:
        """write_file, read_file, run and submit, in OpenAI function format."""
        return json.loads(json.dumps(SCHEMAS))  # type: ignore[no-any-return]

    def call(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        """Run one tool call; every mistake comes back as an observation."""
        started = time.monotonic()
        result = self._dispatch(name, arguments, sandbox)
        return result.model_copy(update={"wall_s": time.monotonic() - started})

    def submission(self) -> Files:
        """The workspace's files as they are now."""
        return dict(self.workspace)

    def answer_files(self, code: str) -> Files:
        """A single-turn answer is the whole entry point (``solution.py``)."""
        return {self._entrypoint: code.encode()}

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        """Each file written with write_file, then submit."""
        calls: list[tuple[str, dict[str, Any]]] = [
            ("write_file", {"path": path, "content": data.decode(errors="replace")})
            for path, data in sorted(files.items())
        ]
        return [*calls, ("submit", {})]

    def script_answer(self, files: Files) -> str:
        """The entry point's source in one fenced block."""
        source = files.get(self._entrypoint, b"").decode(errors="replace")
        return f"Here is {self._entrypoint}:\n\n```{FENCE}\n{source.rstrip()}\n```\n"

    def _dispatch(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        if name == "write_file":
            return self._write(arguments)
        if name == "read_file":
            return self._read(arguments)
        if name == "run":
            return self._run(arguments, sandbox)
        if name == "submit":
            if arguments:
                return _refused(f"submit takes no arguments, got {sorted(arguments)}")
            return ToolResult(output="submitted", ok=True, submitted=True)
        known = ", ".join(schema["function"]["name"] for schema in SCHEMAS)
        return _refused(f"unknown tool {name[:100]!r}; the tools are {known}")

    def _write(self, arguments: Mapping[str, Any]) -> ToolResult:
        problem = _expect(arguments, {"path": str, "content": str})
        if problem:
            return _refused(f"write_file: {problem}")
        path, content = arguments["path"], arguments["content"].encode()
        problem = path_problem(path) or self._fits(path, content)
        if problem:
            return _refused(f"write_file: {problem}")
        self.workspace[path] = content
        return ToolResult(output=f"wrote {path} ({len(content)} bytes)", ok=True)

    def _read(self, arguments: Mapping[str, Any]) -> ToolResult:
        problem = _expect(arguments, {"path": str})
        if problem:
            return _refused(f"read_file: {problem}")
        path = arguments["path"]
        problem = path_problem(path)
        if problem:
            return _refused(f"read_file: {problem}")
        if path not in self.workspace:
            listing = ", ".join(sorted(self.workspace)[:50]) or "none"
            return _refused(f"read_file: no file {path}; the workspace holds: {listing}")
        data = self.workspace[path]
        shown = data[: self.limits.read_bytes]
        text = shown.decode(errors="replace")
        if len(data) > self.limits.read_bytes:
            text += f"\n[truncated: {len(data)} bytes in all, the first {len(shown)} shown]"
        return ToolResult(output=text, ok=True)

    def _run(self, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        problem = _expect(arguments, {"command": str})
        if problem:
            return _refused(f"run: {problem}")
        command = arguments["command"]
        if not command.strip() or len(command) > MAX_COMMAND_CHARS:
            return _refused(f"run: the command must hold 1 to {MAX_COMMAND_CHARS} characters")
        if "\0" in command:
            return _refused("run: the command holds a NUL byte, which no shell command can")
        timeout = self.limits.run_timeout_s or self._task_limits.timeout_s
        nonce = f"@assay-run:{secrets.token_hex(8)}"
        job = {
            "nonce": nonce,
            "command": command,
            "timeout_s": timeout,
            "head": self.limits.output_head,
            "tail": self.limits.output_tail,
            "max_files": self.limits.max_files,
            "max_file_bytes": self.limits.max_file_bytes,
            "max_total_bytes": self.limits.max_total_bytes,
            "path": [PACKAGES_DIR] if self._packages else [],
        }
        result = sandbox.run(
            [sandbox.python, "-I", "-S", "-c", RUNNER],
            files=self.workspace,
            limits=self._job_limits(timeout),
            stdin=json.dumps(job).encode(),
            packages=self._packages,
        )
        return self._take_back(result, nonce)

    def _job_limits(self, timeout: float) -> Limits:
        """The task's limits, with time for the read-back and room for the framed record."""
        record_bytes = (self.limits.max_total_bytes + self.limits.max_files * 300) * 4 // 3
        output_bytes = (self.limits.output_head + self.limits.output_tail) * 4 // 3
        return self._task_limits.model_copy(
            update={
                "timeout_s": min(3600.0, timeout + 5),
                "max_output_kb": (record_bytes + output_bytes) // 1024 + 64,
            }
        )

    def _take_back(self, result: ExecResult, nonce: str) -> ToolResult:
        """Parse the job's framed record; on success its files become the workspace."""
        cpu = result.cpu_s
        record = _parse_record(result, nonce)
        if isinstance(record, str):
            return ToolResult(output=record, ok=False, sandbox_cpu_s=cpu)
        files, problems = self._checked_files(record)
        self.workspace = files
        output = _format_output(record, self.limits)
        lines = [_exit_line(record), *([output] if output else [])]
        lines += [f"note: {path} was not kept: {why}" for path, why in problems[:20]]
        ok = record.exit_code == 0 and not record.timed_out
        return ToolResult(output="\n".join(lines), ok=ok, sandbox_cpu_s=cpu)

    def _checked_files(self, record: _Record) -> tuple[Files, list[tuple[str, str]]]:
        files: Files = {}
        problems = [(path[:200], why[:100]) for path, why in record.skipped]
        for path, encoded in sorted(record.files.items()):
            try:
                data = base64.b64decode(encoded, validate=True)
            except (binascii.Error, ValueError):
                problems.append((path[:200], "unreadable"))
                continue
            why = path_problem(path) or _fits_in(files, path, data, self.limits)
            if why:
                problems.append((path[:200], why))
                continue
            files[path] = data
        return files, problems

    def _fits(self, path: str, content: bytes) -> str | None:
        others = {name: data for name, data in self.workspace.items() if name != path}
        return _fits_in(others, path, content, self.limits)


class _Record(BaseModel):
    """The wrapper's framed record, schema-checked before anything in it is used."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    exit_code: int | None
    timed_out: bool
    output_size: int
    head: str
    tail: str
    files: dict[str, str]
    skipped: list[tuple[str, str]]


def _parse_record(result: ExecResult, nonce: str) -> _Record | str:
    """The record, or the observation to show when there is none to trust."""
    stopped = _stopped(result)
    if stopped:
        return f"the command was stopped: {stopped}; the workspace is unchanged"
    text = result.stdout
    frame = f"{nonce}\n"
    if result.stdout_truncated or not (text.startswith(frame) and text.endswith(frame)):
        return "the command's results could not be read back; the workspace is unchanged"
    body = text[len(frame) : -len(frame)]
    try:
        return _Record.model_validate_json(body)
    except ValidationError:
        return "the command's results could not be read back; the workspace is unchanged"


def _stopped(result: ExecResult) -> str | None:
    if result.cpu_exceeded:
        return "it used up its CPU time"
    if result.out_of_memory:
        return "it ran out of memory"
    if result.timed_out:
        return "it ran out of time"
    return None


def _exit_line(record: _Record) -> str:
    if record.timed_out:
        return "timed out (the command was killed)"
    if record.exit_code is not None and record.exit_code < 0:
        return f"killed by signal {-record.exit_code}"
    return f"exit code {record.exit_code}"


def _format_output(record: _Record, limits: ToolLimits) -> str:
    head = _decode(record.head, limits.output_head)
    tail = _decode(record.tail, limits.output_tail)
    size = max(0, record.output_size)
    if size <= limits.output_head:
        return head
    return (
        f"{head}\n[output truncated: {size} bytes in all; showing the first "
        f"{limits.output_head} and the last {min(size - limits.output_head, limits.output_tail)}]"
        f"\n{tail}"
    )


def _decode(encoded: str, limit: int) -> str:
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return "[unreadable output]"
    return data[:limit].decode(errors="replace")


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a workspace file, or None when it can."""
    if not path or len(path) > MAX_PATH_CHARS:
        return f"a path must hold 1 to {MAX_PATH_CHARS} characters"
    if path.startswith("/"):
        return f"{path[:100]!r} is absolute; use a path relative to the workspace"
    parts = path.split("/")
    if ".." in parts:
        return f"{path[:100]!r} leaves the workspace"
    if not all(_PATH_PART.match(part) for part in parts):
        return (
            f"{path[:100]!r} is not a plain relative path (letters, digits, _ . + - in each "
            "part, separated by /)"
        )
    return None


def _fits_in(files: Files, path: str, data: bytes, limits: ToolLimits) -> str | None:
    if len(data) > limits.max_file_bytes:
        return f"{path} would hold {len(data)} bytes, more than {limits.max_file_bytes}"
    if path not in files and len(files) >= limits.max_files:
        return f"the workspace holds {limits.max_files} files already"
    total = sum(len(other) for name, other in files.items() if name != path) + len(data)
    if total > limits.max_total_bytes:
        return f"the workspace would hold {total} bytes, more than {limits.max_total_bytes}"
    for other in files:
        if other.startswith(f"{path}/") or path.startswith(f"{other}/"):
            return f"{path} and {other} cannot both exist (one is the other's directory)"
    return None


def _expect(arguments: Mapping[str, Any], fields: Mapping[str, type]) -> str | None:
    """Why ``arguments`` are not exactly ``fields`` with those types, or None."""
    extra = sorted(set(arguments) - set(fields))
    if extra:
        return f"unknown arguments {extra[:5]}; it takes {sorted(fields)}"
    for name, kind in fields.items():
        if name not in arguments:
            return f"the argument {name!r} is missing"
        if not isinstance(arguments[name], kind):
            return f"the argument {name!r} must be a {kind.__name__}"
    return None


def _refused(message: str) -> ToolResult:
    return ToolResult(output=message, ok=False)
