"""Runs a project's visible tests and writes down the calls they make into the project. Stdlib
only.

The generator copies this file into the *correct* project (never a candidate's) and calls
:func:`record` in the sandbox through the repo harness: every function of the project that a test
module imports is replaced, in its own module, by one that notes each call a test module makes
(directly, from a helper or fixture of the test module, or through ``assertRaises``) before it
passes the call on, and then the test modules are imported and their tests run from the
project's directory, as ``python -m unittest`` would. A call is noted with its arguments as
they were before the call, as positional arguments (keywords are put in their places, with the
defaults of the parameters they skip), and whether it raised. Calls the project makes into
itself are not noted, and neither are calls whose arguments are not plain data (numbers, text,
bytes, None, and lists, tuples, sets and dicts of them), that name a file in the temporary
directory, or that cannot be given positionally.
"""

import copy
import functools
import importlib
import inspect
import os
import pathlib
import sys
import tempfile
import unittest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import Any

MAX_CALLS = 400
"""Most calls noted."""
MAX_ARGUMENT_CHARS = 20_000
"""Longest ``repr`` of a call's arguments that is noted."""
MAX_DEPTH = 40
"""Deepest nesting of an argument that is noted."""
_PLAIN = (type(None), bool, int, float, str, bytes)
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_TEMPORARY = tempfile.gettempdir().rstrip(os.sep) + os.sep
_RUNNER = ("unittest", "contextlib")
"""Modules between a test and the call it makes (``assertRaises``, ``with`` blocks)."""


def record(modules: "list[str]", targets: "list[str]") -> "list[list[object]]":
    """``[target, arguments, raised]`` for each call the test ``modules`` make into one of the
    ``targets`` (``package.module:function``), in the order made, each once."""
    os.chdir(pathlib.Path(__file__).resolve().parent)
    calls: list[list[object]] = []
    tests = frozenset(modules)
    for target in targets:
        _wrap(target, tests, calls)
    suite = unittest.TestSuite()
    for module in modules:
        try:
            suite.addTests(unittest.defaultTestLoader.loadTestsFromName(module))
        except Exception:  # noqa: BLE001, S112 - a module that does not import promises nothing
            continue
    suite.run(unittest.TestResult())
    unique: dict[str, list[object]] = {}
    for call in calls:
        unique.setdefault(repr(call), call)  # repr tells True from 1 and 1.0
    return list(unique.values())


def _wrap(target: str, tests: "frozenset[str]", calls: "list[list[object]]") -> None:
    module_name, name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - the test importing it will fail the same way
        return
    function = getattr(module, name, None)
    if inspect.isfunction(function):
        setattr(module, name, _noting(function, target, tests, calls))


def _noting(
    function: "Callable[..., Any]",
    target: str,
    tests: "frozenset[str]",
    calls: "list[list[object]]",
) -> "Callable[..., Any]":
    signature = inspect.signature(function)

    @functools.wraps(function)
    def noted(*args: "Any", **kwargs: "Any") -> "Any":
        if len(calls) >= MAX_CALLS or not _from_a_test(tests):
            return function(*args, **kwargs)
        arguments = _positional(signature, args, kwargs)
        if arguments is not None and _plain(arguments, 0):
            try:
                arguments = copy.deepcopy(arguments)
            except Exception:  # noqa: BLE001 - what cannot be copied is not noted
                arguments = None
        else:
            arguments = None
        if arguments is not None and len(repr(arguments)) > MAX_ARGUMENT_CHARS:
            arguments = None
        try:
            result = function(*args, **kwargs)
        except BaseException:
            if arguments is not None:
                calls.append([target, arguments, True])
            raise
        if arguments is not None:
            calls.append([target, arguments, False])
        return result

    return noted


def _from_a_test(tests: "frozenset[str]") -> bool:
    """Whether the nearest caller outside the test runner is one of the test modules."""
    frame: FrameType | None = sys._getframe(2)  # the caller of the noting function
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name in tests:
            return True
        if not isinstance(name, str) or name.split(".")[0] not in _RUNNER:
            return False
        frame = frame.f_back
    return False


def _positional(
    signature: inspect.Signature, args: "tuple[Any, ...]", kwargs: "dict[str, Any]"
) -> "list[Any] | None":
    """The call's arguments as positional ones, or None where they cannot be."""
    if not kwargs:
        return list(args)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    parameters = [p for p in signature.parameters.values() if p.kind in _POSITIONAL]
    places = [p.name for p in parameters]
    if any(name not in places for name in kwargs):
        return None  # a keyword-only parameter, or one taken by **kwargs
    last = max(places.index(name) for name in bound.arguments if name in places)
    arguments = []
    for parameter in parameters[: last + 1]:
        if parameter.name in bound.arguments:
            arguments.append(bound.arguments[parameter.name])
        else:
            arguments.append(parameter.default)
    return arguments


def _plain(value: object, depth: int) -> bool:
    """Whether ``value`` is data the case file can hold, and not a path in the temporary
    directory (named anew on every run, and gone once the test is over)."""
    kind = type(value)
    if kind is str:
        return not value.startswith(_TEMPORARY)  # type: ignore[attr-defined]
    if kind in _PLAIN:
        return True
    if depth >= MAX_DEPTH:
        return False
    if kind in (list, tuple, set, frozenset):
        return all(_plain(item, depth + 1) for item in value)  # type: ignore[attr-defined]
    if kind is dict:
        return all(
            _plain(key, depth + 1) and _plain(item, depth + 1)
            for key, item in value.items()  # type: ignore[attr-defined]
        )
    return False
