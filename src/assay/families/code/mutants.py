"""Mutants of a code task's reference, for the audit's mutation check (:mod:`assay.audit.mutation`).

Each mutant changes one thing in the reference's entry point, the way real mistakes do: an
arithmetic, comparison or boolean operator, a dropped ``not`` or a negated condition, a constant
off by one (a flipped bool, an emptied string), an off-by-one bound of a ``range`` or a slice, a
``return`` of None, a dropped statement. A verifier whose hidden cases let many of them pass
cannot tell the reference from near misses.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator, Set
from dataclasses import dataclass
from typing import cast

from assay._ast import ast_parse
from assay.errors import TaskFormatError
from assay.families.base import Mutant
from assay.families.code.config import code_config
from assay.tasks.model import REFERENCE, Files, Task

MAX_MUTANTS = 40
"""Mutants per task at most, spread evenly over the sites when there are more."""
DIFF_LINES = 12
"""Lines of a mutant's diff kept."""

_SWAPS: dict[type[ast.AST], type[ast.AST]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.And: ast.Or,
    ast.Or: ast.And,
}


@dataclass(frozen=True)
class _Site:
    """One mutation: the child of ``parent`` at ``field`` (and ``index`` in a list) becomes
    ``new``."""

    name: str
    parent: ast.AST
    field: str
    index: int | None
    new: ast.AST
    line: int = 0

    def apply(self, tree: ast.Module) -> str:
        """The source with this mutation; the tree is left as it was (unparsing reads no
        positions, so the new node needs none)."""
        holder = getattr(self.parent, self.field)
        old = holder[self.index] if self.index is not None else holder
        self._put(self.new)
        try:
            return ast.unparse(tree)
        finally:
            self._put(old)

    def _put(self, node: ast.AST) -> None:
        if self.index is None:
            setattr(self.parent, self.field, node)
        else:
            getattr(self.parent, self.field)[self.index] = node


def code_mutants(task: Task) -> list[Mutant]:
    """Mutants of the reference's entry point; none when there is no parseable reference."""
    try:
        entrypoint = code_config(task).entrypoint
    except TaskFormatError:
        return []
    return source_mutants(task.solutions.get(REFERENCE, {}), entrypoint)


def source_mutants(
    files: Files, path: str, lines: Set[int] | None = None, limit: int = MAX_MUTANTS
) -> list[Mutant]:
    """Mutants of the Python file ``path`` of ``files`` (each the whole ``files`` with that
    file changed), at sites on ``lines`` only when given; none when it does not parse."""
    if path not in files:
        return []
    try:
        tree = ast_parse(files[path].decode())
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return []
    original = ast.unparse(tree)
    sites = [site for site in _sites(tree) if lines is None or site.line in lines]
    if len(sites) > limit:
        step = len(sites) / limit
        sites = [sites[int(i * step)] for i in range(limit)]
    mutants = []
    seen = {original}
    for site in sites:
        mutated = site.apply(tree)
        if mutated in seen:
            continue
        seen.add(mutated)
        mutants.append(
            Mutant(
                name=site.name,
                diff=_diff(original, mutated, path),
                files={**files, path: mutated.encode()},
            )
        )
    return mutants


def _diff(original: str, mutated: str, path: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(), mutated.splitlines(), f"reference/{path}", "mutant", n=1, lineterm=""
    )
    return "\n".join(list(lines)[2 : 2 + DIFF_LINES])


def _sites(tree: ast.Module) -> Iterator[_Site]:
    """Every place one mutation applies, in the order of a walk over the tree."""
    docstrings = _docstrings(tree)
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            children = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            for index, child in children:
                if not isinstance(child, ast.AST) or id(child) in docstrings:
                    continue
                line = getattr(child, "lineno", getattr(parent, "lineno", 0))
                for name, new in _replacements(parent, field, index, child):
                    yield _Site(f"{name} (line {line})", parent, field, index, new, line)


def _replacements(
    parent: ast.AST, field: str, index: int | None, child: ast.AST
) -> Iterator[tuple[str, ast.AST]]:
    """The mutations of ``child``, given where it sits."""
    swap = _SWAPS.get(type(child))
    if swap is not None:
        yield f"{type(child).__name__} -> {swap.__name__}", swap()
    if isinstance(child, ast.UnaryOp) and isinstance(child.op, ast.Not):
        yield "dropped not", child.operand
    if isinstance(child, ast.Constant):
        yield from _constant(child)
    if isinstance(parent, ast.If | ast.While | ast.IfExp) and field == "test":
        yield "negated condition", ast.UnaryOp(op=ast.Not(), operand=cast(ast.expr, child))
    if isinstance(parent, ast.Return) and field == "value":
        yield "return None", ast.Constant(None)
    if _is_range_stop(parent, field, index):
        yield "range bound +1", _plus_one(child)
    if isinstance(parent, ast.Slice) and field in ("lower", "upper"):
        yield f"slice {field} +1", _plus_one(child)
    if index is not None and _droppable(parent, field, child):
        yield "dropped statement", ast.Pass()


def _constant(node: ast.Constant) -> Iterator[tuple[str, ast.AST]]:
    value = node.value
    new: object
    if isinstance(value, bool):
        new = not value
    elif isinstance(value, int):
        new = value + 1
    elif isinstance(value, float):
        new = value * 2 if value else 1.0
    elif isinstance(value, str) and value:
        new = ""
    else:
        return
    yield f"constant {value!r} -> {new!r}", ast.Constant(new)


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes, which no mutation touches (changing one changes nothing
    a verifier could see)."""
    found = set()
    for owner in ast.walk(tree):
        if isinstance(owner, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = owner.body[0] if owner.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.update({id(first), id(first.value)})
    return found


def _is_range_stop(parent: ast.AST, field: str, index: int | None) -> bool:
    """Whether the child is the last positional argument of a call to ``range``."""
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "range"
        and field == "args"
        and index == len(parent.args) - 1
    )


def _droppable(parent: ast.AST, field: str, child: ast.AST) -> bool:
    """A plain statement in a block of several inside a function (never at module level, where
    dropping an import or a constant only breaks the module)."""
    if isinstance(parent, ast.Module) or field not in ("body", "orelse"):
        return False
    block = getattr(parent, field)
    return len(block) > 1 and isinstance(child, ast.Assign | ast.AugAssign | ast.Expr)


def _plus_one(expression: ast.AST) -> ast.expr:
    return ast.BinOp(left=expression, op=ast.Add(), right=ast.Constant(1))  # type: ignore[arg-type]
