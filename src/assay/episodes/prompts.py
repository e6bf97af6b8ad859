"""The prompt templates of episodes, and the versions that name them on every trajectory."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from assay.policies.messages import Message
from assay.tasks.model import Files, Task

TOOLS_SYSTEM = (
    "You are solving a programming task in a workspace of files. Use the tools to write files, "
    "run commands and read their output. When your solution is complete, call submit: the "
    "workspace's files at that moment are your answer."
)
SINGLE_SYSTEM = (
    "You are solving a programming task. Answer with the complete solution in one fenced "
    "```{fence} code block; the last such block in your answer is what will be judged."
)
PATCHED_FILES = "The files the diff applies to (paths relative to the project's root):"
"""Heads the workspace's files in a single-turn prompt whose answer is a diff (repo tasks): the
model cannot read them otherwise."""
MAX_SHOWN_BYTES = 200_000
"""Bytes of workspace files a single-turn prompt shows at most; the rest are named only."""
PROMPT_VERSION = hashlib.sha256(
    f"{TOOLS_SYSTEM}\0{SINGLE_SYSTEM}\0{PATCHED_FILES}".encode()
).hexdigest()[:12]
"""Changes whenever a template changes."""
_LINE_END = re.compile(r"\r\n|\r|\n")


def prompt_messages(task: Task, *, single: bool, fence: str) -> tuple[Message, ...]:
    """The system prompt and the task's prompt, with the workspace's files named in tools mode."""
    if single:
        prompt = task.prompt
        if fence == "diff" and task.workspace:
            prompt += "\n\n" + shown_files(task.workspace)
        return (
            Message(role="system", content=SINGLE_SYSTEM.format(fence=fence)),
            Message(role="user", content=prompt),
        )
    prompt = task.prompt
    if task.workspace:
        prompt += "\n\nThe workspace holds: " + ", ".join(sorted(task.workspace))
    return Message(role="system", content=TOOLS_SYSTEM), Message(role="user", content=prompt)


def shown_files(files: Files) -> str:
    """The text files of ``files``, each whole in a fence under its path, within
    :data:`MAX_SHOWN_BYTES`; the others are named."""
    parts = [PATCHED_FILES]
    left = MAX_SHOWN_BYTES
    named = []
    for path in sorted(files):
        data = files[path]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None or len(data) > left or "```" in text:
            named.append(path)
            continue
        left -= len(data)
        parts.append(f"{path}\n```\n{text.rstrip()}\n```")
    if named:
        parts.append("Not shown: " + ", ".join(named))
    return "\n\n".join(parts)


def tools_version(schemas: Sequence[dict[str, Any]]) -> str:
    """A short hash of the tool schemas offered."""
    text = json.dumps(list(schemas), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def last_fenced_block(text: str | None, fence: str) -> str | None:
    """The body of the last closed ```FENCE block in ``text``, or None when there is none.

    Read line by line, in linear time whatever the text holds. Lines end where Python's own
    source lines do (``\n``, ``\r\n``, ``\r``): the other characters ``str.splitlines`` takes
    for ends (U+2028, a form feed, ``\x1c``) are the code's own, in a string literal or a
    comment, and stay as they are.
    """
    if not text:
        return None
    last: str | None = None
    body: list[str] | None = None
    for line in _LINE_END.split(text):
        marker = line.strip()
        if body is None:
            if marker.startswith("```") and marker[3:].strip().lower() == fence.lower():
                body = []
        elif marker == "```":
            last, body = "\n".join(body) + "\n", None
        else:
            body.append(line)
    return last
