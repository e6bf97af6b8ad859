"""Pass-to-pass probes read from a project's own visible tests.

What the project's tests assert is what its users were promised, and a fix that breaks any of it
is a wrong fix even where the change's own cases do not look. The tests cannot judge a candidate
themselves (they run beside it, and it can rewrite them), so each call a test makes becomes a
probe that the trusted harness makes and the trusted side judges: every call, in a ``test*``
function, of a function the module imports from the project, whose arguments are written down as
literals (constants, containers, sums and products of numbers, ``[item] * n``,
``"text".encode()``, and names the module or
the test bound to such literals before). A call inside ``assertRaises`` (``with
self.assertRaises(ValueError): parse_amount("x")`` or ``self.assertRaises(ValueError,
parse_amount, "x")``) is expected to raise. A call whose arguments a helper builds is not read:
the template's own probes cover those.

The generator runs them on the reference like any probe, keeps those the workspace gets right as
pass-to-pass cases, and drops those whose outcome is not one to expect (a value when the test
expects a raise, or the other way round).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

from assay.families.repo.templates._model import Probe
from assay.tasks.model import Files

TESTS = "tests/"
_RAISES = {"assertRaises", "assertRaisesRegex"}


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_MAX_REPEAT = 1000
"""Most repeats of a list written as ``[item] * n`` that a probe takes."""


class _NotLiteralError(ValueError):
    """An argument that is not data the test writes down."""


@dataclass(frozen=True)
class VisibleProbe:
    """A call a visible test asserts on, and whether the test expects it to raise."""

    probe: Probe
    raises: bool


def visible_probes(files: Files) -> list[VisibleProbe]:
    """The probes the project's tests (``tests/*.py``) assert on, in file and line order,
    each once."""
    found: list[VisibleProbe] = []
    for path in sorted(files):
        if not (path.startswith(TESTS) and path.endswith(".py")):
            continue
        try:
            tree = ast.parse(files[path].decode("utf-8"), filename=path)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for probe in _probes(tree, _imported(tree)):
            if probe not in found:
                found.append(probe)
    return found


def _imported(tree: ast.Module) -> dict[str, str]:
    """The names imported from the project's modules, as ``package.module:name`` targets."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if "." not in node.module or node.module.startswith("unittest"):
                continue  # a project's functions live in its package's modules
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return names


def _probes(tree: ast.Module, targets: dict[str, str]) -> list[VisibleProbe]:
    """The calls of the module's test functions, each with the module's constants and the
    function's own literal assignments before it as the names it may use."""
    constants = _constants(tree.body, {})
    found: list[VisibleProbe] = []
    for node in _in_order(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            found += _in_test(node, targets, constants)
    return found


def _in_test(
    test: ast.FunctionDef, targets: dict[str, str], constants: dict[str, object]
) -> list[VisibleProbe]:
    names = _constants(test.body, dict(constants))
    raising: set[int] = set()  # the calls made inside assertRaises
    for node in ast.walk(test):
        if isinstance(node, ast.With) and any(_is_raises(item.context_expr) for item in node.items):
            raising |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    found: list[VisibleProbe] = []
    for node in _in_order(test):
        if not isinstance(node, ast.Call):
            continue
        if _is_raises(node) and isinstance(node.func, ast.Attribute) and not node.keywords:
            at = 1 if node.func.attr == "assertRaises" else 2  # after the type (and regex)
            if len(node.args) > at:
                found += _probe(node.args[at], node.args[at + 1 :], targets, names, raises=True)
        elif not node.keywords:
            found += _probe(node.func, node.args, targets, names, raises=id(node) in raising)
    return found


def _in_order(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` in the order of the source (``ast.walk`` goes level by level)."""
    nodes = [node for node in ast.walk(tree) if hasattr(node, "lineno")]
    return sorted(nodes, key=lambda node: (node.lineno, node.col_offset))  # type: ignore[attr-defined]


def _constants(body: list[ast.stmt], names: dict[str, object]) -> dict[str, object]:
    """``names`` with each ``NAME = <literal>`` of ``body`` added (the last one of a name
    wins, and one that is not a literal removes it)."""
    for statement in body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                try:
                    names[target.id] = _value(statement.value, names)
                except _NotLiteralError:
                    names.pop(target.id, None)
    return names


def _value(node: ast.expr, names: dict[str, object]) -> object:  # noqa: PLR0911 - one a kind
    """The value a literal expression writes down: constants, containers, the names of
    ``names``, a negative number, ``"text".encode()``; raises :class:`_NotLiteralError`."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.List):
        return [_value(item, names) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(item, names) for item in node.elts)
    if isinstance(node, ast.Dict) and None not in node.keys:
        keys = [_value(key, names) for key in node.keys if key is not None]
        return dict(zip(keys, (_value(item, names) for item in node.values), strict=True))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left, names), _value(node.right, names)
        if type(left) in (int, float) and type(right) in (int, float):
            return _OPERATORS[type(node.op)](left, right)
        if isinstance(node.op, ast.Mult) and type(left) is list and type(right) is int:
            return left * min(right, _MAX_REPEAT)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        number = _value(node.operand, names)
        if type(number) in (int, float):
            return -number  # type: ignore[operator]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "encode"
        and not node.args
        and not node.keywords
    ):
        text = _value(node.func.value, names)
        if isinstance(text, str):
            return text.encode()
    raise _NotLiteralError(ast.dump(node)[:80])


def _is_raises(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _RAISES
    )


def _probe(
    function: ast.expr,
    args: list[ast.expr],
    targets: dict[str, str],
    names: dict[str, object],
    *,
    raises: bool,
) -> list[VisibleProbe]:
    """The probe of one call, if it calls an imported function with literal arguments only."""
    if not isinstance(function, ast.Name) or function.id not in targets:
        return []
    try:
        values = tuple(_value(arg, names) for arg in args)
    except _NotLiteralError:
        return []
    return [VisibleProbe(Probe(call=targets[function.id], args=values), raises)]
