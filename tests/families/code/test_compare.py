"""Comparison never miscompares: an int never matches a float, and no plain value makes it raise."""

from __future__ import annotations

from random import Random

from hypothesis import given
from hypothesis import strategies as st

from assay.families.code.compare import first_difference
from tests.families.code.plain import plain_values


def test_a_float_never_passes_for_an_int_whatever_the_tolerance() -> None:
    # round(a / b, 0) returns a float, wrong above 2**53; an exact task expects the int.
    assert first_difference(2**53 + 1, float(2**53)) is not None
    assert first_difference(10**12, 10**12 * (1 + 4e-10)) is not None
    assert first_difference(3, 3.0) == "$: expected int 3, got float 3.0"
    assert first_difference(3.0, 3) is not None
    found = first_difference([1, 2], [1, 2.0], tolerance=0.5)
    assert found == "$[1]: expected int 2, got float 2.0"
    assert first_difference({"n": 7}, {"n": 7.0}, unordered=True) is not None
    assert first_difference(1, True) is not None
    assert first_difference(True, 1) is not None


def test_floats_keep_their_tolerance() -> None:
    assert first_difference(0.1 + 0.2, 0.3) is None
    assert first_difference(1.0, 1.0 + 1e-6) is not None
    assert first_difference(1.0, 1.0 + 1e-6, tolerance=1e-5) is None
    assert first_difference([2.5, 1.0], [1.0, 2.5], unordered=True) is None


def test_a_huge_int_where_a_float_is_expected_is_a_difference_not_an_overflow() -> None:
    assert first_difference(1.5, 10**400) == f"$: expected float 1.5, got int {str(10**400)[:60]}"
    assert first_difference(10**400, 1.5) is not None


@given(plain_values)
def test_every_plain_value_matches_itself(value: object) -> None:
    assert first_difference(value, value) is None
    assert first_difference(value, value, unordered=True) is None


@given(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.floats(0, 1e300))
def test_an_int_and_a_float_always_differ(number: int, other: float, tolerance: float) -> None:
    assert first_difference(number, other, tolerance=tolerance) is not None
    assert first_difference(other, number, tolerance=tolerance) is not None
    assert first_difference([number], [float(number)], tolerance=tolerance) is not None


@given(plain_values, plain_values, st.booleans(), st.none() | st.floats(0, 1e300))
def test_comparing_any_two_plain_values_returns_a_result(
    expected: object, actual: object, unordered: bool, tolerance: float | None
) -> None:
    found = first_difference(expected, actual, tolerance=tolerance, unordered=unordered)
    assert found is None or isinstance(found, str)


def test_numbers_by_value_match_as_equality_has_it_and_no_looser() -> None:
    def same(expected: object, actual: object) -> bool:
        return first_difference(expected, actual, numbers_by_value=True) is None

    assert same(3, 3.0)
    assert same([1, 2], [True, 2.0])
    assert same({"a": 0}, {"a": False})
    assert not same(-9999999999999999, -9999999999999999.0)  # == across types is exact
    assert not same(3, 3.0000001)
    assert not same(1, "1")
    assert first_difference(3, 3.0) is not None  # typed by default


def test_any_container_takes_the_items_whatever_the_collection() -> None:
    """``tuple(f(x)) == ...``: a list, tuple, set or frozenset of the same items in the same
    order matches; the order, an item or a nested container's type still count."""
    expected = {"$tuple": [1, 2, 3]}
    for actual in ([1, 2, 3], {"$tuple": [1, 2, 3]}, {"$frozenset": [1, 2, 3]}):
        assert first_difference(expected, actual, encoded=True, any_container=True) is None
    assert first_difference(expected, [1, 2, 3], encoded=True) == "$: expected tuple, got list"
    assert first_difference(expected, [3, 2, 1], encoded=True, any_container=True) is not None
    assert first_difference(expected, [1, 2], encoded=True, any_container=True) is not None
    nested = {"$tuple": [{"$tuple": [1]}]}
    assert first_difference(nested, [[1]], encoded=True, any_container=True) is not None
    assert first_difference(expected, "123", encoded=True, any_container=True) is not None


def test_as_set_ignores_order_and_repeats_and_nothing_else() -> None:
    """``set(f(x)) == ...``: the items as a set."""
    expected = {"$tuple": [4, 5]}
    same = ([5, 4], [4, 5, 5, 4], {"$set": [4, 5]}, {"$tuple": [5, 4, 4]})
    for actual in same:
        found = first_difference(expected, actual, encoded=True, any_container=True, as_set=True)
        assert found is None, actual
    for actual in ([4], [4, 5, 6], [4, 5.5], {"$tuple": [4, 5, None]}):
        found = first_difference(expected, actual, encoded=True, any_container=True, as_set=True)
        assert found is not None, actual
    # typed: a tuple's items as a set, but only against a tuple
    assert first_difference(expected, {"$tuple": [5, 4, 5]}, encoded=True, as_set=True) is None
    assert first_difference(expected, [5, 4], encoded=True, as_set=True) is not None


def test_an_unordered_result_within_the_tolerance_matches_whatever_its_floats_sort_as_text() -> (
    None
):
    """Sorted as text, 2.0 comes after 10.0 and 1.9999999999999998 before it: the right
    multiset, computed another way, failed."""
    assert first_difference([2.0, 10.0], [10.0, 1.9999999999999998], unordered=True) is None
    points = [[0.3, 1], [0.3, 2]]
    assert first_difference(points, [[0.3, 2], [0.30000000000000004, 1]], unordered=True) is None
    weights = [{"w": 1.0}, {"w": 2.0}]
    assert (
        first_difference(weights, [{"w": 2.0}, {"w": 0.9999999999999999}], unordered=True) is None
    )
    # still a multiset of the same items, no looser
    assert first_difference([2.0, 10.0], [10.0, 3.0], unordered=True) is not None
    assert first_difference([2.0, 2.0, 10.0], [2.0, 10.0, 10.0], unordered=True) is not None
    assert first_difference([1, 1.0], [1.0, 1], unordered=True) is None
    assert first_difference([1, 2.0], [1.0, 2], unordered=True) is not None
    assert first_difference(points, [[0.3, 1], [0.30000000000000004, 1]], unordered=True)


@given(st.lists(st.floats(-1e6, 1e6), max_size=30), st.randoms(use_true_random=False))
def test_an_unordered_list_of_floats_matches_any_order_of_itself_nudged(
    values: list[float], random: Random
) -> None:
    nudged = [value * (1 + 1e-12) for value in values]
    random.shuffle(nudged)
    assert first_difference(values, nudged, unordered=True) is None
