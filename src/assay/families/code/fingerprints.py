"""Fingerprints of what judges a task, for the audit's set checks: a copied task with its
identifiers renamed and its prompt reworded still has the same ones.

- ``case:<digest>``, one for each hidden case: its (arguments, expected value or exception),
  canonically encoded; its id and weight left out. A copy that adds, drops or reorders a case
  still shares most of them (:mod:`assay.audit.verifier_copies` says how many make a copy). A
  task with fewer than :data:`MIN_CASES` distinct cases has none: too little to call a copy.
- ``reference:<digest>``: the reference's syntax tree with its docstrings dropped and its own
  names (functions, parameters, variables; not builtins, imports or attributes) renamed in order
  of first appearance, so that a copy with renamed variables has the same. A reference of fewer
  than :data:`MIN_STATEMENTS` statements has none: many tasks share a one-liner.

  Only a task without case fingerprints (a legacy verifier, too few cases) gets this one: the
  generator writes every task of a template variant with one reference, its names aside, and
  draws part of the cases at random, so the reference names the template, not the task (in 200
  tasks of ``assay generate code --seed 7``, 153 pairs had the same reference; only 11, of the
  one template whose cases are mostly fixed, had most of the same cases). A copy of a task
  judged by cases shares the cases.

Nothing here raises on a malformed task: what cannot be read gives no fingerprint (lint and the
reference check report it).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
from collections.abc import Iterable

from assay._ast import ast_parse
from assay.errors import TaskFormatError
from assay.families.code.casefile import hidden_cases
from assay.families.code.config import code_config
from assay.tasks.model import Task

MIN_CASES = 3
"""Distinct hidden cases from which a task's cases are fingerprinted."""
MIN_STATEMENTS = 5
"""Statements from which a reference is fingerprinted (the ``def`` counts as one)."""
_BUILTINS = frozenset(dir(builtins))
_NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)
"""The nodes that bind the name in their ``name`` field."""
_DIGEST_CHARS = 16


def code_fingerprints(task: Task) -> set[str]:
    """The fingerprints of a code task's verifier data: each of its cases', or when they are
    too few to fingerprint, each reference's."""
    found: set[str] = set()
    try:
        cases = hidden_cases(task)
        entrypoint = code_config(task).entrypoint
    except TaskFormatError:
        return found
    outcomes = [
        [case.args, {"expected": case.expected} if case.raises is None else {"raises": case.raises}]
        for case in cases
    ]
    if case_prints := case_fingerprints(outcomes):
        return case_prints
    for files in task.references().values():
        source = files.get(entrypoint)
        if source is not None and (reference := reference_fingerprint(source)) is not None:
            found.add(reference)
    return found


def case_fingerprints(cases: Iterable[object]) -> set[str]:
    """``case:<digest>`` of each of ``cases`` (each plain JSON data: the arguments and the
    outcome, never an id); none for fewer than :data:`MIN_CASES` distinct ones."""
    encoded = {
        json.dumps(case, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        for case in cases
    }
    if len(encoded) < MIN_CASES:
        return set()
    return {f"case:{_digest(text)}" for text in encoded}


def reference_fingerprint(source: bytes) -> str | None:
    """``reference:<digest>`` of the alpha-renamed syntax tree of ``source``, or None when it
    does not parse or has fewer than :data:`MIN_STATEMENTS` statements."""
    try:
        tree = ast_parse(source)
    except (SyntaxError, ValueError, RecursionError):  # ValueError: null bytes, bad UTF-8
        return None
    _drop_docstrings(tree)
    if sum(isinstance(node, ast.stmt) for node in ast.walk(tree)) < MIN_STATEMENTS:
        return None
    _alpha_rename(tree)
    return f"reference:{_digest(ast.dump(tree, annotate_fields=False))}"


def _alpha_rename(tree: ast.Module) -> None:
    """Rename the module's own names in place to ``_0``, ``_1``, ... in the order ``ast.walk``
    meets them; keep imported names and the builtins the module does not rebind."""
    kept = _imported(tree) | (_BUILTINS - _bound(tree))
    names: dict[str, str] = {}

    def renamed(name: str) -> str:
        return name if name in kept else names.setdefault(name, f"_{len(names)}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = renamed(node.id)
        elif isinstance(node, ast.arg):
            node.arg = renamed(node.arg)
        elif isinstance(node, _NAMED) and node.name is not None:
            node.name = renamed(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            node.names = [renamed(name) for name in node.names]


def _imported(tree: ast.Module) -> set[str]:
    """The names imports bind: kept, since a module's name is no variable's."""
    return {
        alias.asname or alias.name.partition(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def _bound(tree: ast.Module) -> set[str]:
    """The names the module binds itself (assigned, parameters, definitions)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, _NAMED) and node.name is not None:
            bound.add(node.name)
    return bound


def _drop_docstrings(tree: ast.Module) -> None:
    """Remove the docstring of the module and of each function and class, in place: a copy's
    may be reworded."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and _is_text(first.value):
            node.body = node.body[1:] or [ast.Pass()]


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:_DIGEST_CHARS]
