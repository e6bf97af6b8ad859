"""Trusted comparison of a candidate's output with the expected output.

Both sides are plain JSON data decoded by the trusted process, so no candidate code runs here:
an object with a rigged ``__eq__`` cannot reach this module. Types are compared strictly: ``True``
is not ``1``, and an int and a float never match, whatever their values (``2`` is not ``2.0``, and
no tolerance applies between them). Two floats match within the tolerance; a top-level list is
compared as a multiset when the task says its order does not matter. For plain data within the
bounds of :mod:`assay.families.code.records` nothing here raises.
"""

from __future__ import annotations

import json
import math

DEFAULT_TOLERANCE = 1e-9


def canonical(value: object) -> str:
    """A stable text form of plain data, used for sorting and for evidence."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def first_difference(
    expected: object,
    actual: object,
    *,
    tolerance: float | None = None,
    unordered: bool = False,
) -> str | None:
    """Return ``None`` when ``actual`` matches ``expected``, else where and how they differ."""
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    if unordered and isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"expected {len(expected)} items, got {len(actual)}"
        return _diff(sorted(expected, key=canonical), sorted(actual, key=canonical), tol, "$")
    return _diff(expected, actual, tol, "$")


def _diff(expected: object, actual: object, tol: float, path: str) -> str | None:
    if type(expected) is not type(actual):
        return f"{path}: expected {_shown(expected)}, got {_shown(actual)}"
    if isinstance(expected, float):
        return _diff_float(expected, actual, tol, path)  # type: ignore[arg-type]
    if isinstance(expected, list):
        return _diff_list(expected, actual, tol, path)  # type: ignore[arg-type]
    if isinstance(expected, dict):
        return _diff_dict(expected, actual, tol, path)  # type: ignore[arg-type]
    if expected != actual:
        return f"{path}: expected {canonical(expected)}, got {canonical(actual)}"
    return None


def _shown(value: object) -> str:
    """The value's type and, for a scalar, the value: ``int 2``, ``float 2.0``, ``list``."""
    if value is None:
        return "null"
    kind = type(value).__name__
    if isinstance(value, list | dict):
        return kind
    return f"{kind} {canonical(value)[:60]}"


def _diff_float(expected: float, actual: float, tol: float, path: str) -> str | None:
    if math.isclose(expected, actual, rel_tol=tol, abs_tol=tol):
        return None
    return f"{path}: expected {expected!r}, got {actual!r} (tolerance {tol:g})"


def _diff_list(expected: list[object], actual: list[object], tol: float, path: str) -> str | None:
    if len(expected) != len(actual):
        return f"{path}: expected {len(expected)} items, got {len(actual)}"
    for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
        found = _diff(want, got, tol, f"{path}[{index}]")
        if found is not None:
            return found
    return None


def _diff_dict(
    expected: dict[str, object], actual: dict[str, object], tol: float, path: str
) -> str | None:
    if expected.keys() != actual.keys():
        missing = sorted(set(expected) - set(actual))
        extra = sorted(set(actual) - set(expected))
        return f"{path}: keys differ (missing {missing}, unexpected {extra})"
    for key in sorted(expected):
        found = _diff(expected[key], actual[key], tol, f"{path}.{key}")
        if found is not None:
            return found
    return None
