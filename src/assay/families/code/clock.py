"""Calls that read the wall clock, found in a module's source with :mod:`ast`.

The audit's flaky check runs a task again under other seeds, locales and case orders, but never
at another date: a reference whose answers depend on the day (``if date.today() < ...``) passes
today and fails, or turns every verdict around, later. Calls are found through the names the
module gives them: ``import datetime as dt`` then ``dt.date.today()``, ``from time import time``
then ``time()``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from assay._ast import ast_parse

CLOCK_CALLS = frozenset(
    {
        "datetime.date.today",
        "datetime.datetime.today",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "time.time",
        "time.time_ns",
    }
)
"""Calls that read the clock whatever their arguments."""
CLOCK_WITHOUT_ARGUMENTS = frozenset({"time.localtime", "time.gmtime", "time.ctime", "time.asctime"})
"""Calls that read the clock when given no time to convert."""
CLOCK_WITH_ONE_ARGUMENT = frozenset({"time.strftime"})
"""Calls that read the clock when given only a format."""


@dataclass(frozen=True)
class ClockRead:
    """One call that reads the clock."""

    line: int
    call: str
    """The call as the source writes it: ``datetime.date.today()``."""


def clock_reads(source: str) -> list[ClockRead]:
    """The calls in ``source`` that read the wall clock, in the order they are written; none
    when it does not parse (the audit's own run reports that)."""
    try:
        tree = ast_parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = _imported_names(tree)
    reads = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _qualified(node.func, names)
        given = len(node.args) + len(node.keywords)
        if (
            called in CLOCK_CALLS
            or (called in CLOCK_WITHOUT_ARGUMENTS and not given)
            or (called in CLOCK_WITH_ONE_ARGUMENT and given == 1)
        ):
            written = ast.get_source_segment(source, node) or f"{called}()"
            reads.append(ClockRead(line=node.lineno, call=written))
    return sorted(reads, key=lambda read: read.line)


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """What each name the module imports stands for: ``dt`` -> ``datetime``, ``date`` ->
    ``datetime.date``."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _qualified(node: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name an expression such as ``dt.date.today`` stands for, through the module's
    imports; ``None`` for anything else (a name the module did not import included)."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in names:
        return None
    return ".".join([names[node.id], *reversed(attributes)])
