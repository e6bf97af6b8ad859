"""Scripted policies: a task's own solutions, or the empty one, submitted like an agent would."""

from __future__ import annotations

import json
from typing import Literal

from assay.errors import PolicySpecError
from assay.families import family_of
from assay.families.base import ToolFamily, Toolset
from assay.policies.base import PolicyIdentity, PolicyRequest, PolicyTurn
from assay.policies.messages import Message, ToolCall
from assay.tasks.model import REFERENCE, Files, Task

ScriptKind = Literal["reference", "bad", "empty"]


class ScriptedPolicy:
    """Submits fixed files: in tools mode each file with ``write_file`` and then ``submit`` in
    one message; in single-turn mode one answer holding the fenced entry point."""

    def __init__(self, kind: ScriptKind, label: str | None = None) -> None:
        self.kind = kind
        self.label = label
        self.spec = f"bad:{label}" if kind == "bad" else kind

    def identity(self) -> PolicyIdentity:
        """The spec is the whole identity: the files come from the task's version."""
        return PolicyIdentity(spec=self.spec, kind=self.kind)

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        """The scripted submission; after it, a closing message without tool calls."""
        toolset = _toolset(request.task)
        files = self._files(request.task)
        if not request.tools:
            answer = toolset.script_answer(files)
            return PolicyTurn(message=Message(role="assistant", content=answer))
        if any(message.role == "assistant" for message in request.messages):
            return PolicyTurn(message=Message(role="assistant", content="Done."))
        calls = tuple(
            ToolCall(id=f"call-{index}", name=name, arguments=json.dumps(arguments))
            for index, (name, arguments) in enumerate(toolset.script(files))
        )
        return PolicyTurn(message=Message(role="assistant", content=None, tool_calls=calls))

    def _files(self, task: Task) -> Files:
        if self.kind == "empty":
            return family_of(task).empty_solution(task)
        name = REFERENCE if self.kind == "reference" else f"bad-{self.label}"
        if name not in task.solutions:
            known = ", ".join(f"bad:{n.removeprefix('bad-')}" for n in task.known_bad()) or "none"
            raise PolicySpecError(
                f"task {task.id} has no solution {name!r}",
                field="policy",
                fix=f"its known-bad policies are: {known}",
            )
        return task.solutions[name]


def _toolset(task: Task) -> Toolset:
    family = family_of(task)
    if not isinstance(family, ToolFamily):
        raise PolicySpecError(
            f"family {family.name!r} gives agents no tools",
            field="policy",
            fix="pick a task of a family with tools",
        )
    return family.tools(task)
