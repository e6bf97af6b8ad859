"""The edits :mod:`assay.families.workflow.mutants` makes to a reference script: for each kind,
every place it applies in a syntax tree, each as a name and a function that makes the edit."""

from __future__ import annotations

import ast
import copy
import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assay._ast import ast_parse
from assay.families.workflow.state import CloudState

_WRITES = ("put_", "send_", "delete_", "copy_", "update_", "create_", "change_", "purge_")
_APPENDS = frozenset({"send_message", "send_message_batch", "put_log_events"})
_DESTINATIONS = (
    "Bucket",
    "Key",
    "QueueUrl",
    "QueueName",
    "TableName",
    "logGroupName",
    "logStreamName",
)
_FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTH = re.compile(r"^\d{4}-\d{2}$")

Apply = Callable[[], None]
"""Makes one edit in place on the tree it was found in."""


@dataclass(frozen=True)
class Scope:
    """What the operators need to know besides the tree."""

    parameters: frozenset[int]
    """Line numbers of the parameter block's assignments."""
    initial: CloudState


def _method(node: ast.AST) -> str | None:
    """The name of the method ``node`` calls (``send_message``), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _blocks(tree: ast.Module) -> Iterator[tuple[list[ast.stmt], int, ast.stmt]]:
    """Every statement with the block that holds it and its place there."""
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list):
                for index, statement in enumerate(block):
                    if isinstance(statement, ast.stmt):
                        yield block, index, statement


def _setter(block: list[ast.stmt], index: int, new: ast.stmt) -> Apply:
    def apply() -> None:
        block[index] = new

    return apply


def skipped_calls(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    for block, index, statement in _blocks(tree):
        if isinstance(statement, ast.Expr):
            method = _method(statement.value)
            if method is not None and method.startswith(_WRITES):
                yield (
                    f"{method} left out (line {statement.lineno})",
                    _setter(block, index, ast.Pass()),
                )


def duplicate_writes(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    for block, index, statement in _blocks(tree):
        if isinstance(statement, ast.Expr) and _method(statement.value) in _APPENDS:

            def apply(block: list[ast.stmt] = block, index: int = index) -> None:
                block.insert(index + 1, copy.deepcopy(block[index]))

            yield f"{_method(statement.value)} made twice (line {statement.lineno})", apply


def dropped_filters(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            yield from _condition(node)
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for index in range(len(node.values)):
                yield (
                    f"operand {index + 1} of `and` left out (line {node.lineno})",
                    _drop_operand(node, index),
                )
        elif isinstance(node, ast.comprehension):
            for index in range(len(node.ifs)):
                yield "comprehension filter left out", _drop_if(node, index)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "Prefix" and not _empty(keyword.value):
                    yield f"listing without its prefix (line {node.lineno})", _empty_prefix(keyword)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield (
                f"`not` dropped (line {node.lineno})",
                _replace_in_parent(tree, node, node.operand),
            )


def _condition(node: ast.If) -> Iterator[tuple[str, Apply]]:
    body = node.body
    if len(body) == 1 and isinstance(body[0], ast.Break):
        return  # a loop's exit: never taking it loops until the time limit, a costly kill
    skips = len(body) == 1 and isinstance(body[0], ast.Continue | ast.Return)
    value = not skips
    what = "guard never taken" if skips else "condition always taken"

    def apply() -> None:
        node.test = ast.Constant(value)

    yield f"{what} (line {node.lineno})", apply


def _drop_operand(node: ast.BoolOp, index: int) -> Apply:
    def apply() -> None:
        del node.values[index]
        if len(node.values) == 1:
            node.values.append(ast.Constant(True))

    return apply


def _drop_if(node: ast.comprehension, index: int) -> Apply:
    def apply() -> None:
        del node.ifs[index]

    return apply


def _empty(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == ""


def _empty_prefix(keyword: ast.keyword) -> Apply:
    def apply() -> None:
        keyword.value = ast.Constant("")

    return apply


def _replace_in_parent(tree: ast.Module, old: ast.AST, new: ast.AST) -> Apply:
    def apply() -> None:
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if value is old:
                    setattr(parent, field, new)
                    return
                if isinstance(value, list) and any(item is old for item in value):
                    value[[id(item) for item in value].index(id(old))] = new
                    return

    return apply


def boundaries(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                flip = _FLIPS.get(type(op))
                if flip is not None:
                    name = f"{type(op).__name__} -> {flip.__name__} (line {node.lineno})"
                    yield name, _flip(node, index, flip)
        elif isinstance(node, ast.Subscript):
            value = _end(node.slice)
            if value is not None:
                other = -1 if value == 0 else 0
                yield f"index [{value}] -> [{other}] (line {node.lineno})", _index(node, other)


def _end(node: ast.expr) -> int | None:
    """0 or -1 when ``node`` is that literal index (the first or last entry), else None."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    return value if value in (0, -1) and type(value) is int else None


def _flip(node: ast.Compare, index: int, flip: type[ast.cmpop]) -> Apply:
    def apply() -> None:
        node.ops[index] = flip()

    return apply


def _index(node: ast.Subscript, value: int) -> Apply:
    def apply() -> None:
        node.slice = ast_parse(str(value), mode="eval").body

    return apply


def destinations(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    used: dict[str, set[str]] = {}
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    for call in calls:
        for keyword in call.keywords:
            if keyword.arg in _DESTINATIONS:
                used.setdefault(keyword.arg, set()).add(ast.unparse(keyword.value))
    for call in calls:
        method = _method(call)
        if method is None or not method.startswith(_WRITES):
            continue
        for keyword in call.keywords:
            if keyword.arg not in _DESTINATIONS:
                continue
            current = ast.unparse(keyword.value)
            shape = isinstance(keyword.value, ast.Dict)  # a table's key, not an object's
            others = sorted(
                other
                for other in used[keyword.arg] - {current}
                if isinstance(ast_parse(other, mode="eval").body, ast.Dict) is shape
            )
            if others:
                name = f"{method}({keyword.arg}={others[0]}) (line {call.lineno})"
                yield name, _set_keyword(keyword, ast_parse(others[0], mode="eval").body)


def _set_keyword(keyword: ast.keyword, value: ast.expr) -> Apply:
    def apply() -> None:
        keyword.value = value

    return apply


def parameters(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and statement.lineno in scope.parameters):
            continue
        target = ast.unparse(statement.targets[0])
        changed = _changed(statement.value)
        if changed is not None:
            what, value = changed
            yield f"{target}: {what}", _set_value(statement, value)


def _changed(node: ast.expr) -> tuple[str, ast.expr] | None:
    """A near miss of a parameter's value, and what it is."""
    if isinstance(node, ast.List) and len(node.elts) > 1:
        return "last entry dropped", ast.List(elts=node.elts[:-1], ctx=ast.Load())
    if not isinstance(node, ast.Constant):
        return None
    value = node.value
    if isinstance(value, bool):
        return f"{value} -> {not value}", ast.Constant(not value)
    if isinstance(value, int):
        return f"{value} -> {value + 1}", ast.Constant(value + 1)
    if not isinstance(value, str):
        return None
    later = _later(value)
    return None if later is None else (f"{value} -> {later[0]}", ast.Constant(later[1]))


def _later(value: str) -> tuple[str, str] | None:
    """A date or a month one step later (what it is, and the value), or None."""
    if _DAY.match(value):
        try:
            day = dt.date.fromisoformat(value) + dt.timedelta(days=1)
        except ValueError:
            return None
        return f"{day.isoformat()} (a day later)", day.isoformat()
    if _MONTH.match(value):
        year, month = int(value[:4]), int(value[5:])
        later = f"{year + month // 12}-{month % 12 + 1:02d}"
        return f"{later} (a month later)", later
    return None


def _set_value(statement: ast.Assign, value: ast.expr) -> Apply:
    def apply() -> None:
        statement.value = value

    return apply


PAGES: dict[str, tuple[str, int]] = {
    "list_objects_v2": ("bucket", 1000),
    "list_objects": ("bucket", 1000),
    "describe_log_streams": ("logs", 50),
    "receive_message": ("queue", 10),
}
"""Listing operations by name: the kind of resource they list and how many one page holds."""


def _largest(state: CloudState, kind: str) -> int:
    """The most entries one resource of ``kind`` holds in ``state``."""
    sizes = {
        "bucket": [len(objects) for objects in state.buckets.values()],
        "logs": [len(streams) for streams in state.logs.values()],
        "queue": [len(messages) for messages in state.queues.values()],
    }[kind]
    return max(sizes, default=0)


def _more_than_a_page(operation: str, scope: Scope) -> bool:
    listed = PAGES.get(operation)
    return listed is not None and _largest(scope.initial, listed[0]) > listed[1]


def first_pages(tree: ast.Module, scope: Scope) -> Iterator[tuple[str, Apply]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.comprehension):
            operation = _paginated(node.iter)
            if operation is not None and _more_than_a_page(operation, scope):
                yield f"first page of {operation} only", _first_page(node)
        elif isinstance(node, ast.While) and _loops_forever(node):
            operations = {_method(call) for call in ast.walk(node)} & set(PAGES)
            for operation in sorted(op for op in operations if op is not None):
                if _more_than_a_page(operation, scope):
                    yield f"first batch of {operation} only (line {node.lineno})", _once(node)


def _paginated(node: ast.expr) -> str | None:
    """The operation ``node`` pages through (``X.get_paginator("op").paginate(...)``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr != "paginate":
        return None
    inner = node.func.value
    if _method(inner) == "get_paginator" and isinstance(inner, ast.Call) and inner.args:
        first = inner.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def _first_page(node: ast.For | ast.comprehension) -> Apply:
    def apply() -> None:
        whole = ast.Call(func=ast.Name("list", ast.Load()), args=[node.iter], keywords=[])
        node.iter = ast.Subscript(
            value=whole, slice=ast.Slice(upper=ast.Constant(1)), ctx=ast.Load()
        )

    return apply


def _loops_forever(node: ast.While) -> bool:
    return isinstance(node.test, ast.Constant) and node.test.value is True


def _once(node: ast.While) -> Apply:
    def apply() -> None:
        node.body.append(ast.Break())

    return apply
