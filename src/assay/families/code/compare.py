"""Trusted comparison of a candidate's output with the expected output.

Both sides are plain JSON data decoded by the trusted process, so no candidate code runs here:
an object with a rigged ``__eq__`` cannot reach this module. Types are compared strictly: ``True``
is not ``1``, and an int and a float never match, whatever their values (``2`` is not ``2.0``, and
no tolerance applies between them). Two floats match within the tolerance; a top-level list is
compared as a multiset when the task says its order does not matter. For plain data within the
bounds of :mod:`assay.families.code.records` nothing here raises.

With ``encoded`` both sides are encoded values in canonical form (case files of format 4, see
:mod:`assay.families.code._codec`): a tuple matches only a tuple, a set only a set (its members
in canonical order), and so on, as Python's ``==`` has it for these types.

With ``any_container`` (a task imported from a benchmark whose check converts the result,
``tuple(f(x)) == ...`` or ``set(f(x)) == ...``), a top-level list, tuple, set or frozenset is
taken for its items whatever its type (a set's in canonical order). With ``as_set`` (the
check compares ``set(...)``), a top-level collection's items are a set: order and repeats do
not matter.

With ``numbers_by_value`` (a task imported from a benchmark whose check compares with ``==``,
which takes ``3.0`` for ``3`` and ``True`` for ``1``), numbers of different types match when
``==`` says they are equal (exactly: the tolerance is for two floats). Members of sets and keys
of dicts are still compared as written.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

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
    encoded: bool = False,
    numbers_by_value: bool = False,
    any_container: bool = False,
    as_set: bool = False,
) -> str | None:
    """Return ``None`` when ``actual`` matches ``expected``, else where and how they differ."""
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    rules = _Rules(tol, encoded, numbers_by_value)
    if any_container or (as_set and _tag(expected, encoded) == _tag(actual, encoded)):
        expected, actual = _items(expected, encoded), _items(actual, encoded)
    if as_set and isinstance(expected, list) and isinstance(actual, list):
        expected, actual = _distinct(expected), _distinct(actual)
        unordered = True
    if unordered and _tag(expected, encoded) == _tag(actual, encoded) == "$tuple":
        return first_difference(
            expected["$tuple"],  # type: ignore[index]
            actual["$tuple"],  # type: ignore[index]
            tolerance=tolerance,
            unordered=True,
            encoded=True,
            numbers_by_value=numbers_by_value,
        )
    if unordered and isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"expected {len(expected)} items, got {len(actual)}"
        expected = sorted(expected, key=canonical)
        actual = sorted(actual, key=canonical)
    return _diff(expected, actual, "$", rules)


def _items(value: object, encoded: bool) -> object:
    """A top-level collection's items as a list (a set's in canonical order); else ``value``."""
    tag = _tag(value, encoded)
    if tag in ("$tuple", "$set", "$frozenset"):
        items = value[tag]  # type: ignore[index]
        return list(items) if isinstance(items, list) else value
    return value


def _distinct(items: list[object]) -> list[object]:
    """``items`` without repeats (by canonical form)."""
    seen: dict[str, object] = {}
    for item in items:
        seen.setdefault(canonical(item), item)
    return list(seen.values())


@dataclass(frozen=True)
class _Rules:
    tol: float
    encoded: bool
    by_value: bool


def _tag(value: object, encoded: bool) -> str | None:
    """The tag of an encoded value (``$tuple``), None for a plain one."""
    if encoded and isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if isinstance(key, str) and key.startswith("$") else None
    return None


def _diff(  # noqa: PLR0911 - one answer per kind of value
    expected: object, actual: object, path: str, rules: _Rules
) -> str | None:
    encoded = rules.encoded
    kinds = (_tag(expected, encoded), _tag(actual, encoded))
    if kinds != (None, None):
        if kinds[0] != kinds[1]:
            return f"{path}: expected {_shown(expected, encoded)}, got {_shown(actual, encoded)}"
        tag = kinds[0]
        want, got = expected[tag], actual[tag]  # type: ignore[index]
        if tag == "$dict" and isinstance(want, list) and isinstance(got, list):
            want, got = sorted(want, key=canonical), sorted(got, key=canonical)
        return _diff(want, got, f"{path}{tag}", rules)
    if (
        rules.by_value
        and _number(expected)
        and _number(actual)
        and type(expected) is not type(actual)
    ):
        # exactly as == has it across types (-9999999999999999 is not its nearest float)
        if expected != actual:
            return f"{path}: expected {_shown(expected)}, got {_shown(actual)}"
        return None
    if type(expected) is not type(actual):
        return f"{path}: expected {_shown(expected, encoded)}, got {_shown(actual, encoded)}"
    if isinstance(expected, float):
        return _diff_float(expected, actual, rules.tol, path)  # type: ignore[arg-type]
    if isinstance(expected, list):
        return _diff_list(expected, actual, path, rules)  # type: ignore[arg-type]
    if isinstance(expected, dict):
        return _diff_dict(expected, actual, path, rules)  # type: ignore[arg-type]
    if expected != actual:
        return f"{path}: expected {canonical(expected)}, got {canonical(actual)}"
    return None


def _shown(value: object, encoded: bool = False) -> str:
    """The value's type and, for a scalar, the value: ``int 2``, ``float 2.0``, ``list``,
    ``tuple``."""
    if value is None:
        return "null"
    tag = _tag(value, encoded)
    if tag is not None:
        return tag.removeprefix("$")
    kind = type(value).__name__
    if isinstance(value, list | dict):
        return kind
    return f"{kind} {canonical(value)[:60]}"


def _diff_float(expected: float, actual: float, tol: float, path: str) -> str | None:
    if math.isclose(expected, actual, rel_tol=tol, abs_tol=tol):
        return None
    return f"{path}: expected {expected!r}, got {actual!r} (tolerance {tol:g})"


def _number(value: object) -> bool:
    return isinstance(value, int | float)  # bool is an int


def _diff_list(
    expected: list[object], actual: list[object], path: str, rules: _Rules
) -> str | None:
    if len(expected) != len(actual):
        return f"{path}: expected {len(expected)} items, got {len(actual)}"
    for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
        found = _diff(want, got, f"{path}[{index}]", rules)
        if found is not None:
            return found
    return None


def _diff_dict(
    expected: dict[str, object], actual: dict[str, object], path: str, rules: _Rules
) -> str | None:
    if expected.keys() != actual.keys():
        missing = sorted(set(expected) - set(actual))
        extra = sorted(set(actual) - set(expected))
        return f"{path}: keys differ (missing {missing}, unexpected {extra})"
    for key in sorted(expected):
        found = _diff(expected[key], actual[key], f"{path}.{key}", rules)
        if found is not None:
            return found
    return None
