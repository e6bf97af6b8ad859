"""The config family's tools: read the cluster, validate a draft, submit.

``cluster`` shows the task's cluster description as written (the file the agent may also find
in the workspace). ``validate`` reads a draft exactly as a submission is read (in a sandbox job,
with the same limits) and reports what the API server would refuse: YAML that cannot be read,
kinds the task does not accept, fields the pinned schema does not know, objects its validation
refuses. It never says whether the draft meets the requirement. ``submit`` keeps the final YAML
and ends the episode; the verdict is computed later from that text alone, in a fresh sandbox.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from assay.families.base import ToolResult
from assay.families.config.admission import admit
from assay.families.config.documents import MAX_FILE_BYTES
from assay.families.config.spec import config_spec
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task

FENCE = "yaml"
SUBMISSION_FILE = "submission.yaml"
SHOWN_CHARS = 12_000

_YAML = {"type": "string", "description": "Kubernetes objects as YAML; '---' between documents."}
SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "cluster",
            "description": "Show the cluster description: namespaces, pods, existing objects.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "validate",
            "description": "Check a draft as the API server would (YAML, accepted kinds, the "
            "schema of the task's Kubernetes version). Says nothing about the requirement.",
            "parameters": {
                "type": "object",
                "properties": {"yaml": _YAML},
                "required": ["yaml"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Submit the objects to apply as your answer. Ends the episode.",
            "parameters": {
                "type": "object",
                "properties": {"yaml": _YAML},
                "required": ["yaml"],
                "additionalProperties": False,
            },
        },
    },
]


class ConfigTools:
    """One episode's tools over a config task. Implements :class:`Toolset`."""

    fence = FENCE

    def __init__(self, task: Task) -> None:
        self._task = task
        self._spec = config_spec(task)
        self._submitted: str | None = None

    def schemas(self) -> list[dict[str, Any]]:
        """cluster, validate and submit, in OpenAI function format."""
        return json.loads(json.dumps(SCHEMAS))  # type: ignore[no-any-return]

    def call(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        """Run one tool call; every mistake comes back as an observation."""
        started = time.monotonic()
        result = self._dispatch(name, arguments, sandbox)
        return result.model_copy(update={"wall_s": time.monotonic() - started})

    def submission(self) -> Files:
        """The submitted YAML; nothing when none was submitted."""
        return (
            {}
            if self._submitted is None
            else {SUBMISSION_FILE: self._submitted.encode(errors="replace")}
        )

    def answer_files(self, code: str) -> Files:
        """A single-turn answer's fenced block is the YAML to apply."""
        return {SUBMISSION_FILE: code.encode(errors="replace")}

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        """Submit the YAML of ``files`` as one text."""
        return [("submit", {"yaml": joined(files)})]

    def script_answer(self, files: Files) -> str:
        """The YAML of ``files`` in one fenced block."""
        return f"The objects to apply:\n\n```{FENCE}\n{joined(files).rstrip()}\n```\n"

    def _dispatch(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        if name == "cluster":
            if arguments:
                return _refused(f"cluster takes no arguments, got {sorted(arguments)[:5]}")
            text = self._task.workspace.get(self._spec.cluster, b"").decode(errors="replace")
            return ToolResult(output=_bounded(text), ok=True)
        if name in ("validate", "submit"):
            problem = _yaml_argument(arguments)
            if problem:
                return _refused(f"{name}: {problem}")
            if name == "submit":
                self._submitted = arguments["yaml"]
                return ToolResult(output="submitted", ok=True, submitted=True)
            return self._validate(arguments["yaml"], sandbox)
        known = ", ".join(schema["function"]["name"] for schema in SCHEMAS)
        return _refused(f"unknown tool {name[:100]!r}; the tools are {known}")

    def _validate(self, text: str, sandbox: Sandbox) -> ToolResult:
        files = {SUBMISSION_FILE: text.encode(errors="replace")}
        admission = admit(self._task, self._spec, files, sandbox)
        cpu = admission.result.cpu_s if admission.result else 0.0
        if admission.stopped:
            return ToolResult(output=f"could not validate: {admission.summary}", ok=False)
        if admission.meaning is None:
            lines = [f"invalid: {admission.summary}"]
            lines += [f"- {c.name}: {c.evidence}" for c in admission.refusals]
            return ToolResult(output=_bounded("\n".join(lines)), ok=False, sandbox_cpu_s=cpu)
        output = f"valid: {admission.summary} (this checks the objects, not the requirement)"
        return ToolResult(output=output, ok=True, sandbox_cpu_s=cpu)


def joined(files: Files) -> str:
    """The YAML files of ``files`` as one text, in name order, ``---`` between them."""
    texts = [files[name].decode(errors="replace").strip("\n") for name in sorted(files)]
    return "\n---\n".join(text for text in texts if text) + "\n"


def _bounded(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + f"\n[truncated: {len(text)} characters in all]"


def _yaml_argument(arguments: Mapping[str, Any]) -> str | None:
    extra = sorted(set(arguments) - {"yaml"})
    if extra:
        return f"unknown arguments {extra[:5]}; it takes ['yaml']"
    text = arguments.get("yaml")
    if not isinstance(text, str):
        return "the argument 'yaml' must be a string"
    if len(text.encode(errors="replace")) > MAX_FILE_BYTES:
        return f"the YAML must hold at most {MAX_FILE_BYTES} bytes"
    return None


def _refused(message: str) -> ToolResult:
    return ToolResult(output=message, ok=False)
