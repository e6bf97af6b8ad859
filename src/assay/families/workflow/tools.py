"""The workflow family's tools: one API call, Python with the SDK, and submit.

An episode gets an emulator of its own, seeded with the task's initial state when the first tool
call needs it. ``aws`` makes one call of a supported service, its operation and parameters
checked against the SDK's service model first; errors come back as observations. The CPU the
emulator spends serving a call (an ``aws`` call, or the requests of ``python`` code) is the
call's sandbox CPU, so it counts against the episode's budget. ``python``
runs code in a sandbox whose only way out is that emulator (see :mod:`.channel`), with the SDK
already pointed at it. ``submit`` ends the episode; the verdict is then the emulator's final
state, read through its API by the trusted side, never anything the agent's code printed.

The submission is a file naming the episode's emulator by a secret token that only this process
holds (:data:`.family.EPISODE_FILE`); a submission made anywhere else cannot name a live one, and
is judged as a script.

A task whose ``rerun`` is not off asks for work that can be done twice: a script is run a second
time on the state its first run left. An episode's work is its tool calls, so each ``python``
snippet and each ``aws`` call that reached the emulator is kept, in order, in the episode's
:class:`Replay`; once the final state is read, the family replays them on that emulator and the
state after the replay must be the final state, with the same criterion, kind and weight as a
script's second run. The replay is that second run, step for step: a snippet runs in the same
channel sandbox, with the same workspace files, limits and (empty) variables as when the agent
ran it; a call that fails, or a snippet that exits with an error, is no fail by itself, as a
second run that errors is none: only the state it leaves counts.

What a replayed snippet can tell from the first pass is what a script's second run can tell
from its first, and is decided the same way. Its workspace and ``/tmp`` are fresh on every run,
so a file it left there is gone. The account is not: a snippet, like a script, sees the state
the first pass left, which is how work finds out what is still to do; a marker it leaves there
is judged as part of the final state (an object or item no state holds fails its criterion),
and a marker a later call removes is gone again when the replay reaches that snippet. The clock
and randomness are not frozen, for a script's second run either: work that changes what it
does by the time (or by times it wrote into the account) or by chance can pass either check
by luck, and neither check claims to catch it.
"""

from __future__ import annotations

import copy
import json
import secrets
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from botocore import xform_name  # type: ignore[import-untyped]
from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]
from botocore.session import get_session  # type: ignore[import-untyped]

from assay.families.base import ToolResult
from assay.families.workflow._emulator_process import SERVICES
from assay.families.workflow.channel import run_with
from assay.families.workflow.cloud import births, seed
from assay.families.workflow.config import SCRIPT, initial_state, workflow_config
from assay.families.workflow.emulator import Emulator, emulators
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits

if TYPE_CHECKING:
    from assay.families.workflow.family import WorkflowFamily

FENCE = "python"
SHOWN_CHARS = 12_000
"""Characters of one observation."""
MAX_BODY_BYTES = 65_536
"""Bytes of a streamed response body (an object's contents) shown."""
SNIPPET = "snippet.py"

_OBJECT = {"type": "object", "additionalProperties": False}
SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "aws",
            "description": "Make one AWS API call (services: s3, sqs, dynamodb, logs) and show "
            "its response as JSON. Operation names as in the API (ListObjectsV2) or the Python "
            "SDK (list_objects_v2); parameters as the SDK takes them.",
            "parameters": {
                **_OBJECT,
                "properties": {
                    "service": {"type": "string", "enum": sorted(SERVICES)},
                    "operation": {"type": "string"},
                    "parameters": {"type": "object"},
                },
                "required": ["service", "operation"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "python",
            "description": "Run Python 3 code; boto3 is installed and already configured for "
            "this account (no endpoint or credentials needed). Shows the exit status, stdout "
            "and stderr. The workspace files (state.json) are in the working directory.",
            "parameters": {
                **_OBJECT,
                "properties": {"code": {"type": "string"}},
                "required": ["code"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Say the job is done. Ends the episode; the account's final state "
            "is then checked.",
            "parameters": {**_OBJECT, "properties": {}},
        },
    },
]


@dataclass(frozen=True)
class _ApiCall:
    """An ``aws`` call that reached the emulator. Its parameters are the call's JSON arguments,
    which the SDK takes as keyword arguments and never changes."""

    service: str
    method: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class _Snippet:
    """A ``python`` call, the code as it was run."""

    code: str


@dataclass
class Replay:
    """The state-changing tool calls of one episode, to be done once more on its emulator (see
    the module docstring). Plain data, holding nothing of the tools."""

    workspace: Files
    limits: Limits
    calls: list[_ApiCall | _Snippet] = field(default_factory=list)
    born: dict[str, str] = field(default_factory=dict)
    """When each resource of the seeded state was made (``cloud.births``): one the episode
    deleted and made again is another resource, whatever it holds, as for a script."""

    def run(self, emulator: Emulator) -> list[ExecResult]:
        """Do the calls again, in order, on ``emulator``: what each cost, as the runs of a
        script's second run. Raises :class:`assay.errors.SandboxError` when the sandbox
        failed, as the script's run does."""
        return [self._again(call, emulator) for call in list(self.calls)]

    def _again(self, call: _ApiCall | _Snippet, emulator: Emulator) -> ExecResult:
        started = time.monotonic()
        cpu_before = emulator.cpu_s()
        if isinstance(call, _Snippet):
            files = {**self.workspace, SNIPPET: call.code.encode()}
            run = run_with(emulator, SNIPPET, files, self.limits)
            return run.model_copy(update={"cpu_s": run.cpu_s + _spent(emulator, cpu_before)})
        output, ok = _call(emulator.client(call.service), call.method, call.parameters)
        return ExecResult(
            exit_code=0 if ok else 1,
            wall_s=time.monotonic() - started,
            cpu_s=_spent(emulator, cpu_before),
            stdout=f"aws {call.service} {call.method} (replayed)",
            stderr="" if ok else output[:300],
        )


class WorkflowTools:
    """One episode's tools, over an emulator that lives as long as the episode."""

    fence = FENCE

    def __init__(self, task: Task, family: WorkflowFamily) -> None:
        self.task = task
        self._family = family
        self._config = workflow_config(task)
        self._initial = initial_state(task, self._config)
        self._token = secrets.token_hex(16)
        self._emulator: Emulator | None = None
        self._replay = Replay(task.workspace, task.spec.limits)
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def schemas(self) -> list[dict[str, Any]]:
        """The tools in OpenAI function format: a copy of their own for each caller, so that
        one that edits them changes no other episode's."""
        return copy.deepcopy(SCHEMAS)

    def call(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        """Run one tool call; see the module docstring. ``sandbox`` is not used: the channel
        sandbox runs the code, with the emulator's socket bound in."""
        started = time.monotonic()
        if name == "submit":
            self._ready()
            return ToolResult(output="submitted", ok=True, submitted=True)
        if name == "aws":
            return self._aws(arguments, started)
        if name == "python":
            return self._python(arguments, started)
        return ToolResult(output=f"no tool named {name!r}: use aws, python or submit", ok=False)

    def submission(self) -> Files:
        """The token naming this episode's emulator, which the family judges."""
        self._ready()
        return {".episode": self._token.encode()}

    def answer_files(self, code: str) -> Files:
        """A single-turn answer: the script, run against a fresh emulator."""
        return {SCRIPT: code.encode()}

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        """Run the submission's script through the python tool, then submit."""
        code = files.get(SCRIPT, b"").decode(errors="replace")
        return [("python", {"code": code}), ("submit", {})]

    def script_answer(self, files: Files) -> str:
        """A single-turn answer holding the submission's script."""
        return f"```{FENCE}\n{files.get(SCRIPT, b'').decode(errors='replace')}\n```"

    def close(self) -> None:
        """Stop the episode's emulator if the family has not judged it yet. Idempotent."""
        if self._finalizer is not None:
            self._finalizer()

    def _ready(self) -> Emulator:
        """The episode's emulator, started and seeded on first use."""
        if self._emulator is None:
            emulator = emulators().start()
            try:
                seed(emulator, self._initial, f"{self.task.id}/workspace/{self._config.initial}")
                self._replay.born = births(emulator)
            except BaseException:
                emulator.close()
                raise
            self._emulator = emulator
            self._family.open_episode(self._token, emulator, self._replay)
            self._finalizer = weakref.finalize(self, _forget, self._family, self._token, emulator)
        return self._emulator

    def _aws(self, arguments: Mapping[str, Any], started: float) -> ToolResult:
        """One API call; the CPU the emulator spent on it is the call's sandbox CPU."""
        extra = _unknown(arguments, ("service", "operation", "parameters"))
        if extra:
            return ToolResult(output=extra, ok=False)
        service = arguments.get("service")
        operation = arguments.get("operation")
        parameters = arguments.get("parameters") or {}
        if not isinstance(service, str) or service not in SERVICES:
            return ToolResult(
                output=f"service must be one of {', '.join(sorted(SERVICES))}", ok=False
            )
        if not isinstance(operation, str) or not isinstance(parameters, dict):
            return ToolResult(
                output="operation must be a string and parameters an object", ok=False
            )
        method = _method(str(service), operation)
        if method is None:
            return ToolResult(output=f"{service} has no operation {operation!r}", ok=False)
        emulator = self._ready()
        cpu_before = emulator.cpu_s()
        self._replay.calls.append(_ApiCall(service, method, dict(parameters)))
        output, ok = _call(emulator.client(str(service)), method, parameters)
        return ToolResult(
            output=output,
            ok=ok,
            wall_s=time.monotonic() - started,
            sandbox_cpu_s=_spent(emulator, cpu_before),
        )

    def _python(self, arguments: Mapping[str, Any], started: float) -> ToolResult:
        extra = _unknown(arguments, ("code",))
        if extra:
            return ToolResult(output=extra, ok=False)
        code = arguments.get("code")
        if not isinstance(code, str):
            return ToolResult(output="code must be a string", ok=False)
        files = {**self.task.workspace, SNIPPET: code.encode()}
        emulator = self._ready()
        cpu_before = emulator.cpu_s()
        self._replay.calls.append(_Snippet(code))
        run = run_with(emulator, SNIPPET, files, self.task.spec.limits)
        status = "timed out" if run.timed_out else f"exit status {run.exit_code}"
        output = f"{status}\n--- stdout ---\n{run.stdout}\n--- stderr ---\n{run.stderr}"
        return ToolResult(
            output=_bounded(output),
            ok=run.ok,
            wall_s=time.monotonic() - started,
            sandbox_cpu_s=run.cpu_s + _spent(emulator, cpu_before),
        )


def _unknown(arguments: Mapping[str, Any], known: tuple[str, ...]) -> str:
    """What is wrong with arguments the tool does not take (a call with ``params`` for
    ``parameters`` ran with none and succeeded, doing something else than asked), or ""."""
    extra = sorted(set(arguments) - set(known))
    return f"unknown arguments {extra[:5]}; it takes {sorted(known)}" if extra else ""


def _call(client: Any, method: str, parameters: dict[str, Any]) -> tuple[str, bool]:
    """The observation of one API call, and whether it succeeded."""
    try:
        response = getattr(client, method)(**parameters)
    except ClientError as exc:
        return f"error: {exc}", False
    except (BotoCoreError, TypeError, ValueError) as exc:
        return f"invalid call: {exc}"[:SHOWN_CHARS], False
    response.pop("ResponseMetadata", None)
    return _bounded(json.dumps(response, default=_plain, indent=1, ensure_ascii=False)), True


def _spent(emulator: Emulator, before: float) -> float:
    """CPU seconds the emulator used since it had used ``before``: the agent's requests are
    served there, so their cost counts against the episode like its own code's."""
    return max(0.0, emulator.cpu_s() - before)


def _forget(family: WorkflowFamily, token: str, emulator: Emulator) -> None:
    family.close_episode(token)
    emulator.close()


_OPERATIONS: dict[str, dict[str, str]] = {}


def _method(service: str, operation: str) -> str | None:
    """The SDK method of ``operation`` (API or SDK spelling), or None when it does not exist."""
    if service not in _OPERATIONS:
        model = get_session().get_service_model(service)
        names = {name: xform_name(name) for name in model.operation_names}
        _OPERATIONS[service] = {**names, **{method: method for method in names.values()}}
    return _OPERATIONS[service].get(operation)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode(errors="replace")
    if hasattr(value, "read"):
        data = value.read(MAX_BODY_BYTES + 1)
        text = data[:MAX_BODY_BYTES].decode(errors="replace")
        return text + (" …(truncated)" if len(data) > MAX_BODY_BYTES else "")
    return repr(value)


def _bounded(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + f"\n…({len(text) - SHOWN_CHARS} more characters)"
