"""Mutants of a workflow task's reference script, for the audit's mutation check.

Each mutant is the reference with one edit of its syntax tree, the way scripts against cloud APIs
go wrong:

- ``skipped-call``: a call that changes the cloud (``put_``, ``send_``, ``delete_``, ``copy_``,
  ``update_``, ``create_``, ``change_``...) left out: a step of the workflow skipped;
- ``duplicate-write``: a call that appends (a message sent, log events put) made twice;
- ``dropped-filter``: a guard that skips entries (``if ...: continue``) never taken, another
  condition always taken, one operand of an ``and`` or one ``if`` of a comprehension left out,
  a ``not`` dropped, or a listing's ``Prefix=`` emptied (the whole bucket touched);
- ``boundary``: a comparison off by one or turned around (``<`` and ``<=``, ``==`` and ``!=``,
  ``in`` and ``not in``), an index taken from the other end (``[-1]`` and ``[0]``);
- ``destination``: a bucket, key, queue, table or log stream of a write replaced by another one
  the script uses for that argument (a wrong routing);
- ``parameter``: a value of the script's parameter block changed: a date moved by one day or
  month, a number by one, a flag flipped, the last entry of a list (a routing table, a suffix
  list) dropped;
- ``first-page``: a paginated listing, or a loop receiving batches, cut after its first page;
  made only when the initial state holds more of that resource than one page returns, since
  otherwise the cut is equivalent to the reference on this task.

A mutant that is one of the task's other references (another reading it accepts) is not made.
A verifier that lets many of them pass cannot tell the reference from near misses. Some
mutants are equivalent to the reference on the task's data (a dropped filter that no entry
trips), so survivors are shown for a person to judge.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Iterator

from assay._ast import ast_parse
from assay.errors import TaskFormatError
from assay.families.base import Mutant
from assay.families.workflow import _edits
from assay.families.workflow._edits import Apply, Scope
from assay.families.workflow.config import SCRIPT, initial_state, workflow_config
from assay.families.workflow.templates._base import BEGIN, END
from assay.tasks.model import REFERENCE, Task

MAX_MUTANTS = 12
"""Mutants per task at most, taken in turn from each kind so that every kind is represented.
Each costs a run of the script against an emulator, which is what bounds the audit's time."""
DIFF_LINES = 12
"""Lines of a mutant's diff kept."""


def workflow_mutants(task: Task) -> list[Mutant]:
    """Mutants of ``task``'s reference script; none when the task or its script cannot be read
    (lint and the reference check report that)."""
    files = task.solutions.get(REFERENCE, {})
    try:
        initial = initial_state(task, workflow_config(task))
        source = files[SCRIPT].decode()
        tree = ast_parse(source)
    except (TaskFormatError, KeyError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return []
    scope = Scope(_parameter_lines(source), initial)
    original = ast.unparse(tree)
    mutants: list[Mutant] = []
    seen = {original, *_other_references(task)}
    for kind, index in _chosen(tree, scope):
        fresh = ast_parse(source)
        name, apply = list(OPERATORS[kind](fresh, scope))[index]
        apply()
        mutated = ast.unparse(ast.fix_missing_locations(fresh))
        if mutated in seen:
            continue
        seen.add(mutated)
        mutants.append(
            Mutant(
                name=f"{kind}: {name}",
                diff=_diff(original, mutated),
                files={**files, SCRIPT: (mutated + "\n").encode()},
            )
        )
    return mutants


def _other_references(task: Task) -> set[str]:
    """The task's other references (its other readings), as the mutants are written: a mutant
    that is one of them is a right answer, not a near miss (``day < CUTOFF`` made
    ``day <= CUTOFF`` where reading the cutoff day as included is accepted too)."""
    found = set()
    for name, files in task.references().items():
        if name == REFERENCE or SCRIPT not in files:
            continue
        try:
            found.add(ast.unparse(ast_parse(files[SCRIPT].decode())))
        except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
            continue
    return found


def _chosen(tree: ast.Module, scope: Scope) -> list[tuple[str, int]]:
    """Up to :data:`MAX_MUTANTS` (kind, index) pairs, one of each kind in turn."""
    queues = {kind: list(range(len(list(find(tree, scope))))) for kind, find in OPERATORS.items()}
    chosen: list[tuple[str, int]] = []
    while len(chosen) < MAX_MUTANTS and any(queues.values()):
        for kind, left in queues.items():
            if left and len(chosen) < MAX_MUTANTS:
                chosen.append((kind, left.pop(0)))
    return chosen


def _parameter_lines(source: str) -> frozenset[int]:
    head, found, rest = source.partition(BEGIN)
    if not found:
        return frozenset()
    first = head.count("\n") + 2
    block = rest.partition(END)[0]
    return frozenset(range(first, first + block.count("\n")))


def _diff(original: str, mutated: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(),
        mutated.splitlines(),
        f"reference/{SCRIPT}",
        "mutant",
        n=1,
        lineterm="",
    )
    return "\n".join(list(lines)[2 : 2 + DIFF_LINES])


Operator = Callable[[ast.Module, Scope], Iterator[tuple[str, Apply]]]
OPERATORS: dict[str, Operator] = {
    "skipped-call": _edits.skipped_calls,
    "destination": _edits.destinations,
    "dropped-filter": _edits.dropped_filters,
    "boundary": _edits.boundaries,
    "parameter": _edits.parameters,
    "duplicate-write": _edits.duplicate_writes,
    "first-page": _edits.first_pages,
}
"""The kinds of mutation, in the order their mutants are taken."""
