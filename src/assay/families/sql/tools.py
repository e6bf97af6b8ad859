"""The sql family's tools: the schema, read-only queries on the visible database, and submit.

``schema`` shows the visible database's CREATE statements as written (the text the agent may also
read in the workspace). ``query`` passes the gate like a submission, then runs in a fresh sandbox
job on the visible database only (never a neighbour), with the task's per-query time limit and a
small row limit, and shows the rows as a bounded text table. ``submit`` takes the final query and
ends the episode; the verdict is computed later from that text alone, run again in a fresh
sandbox on the whole suite. Nothing of a query's run is kept between calls.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.families.base import ToolResult
from assay.families.sql._schema import schema_texts
from assay.families.sql.compare import canonical
from assay.families.sql.config import QUERY_FILE, sql_config
from assay.families.sql.databases import SUFFIXES, engine_bytes, engine_file, source, suite
from assay.families.sql.family import run_queries
from assay.families.sql.gate import Refused, check_query
from assay.families.sql.results import Failed, Table
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task

FENCE = "sql"
MAX_QUERY_CHARS = 20_000


@dataclass(frozen=True)
class ToolLimits:
    """Bounds of what the tools show."""

    max_rows: int = 200
    """Rows a ``query`` may return; more is refused with a hint to add a LIMIT."""
    shown_rows: int = 50
    """Rows shown of a result."""
    shown_chars: int = 12_000
    """Characters of one observation."""


SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "schema",
            "description": "Show the database's tables: their CREATE statements.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "query",
            "description": "Run one read-only SQL query (a SELECT) on the database and show "
            "its rows (at most 200: add a LIMIT for more), with a time limit.",
            "parameters": {
                "type": "object",
                "properties": {"sql": {"type": "string", "description": "One SELECT query."}},
                "required": ["sql"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Submit your final query as the answer. Ends the episode.",
            "parameters": {
                "type": "object",
                "properties": {"sql": {"type": "string", "description": "One SELECT query."}},
                "required": ["sql"],
                "additionalProperties": False,
            },
        },
    },
]


class SqlTools:
    """One episode's tools over the visible database. Implements :class:`Toolset`."""

    fence = FENCE

    def __init__(self, task: Task, limits: ToolLimits | None = None) -> None:
        self.limits = limits or ToolLimits()
        self._task = task
        self._config = sql_config(task)
        self._visible = suite(task, self._config)[0]
        self._submitted: str | None = None

    def schemas(self) -> list[dict[str, Any]]:
        """schema, query and submit, in OpenAI function format."""
        return json.loads(json.dumps(SCHEMAS))  # type: ignore[no-any-return]

    def call(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        """Run one tool call; every mistake comes back as an observation."""
        started = time.monotonic()
        result = self._dispatch(name, arguments, sandbox)
        return result.model_copy(update={"wall_s": time.monotonic() - started})

    def submission(self) -> Files:
        """The submitted query; nothing when none was submitted."""
        return {} if self._submitted is None else {QUERY_FILE: self._submitted.encode()}

    def answer_files(self, code: str) -> Files:
        """A single-turn answer's fenced block is the query."""
        return {QUERY_FILE: code.encode()}

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        """Submit the query of ``files``."""
        return [("submit", {"sql": files.get(QUERY_FILE, b"").decode(errors="replace")})]

    def script_answer(self, files: Files) -> str:
        """The query in one fenced block."""
        query = files.get(QUERY_FILE, b"").decode(errors="replace").strip()
        return f"The query:\n\n```{FENCE}\n{query}\n```\n"

    def _dispatch(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        if name == "schema":
            if arguments:
                return _refused(f"schema takes no arguments, got {sorted(arguments)[:5]}")
            return self._schema()
        if name in ("query", "submit"):
            problem = _sql_argument(arguments)
            if problem:
                return _refused(f"{name}: {problem}")
            if name == "submit":
                self._submitted = arguments["sql"]
                return ToolResult(output="submitted", ok=True, submitted=True)
            return self._query(arguments["sql"], sandbox)
        known = ", ".join(schema["function"]["name"] for schema in SCHEMAS)
        return _refused(f"unknown tool {name[:100]!r}; the tools are {known}")

    def _schema(self) -> ToolResult:
        text = "\n\n".join(schema_texts(source(self._visible.text), self._config.engine))
        return ToolResult(output=_bounded(text, self.limits.shown_chars), ok=True)

    def _query(self, sql: str, sandbox: Sandbox) -> ToolResult:
        gate = check_query(sql, self._config.engine)
        if isinstance(gate, Refused):
            return _refused(f"query: refused: {gate.reason}")
        config = self._config.model_copy(update={"max_rows": self.limits.max_rows})
        path = engine_file(self._task.id, self._visible, config.engine)
        files = {f"db/0{SUFFIXES[config.engine]}": engine_bytes(path)}
        limits = self._task.spec.limits
        limits = limits.model_copy(
            update={"timeout_s": min(limits.timeout_s, config.time_limit_s + 5)}
        )
        outputs = run_queries(sandbox, config, files, [sql], limits, stop_on_failure=True)
        outcome = outputs.outcome(0, 0)
        cpu = outputs.result.cpu_s
        if isinstance(outcome, Failed):
            hint = "; add a LIMIT" if outcome.kind == "rows" else ""
            return ToolResult(
                output=f"query failed: {outcome.message}{hint}", ok=False, sandbox_cpu_s=cpu
            )
        return ToolResult(output=self._render(outcome), ok=True, sandbox_cpu_s=cpu)

    def _render(self, table: Table) -> str:
        lines = [" | ".join(table.columns)]
        for row in table.rows[: self.limits.shown_rows]:
            lines.append(" | ".join(_cell(value) for value in row))
        count = len(table.rows)
        more = count - min(count, self.limits.shown_rows)
        lines.append(
            f"({count} rows" + (f", the first {self.limits.shown_rows} shown)" if more else ")")
        )
        return _bounded("\n".join(lines), self.limits.shown_chars)


def _cell(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return value.replace("\n", "\\n")[:200]
    return canonical(value)[:200]


def _bounded(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[truncated: {len(text)} characters in all]"


def _sql_argument(arguments: Mapping[str, Any]) -> str | None:
    extra = sorted(set(arguments) - {"sql"})
    if extra:
        return f"unknown arguments {extra[:5]}; it takes ['sql']"
    sql = arguments.get("sql")
    if not isinstance(sql, str):
        return "the argument 'sql' must be a string"
    if not sql.strip() or len(sql) > MAX_QUERY_CHARS:
        return f"the query must hold 1 to {MAX_QUERY_CHARS} characters"
    return None


def _refused(message: str) -> ToolResult:
    return ToolResult(output=message, ok=False)
