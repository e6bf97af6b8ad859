"""``ast.parse`` for threads: CPython 3.11 keeps the depth of the tree it is turning into
Python objects in state every thread shares, and two threads parsing at once can fail with
``SystemError: AST constructor recursion depth mismatch`` (seen importing HumanEval on a thread
pool). Every parse in assay goes through :func:`ast_parse`, one at a time."""

from __future__ import annotations

import ast
import threading
from typing import Any

_PARSING = threading.Lock()


def ast_parse(
    source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **options: Any
) -> Any:
    """:func:`ast.parse`, one thread at a time."""
    with _PARSING:
        return ast.parse(source, filename, mode, **options)
