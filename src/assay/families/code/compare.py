"""Trusted comparison of a candidate's output with the expected output.

Both sides are plain JSON data decoded by the trusted process, so no candidate code runs here:
an object with a rigged ``__eq__`` cannot reach this module. Types are compared strictly: ``True``
is not ``1``, and an int and a float never match, whatever their values (``2`` is not ``2.0``, and
no tolerance applies between them). Two floats match within the tolerance; a top-level list is
compared as a multiset when the task says its order does not matter. For plain data within the
bounds of :mod:`assay.families.code.records` nothing here raises. A multiset's items are sorted
with numbers by value before they are compared in turn (as text, ``1.9999999999999998`` sorts
before ``10.0`` and ``2.0`` after it), and matched pair by pair where their floats still
reorder them.

With ``encoded`` both sides are encoded values in canonical form (case files of format 4, see
:mod:`assay.families.code._codec`): a tuple matches only a tuple, a set or frozenset only a set
or frozenset (its members matched as a multiset's items are, floats within the tolerance), and
so on, as Python's ``==`` has it for these types.

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
    if any_container or (as_set and _kind(expected, encoded) == _kind(actual, encoded)):
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
        expected = sorted(expected, key=_order)
        actual = sorted(actual, key=_order)
        found = _diff(expected, actual, "$", rules)
        if found is None or len(expected) > MATCHED_ITEMS or not _matched(expected, actual, rules):
            return found
        return None
    return _diff(expected, actual, "$", rules)


MATCHED_ITEMS = 200
"""Most items of a multiset matched pair by pair when sorting them did not line them up."""


def _order(value: object) -> tuple[object, str]:
    """A sort key under which numbers go by value, and equal keys are equal values: two
    multisets within the tolerance of each other line up sorted, where their texts would not
    (``2.0`` sorts after ``10.0`` as text, and ``1.9999999999999998`` before it)."""
    return _rank(value), canonical(value)


def _rank(value: object) -> tuple[object, ...]:
    if isinstance(value, bool) or value is None:
        return (0, value is True)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, list):
        return (3, tuple(_rank(item) for item in value))
    if isinstance(value, dict):
        return (4, tuple((key, _rank(value[key])) for key in sorted(value)))
    return (5, canonical(value))


def _matched(expected: list[object], actual: list[object], rules: _Rules) -> bool:
    """Whether each expected item matches an actual item of its own (within the tolerance),
    taken greedily: for items whose floats reorder them (``[[0.3, 1], [0.3, 2]]`` and
    ``[[0.30000000000000004, 1], [0.3, 2]]``). It never matches what does not match, and costs
    at most :data:`MATCHED_ITEMS` walks of the expected value."""
    left = list(actual)
    for want in expected:
        for index, got in enumerate(left):
            if _diff(want, got, "$", rules) is None:
                del left[index]
                break
        else:
            return False
    return True


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


def _kind(value: object, encoded: bool) -> str | None:
    """The tag of an encoded value as ``==`` sees it: a set equals a frozenset of its members."""
    tag = _tag(value, encoded)
    return "$set" if tag == "$frozenset" else tag


def _diff(  # noqa: PLR0911 - one answer per kind of value
    expected: object, actual: object, path: str, rules: _Rules
) -> str | None:
    encoded = rules.encoded
    tags = (_tag(expected, encoded), _tag(actual, encoded))
    if tags != (None, None):
        if _kind(expected, encoded) != _kind(actual, encoded):
            return f"{path}: expected {_shown(expected, encoded)}, got {_shown(actual, encoded)}"
        tag = tags[0]
        want, got = expected[tag], actual[tags[1]]  # type: ignore[index]
        if tag == "$dict" and isinstance(want, list) and isinstance(got, list):
            want, got = sorted(want, key=canonical), sorted(got, key=canonical)
        elif tag in ("$set", "$frozenset") and isinstance(want, list) and isinstance(got, list):
            return _diff_members(want, got, f"{path}{tag}", rules)
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


def _diff_members(
    expected: list[object], actual: list[object], path: str, rules: _Rules
) -> str | None:
    """The members of two sets, as a multiset: sorted with numbers by value, then matched
    pair by pair where floats within the tolerance still reorder them (as text, ``2.0`` sorts
    after ``10.0`` and ``1.9999999999999998`` before it: in that order the sets' members were
    paired wrongly, and a set within the tolerance failed)."""
    if len(expected) != len(actual):
        return f"{path}: expected {len(expected)} items, got {len(actual)}"
    expected, actual = sorted(expected, key=_order), sorted(actual, key=_order)
    found = _diff_list(expected, actual, path, rules)
    if found is None or len(expected) > MATCHED_ITEMS or not _matched(expected, actual, rules):
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
