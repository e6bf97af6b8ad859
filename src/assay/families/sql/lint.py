"""Static checks of a sql task: settings, databases that build, neighbours present and alike,
references that are read-only queries, known-bad queries present, nothing hidden shown."""

from __future__ import annotations

import re

from sqlglot import exp

from assay.errors import TaskFormatError
from assay.families._leaks import hidden_copies_rewritten
from assay.families._tolerance import loose_tolerance
from assay.families.sql.config import QUERY_FILE, SqlConfig, sql_config
from assay.families.sql.databases import Database, engine_file, source, suite
from assay.families.sql.gate import Refused, check_query, database_statements
from assay.families.sql.ordering import unmapped_keys
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"


def lint_sql_task(task: Task) -> list[Finding]:
    """Findings about the sql-family parts of ``task``; empty when it is sound."""
    try:
        config = sql_config(task)
        databases = suite(task, config)
    except TaskFormatError as exc:
        return [_finding(str(exc))]
    findings = _loose_tolerance(config)
    for database in databases:
        try:
            engine_file(task.id, database, config.engine)
        except TaskFormatError as exc:
            findings.append(_finding(str(exc)))
    if len(databases) < 2:
        findings.append(
            _finding(
                "hidden/databases/ holds no neighbour database: the visible one alone cannot tell "
                "a right query from one that is right only on its data",
                "generate neighbours (assay.families.sql.neighbours.write_neighbours)",
            )
        )
    findings += _schemas_differ(task.id, databases, config)
    findings += [f for database in databases for f in _moving_rows(database, config)]
    findings += _queries(task, config)
    findings += _timing(task, config, len(databases))
    findings += _shown(task)
    return findings


def _queries(task: Task, config: SqlConfig) -> list[Finding]:
    findings = []
    references = task.references()
    if not references:
        findings.append(_finding(f"solutions/reference/{QUERY_FILE} does not exist"))
    for name, files in sorted(task.solutions.items()):
        if QUERY_FILE not in files:
            findings.append(_finding(f"solutions/{name} has no {QUERY_FILE}"))
            continue
        if name not in references:
            continue
        try:
            text = files[QUERY_FILE].decode("utf-8-sig")  # the verifier reads it so
        except UnicodeDecodeError:
            findings.append(
                _finding(f"solutions/{name}/{QUERY_FILE} is not UTF-8 text", "save it as UTF-8")
            )
            continue
        gate = check_query(text, config.engine)
        if isinstance(gate, Refused):
            findings.append(_finding(f"solutions/{name}/{QUERY_FILE}: {gate.reason}"))
            continue
        tree = gate.tree
        if tree.args.get("limit") is not None and tree.args.get("order") is None:
            findings.append(
                _finding(
                    f"solutions/{name}/{QUERY_FILE} has LIMIT without ORDER BY: which rows it "
                    "returns is the engine's choice",
                    severity=Severity.WARNING,
                )
            )
        moving = sorted({m.group(0).upper() for m in _MOVING.finditer(tree.sql())})
        if moving:
            findings.append(
                Finding(
                    check=CHECK,
                    severity=Severity.WARNING,
                    message=f"solutions/{name}/{QUERY_FILE} depends on the clock or on chance "
                    f"({', '.join(moving)}): its answer, and so every verdict, can change from "
                    "one day or run to the next",
                    evidence="compare with fixed dates and no random() in the reference",
                    review=True,
                )
            )
        ordered = tree.args.get("order") is not None and tree.args.get("limit") is None
        if ordered and config.order == "unordered":
            findings.append(
                Finding(
                    check=CHECK,
                    severity=Severity.WARNING,
                    message=f"solutions/{name}/{QUERY_FILE} sorts its rows (ORDER BY) but the "
                    'task compares them in any order (order = "unordered"): an order the '
                    "prompt asks for is not checked",
                    evidence='set order = "auto", or drop the ORDER BY if no order is asked',
                    review=True,
                )
            )
        unmapped = unmapped_keys(tree)
        if unmapped and config.order == "auto":
            findings.append(
                _finding(
                    f"solutions/{name}/{QUERY_FILE} orders by {', '.join(unmapped)[:80]}, which "
                    "is not among its output columns: order is checked only up to that key",
                    "select the ordering key too",
                    severity=Severity.WARNING,
                )
            )
    return findings


_MOVING = re.compile(
    r"'now'|\bcurrent_(?:date|time|timestamp)\b|\blocaltime(?:stamp)?\b"
    r"|\b(?:now|random|rand|randomblob|today|uuid|uuidv\d|get_current_timestamp"
    r"|transaction_timestamp)\s*\("
    r"|\b(?:date|time|datetime|julianday|unixepoch)\s*\(\s*\)",  # SQLite's: now, when bare
    re.IGNORECASE,
)
"""What makes a query's answer depend on when or how often it runs."""


def _loose_tolerance(config: SqlConfig) -> list[Finding]:
    """A float tolerance looser than :mod:`assay.families._tolerance` takes: a wrong number
    that close to the reference's passes. A person decides (an estimate may rightly be that
    rough)."""
    return loose_tolerance(config.float_tolerance, check=CHECK, kind="number", table="sql")


def _moving_rows(database: Database, config: SqlConfig) -> list[Finding]:
    """A column default that reads the clock or chance (``DEFAULT random()``,
    ``CURRENT_TIMESTAMP``) filled in by an INSERT that leaves the column out, and a view that
    reads them: the database is another on each machine that builds it, and the reference's
    answers with it. A person decides whether the answers depend on those values."""
    statements = database_statements(source(database.text), config.engine)
    if isinstance(statements, str):
        return []  # already reported by the build
    moving: dict[tuple[str, str], str] = {}  # (table, column): its default
    reasons: dict[str, None] = {}
    for statement in statements:
        if isinstance(statement, exp.Create) and isinstance(statement.this, exp.Schema):
            table = statement.this.this.name.lower()
            for column in statement.this.expressions:
                default = _moving_default(column)
                if default:
                    moving[(table, column.name.lower())] = default
        elif isinstance(statement, exp.Create) and isinstance(statement.expression, exp.Query):
            words = _moving_words(statement.expression.sql())
            if words:
                reasons[f"view {statement.this.name} reads {words}"] = None
        elif isinstance(statement, exp.Insert) and isinstance(statement.this, exp.Schema):
            table = statement.this.this.name.lower()
            given = {c.name.lower() for c in statement.this.expressions}
            for (owner, column), default in moving.items():
                if owner == table and column not in given:
                    reasons[f"{table}.{column} is left to DEFAULT {default}"] = None
    if not reasons:
        return []
    return [
        Finding(
            check=CHECK,
            severity=Severity.WARNING,
            review=True,
            message=f"{database.name} is not the same database on each build: "
            f"{'; '.join(reasons)[:300]}: the reference's answers, and so every verdict, can "
            "change from one machine or day to the next",
            evidence="give every row its value in the INSERT, and no random() or clock in a view",
        )
    ]


def _moving_default(column: exp.Expr) -> str:
    """The column's default as SQL text when it reads the clock or chance, else ''."""
    if not isinstance(column, exp.ColumnDef):
        return ""
    for constraint in column.constraints:
        if isinstance(constraint.kind, exp.DefaultColumnConstraint):
            text: str = constraint.kind.this.sql()
            if _moving_words(text):
                return text[:80]
    return ""


def _moving_words(text: str) -> str:
    """What in ``text`` reads the clock or chance, e.g. ``CURRENT_TIMESTAMP, RAND()``."""
    words = {m.group(0).upper() for m in _MOVING.finditer(text)}
    return ", ".join(sorted(w.rstrip(" (") + "()" if w.endswith("(") else w for w in words))


def _schemas_differ(task_id: str, databases: list[Database], config: SqlConfig) -> list[Finding]:
    """Every neighbour must declare the same tables, columns and constraints as the visible one."""
    schemas = []
    for database in databases:
        statements = database_statements(source(database.text), config.engine)
        if isinstance(statements, str):
            return []  # already reported by the build
        creates = [s.sql(comments=False) for s in statements if isinstance(s, exp.Create)]
        schemas.append((database.name, creates))
    if not schemas:
        return []
    visible_name, visible = schemas[0]
    return [
        _finding(
            f"{name} declares another schema than {visible_name}",
            "neighbours keep the visible database's CREATE statements and change only rows",
        )
        for name, creates in schemas[1:]
        if creates != visible
    ]


def _timing(task: Task, config: SqlConfig, count: int) -> list[Finding]:
    worst = config.time_limit_s * count
    if worst < task.spec.limits.timeout_s:
        return []
    return [
        _finding(
            f"sql.time_limit_s x {count} databases is {worst:g} s, not below limits.timeout_s "
            f"({task.spec.limits.timeout_s:g} s): a slow query is cut by the sandbox before "
            "its own limit says which database it was",
            "lower sql.time_limit_s or raise limits.timeout_s",
            severity=Severity.WARNING,
        )
    ]


def _shown(task: Task) -> list[Finding]:
    hidden = {data: path for path, data in task.hidden.items() if data.strip()}
    findings = [
        _finding(f"workspace/{path} is a copy of hidden/{hidden[data]}")
        for path, data in task.workspace.items()
        if data in hidden
    ]
    findings += [
        _finding(f"workspace/{path} is {name} written another way")
        for path, name in hidden_copies_rewritten(task, solutions=True)
    ]
    visible = task.prompt + "".join(d.decode(errors="replace") for d in task.workspace.values())
    for name, files in task.references().items():
        query = files.get(QUERY_FILE, b"").decode(errors="replace").strip()
        if len(query) >= 30 and query in visible:
            findings.append(_finding(f"solutions/{name}/{QUERY_FILE} is shown to the agent"))
    return findings


def _finding(message: str, fix: str = "", *, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(check=CHECK, severity=severity, message=message, evidence=fix[:300])
