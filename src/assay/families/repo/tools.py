"""The repo family's tools: the code family's (write_file, read_file, run, submit) over a whole
project, plus ``search`` (a literal, grep-like search with a result cap) and ``list_files``.

``run`` runs any command in a fresh sandbox holding the project (its tests with
``python -m unittest``, its command line), exactly as in the code family. Search and listing read
the episode's own copy of the project on the host: the search is a plain substring match, so no
pattern an agent sends can make the host's matching slow. A single-turn answer is a unified diff
in a fenced ``diff`` block, applied to the project as it stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.families.base import ToolResult
from assay.families.code.tools import SCHEMAS as CODE_SCHEMAS
from assay.families.code.tools import CodeTools, ToolLimits, path_problem
from assay.families.repo.patches import PatchError, apply_patch, make_patch
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task

FENCE = "diff"
MAX_MATCHES = 100
"""Lines a search shows at most."""
MAX_LISTED = 500
"""Files a listing shows at most."""
MAX_LINE_CHARS = 200
MAX_PATTERN_CHARS = 500
LIMITS = ToolLimits(max_files=400, max_total_bytes=8 * 1024 * 1024)

_SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "description": f"Find lines holding a text in the project's files (like `grep -rnF`), "
        f"at most {MAX_MATCHES} of them, each as path:line: text.",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "The text to find (not a pattern)."},
                "path": {
                    "type": "string",
                    "description": "Only files under this directory or this file; all when empty.",
                },
                "ignore_case": {"type": "boolean", "description": "Match in any case."},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
    },
}
_LIST = {
    "type": "function",
    "function": {
        "name": "list_files",
        "description": "List the project's files with their sizes in bytes.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Only under this directory."}},
            "additionalProperties": False,
        },
    },
}
SCHEMAS: list[dict[str, Any]] = [*CODE_SCHEMAS[:3], _SEARCH, _LIST, CODE_SCHEMAS[3]]


class RepoTools(CodeTools):
    """One episode's copy of the project and the tools over it. Implements :class:`Toolset`."""

    fence = FENCE

    def __init__(self, task: Task, limits: ToolLimits | None = None) -> None:
        self.limits = limits or LIMITS
        self._task_limits = task.spec.limits
        self._packages: tuple[str, ...] = ()
        self.workspace: Files = dict(task.workspace)
        self._original: Files = dict(task.workspace)

    def schemas(self) -> list[dict[str, Any]]:
        """write_file, read_file, run, search, list_files and submit."""
        return [dict(schema) for schema in SCHEMAS]

    def answer_files(self, code: str) -> Files:
        """The project with the answer's diff applied; where it does not apply, the diff
        alone, which the verifier fails with the reason."""
        try:
            return apply_patch(self.workspace, code)
        except PatchError:
            return {"fix.patch": code.encode()}

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        """Each changed file written, each removed one deleted with ``run``, then submit."""
        calls: list[tuple[str, dict[str, Any]]] = [
            ("write_file", {"path": path, "content": data.decode(errors="replace")})
            for path, data in sorted(files.items())
            if self._original.get(path) != data
        ]
        calls += [
            ("run", {"command": f"rm -f -- '{path}'"})
            for path in sorted(set(self._original) - set(files))
        ]
        return [*calls, ("submit", {})]

    def script_answer(self, files: Files) -> str:
        """The change as one unified diff against the project as given."""
        diff = make_patch(self._original, files)
        return f"Here is the fix:\n\n```{FENCE}\n{diff}```\n"

    def _dispatch(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        if name == "search":
            return self._search(arguments)
        if name == "list_files":
            return self._list(arguments)
        if name not in {schema["function"]["name"] for schema in SCHEMAS}:
            known = ", ".join(schema["function"]["name"] for schema in SCHEMAS)
            return ToolResult(
                output=f"unknown tool {name[:100]!r}; the tools are {known}", ok=False
            )
        return super()._dispatch(name, arguments, sandbox)

    def _search(self, arguments: Mapping[str, Any]) -> ToolResult:
        problem = _arguments(arguments, {"text": str}, {"path": str, "ignore_case": bool})
        text = arguments.get("text", "")
        if problem is None and not 0 < len(text) <= MAX_PATTERN_CHARS:
            problem = f"the text must hold 1 to {MAX_PATTERN_CHARS} characters"
        if problem is None:
            problem = self._scope_problem(arguments.get("path", ""))
        if problem:
            return ToolResult(output=f"search: {problem}", ok=False)
        fold = bool(arguments.get("ignore_case", False))
        needle = text.casefold() if fold else text
        found: list[str] = []
        total = 0
        for path in self._scoped(arguments.get("path", "")):
            lines = self.workspace[path].decode("utf-8", errors="replace").splitlines()
            for number, line in enumerate(lines, 1):
                if needle in (line.casefold() if fold else line):
                    total += 1
                    if len(found) < MAX_MATCHES:
                        found.append(f"{path}:{number}: {line[:MAX_LINE_CHARS]}")
        if total > MAX_MATCHES:
            found.append(f"[{total} matching lines in all; the first {MAX_MATCHES} shown]")
        return ToolResult(output="\n".join(found) or "no matches", ok=True)

    def _list(self, arguments: Mapping[str, Any]) -> ToolResult:
        problem = _arguments(arguments, {}, {"path": str})
        problem = problem or self._scope_problem(arguments.get("path", ""))
        if problem:
            return ToolResult(output=f"list_files: {problem}", ok=False)
        paths = self._scoped(arguments.get("path", ""))
        shown = [f"{path}  ({len(self.workspace[path])} bytes)" for path in paths[:MAX_LISTED]]
        if len(paths) > MAX_LISTED:
            shown.append(f"[{len(paths)} files in all; the first {MAX_LISTED} shown]")
        return ToolResult(output="\n".join(shown) or "no files", ok=True)

    def _scope_problem(self, scope: str) -> str | None:
        return path_problem(scope.strip("/")) if scope.strip("/") else None

    def _scoped(self, scope: str) -> list[str]:
        scope = scope.strip("/")
        return [
            path
            for path in sorted(self.workspace)
            if not scope or path == scope or path.startswith(f"{scope}/")
        ]


def _arguments(
    arguments: Mapping[str, Any], required: Mapping[str, type], optional: Mapping[str, type]
) -> str | None:
    """Why ``arguments`` do not fit, or None."""
    known = {**required, **optional}
    extra = sorted(set(arguments) - set(known))
    if extra:
        return f"unknown arguments {extra[:5]}; it takes {sorted(known)}"
    for name, kind in known.items():
        if name in required and name not in arguments:
            return f"the argument {name!r} is missing"
        if name in arguments and not isinstance(arguments[name], kind):
            return f"the argument {name!r} must be a {kind.__name__}"
    return None
