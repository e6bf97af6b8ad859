"""Denotation comparison: multisets of rows, columns as a permutation, order only where the
reference orders, ties, tolerance, NULLs."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from assay.families.sql.compare import Ordering, _Matcher, difference, tied_rows
from assay.families.sql.results import Table


def table(columns: str, *rows: list[object]) -> Table:
    return Table(tuple(columns.split()), tuple(rows))


def diff(expected: Table, actual: Table, ordering: Ordering | None = None) -> str | None:
    return difference(expected, actual, tolerance=1e-6, ordering=ordering)


REVENUE = table("category revenue", ["coffee", 161.5], ["equipment", 134.0], ["tea", 31.6])


def test_row_order_does_not_matter_without_order_by() -> None:
    shuffled = table("category revenue", ["tea", 31.6], ["coffee", 161.5], ["equipment", 134.0])
    assert diff(REVENUE, shuffled) is None


def test_columns_match_as_a_permutation_whatever_their_names() -> None:
    swapped = table("r c", [134.0, "equipment"], [31.6, "tea"], [161.5, "coffee"])
    assert diff(REVENUE, swapped) is None


def test_rows_are_a_multiset_duplicates_count() -> None:
    once = table("city", ["Oslo"], ["Lyon"])
    twice = table("city", ["Oslo"], ["Lyon"], ["Oslo"])
    found = diff(once, twice)
    assert found is not None
    assert "expected 2 rows, got 3" in found
    assert '["Oslo"]' in found


def test_a_missing_and_an_unexpected_row_are_shown() -> None:
    found = diff(REVENUE, table("c r", ["coffee", 161.5], ["equipment", 134.0], ["tea", 31.7]))
    assert found is not None
    assert 'missing ["tea",31.6]' in found
    assert 'unexpected ["tea",31.7]' in found


def test_numbers_compare_within_the_tolerance_ints_and_floats_alike() -> None:
    close = table("c r", ["coffee", 161.50000001], ["equipment", 134], ["tea", 31.6])
    assert diff(REVENUE, close) is None
    assert diff(table("n", [2]), table("n", [2.0])) is None
    assert diff(table("n", [2]), table("n", [2.001])) is not None


def test_two_ints_match_only_when_equal_whatever_the_tolerance() -> None:
    """Engines compute ints exactly: a count or a sum of ints off by one is wrong however large
    it is (the relative tolerance would let 2,000,001 pass for 2,000,000)."""
    assert diff(table("n", [2_000_000]), table("n", [2_000_001])) is not None
    assert diff(table("c n", ["a", 2_000_000]), table("n c", [2_000_001, "a"])) is not None
    assert diff(table("n", [2_000_000]), table("n", [2_000_000.5])) is None  # a float is rounded
    assert diff(table("n", [2_000_000]), table("n", [2_000_000])) is None
    ids = [[2_000_000 + i, "x"] for i in range(3000)]  # past the row-by-row pairing
    shuffled = ids[::-1]
    assert diff(Table(("id", "t"), tuple(ids)), Table(("id", "t"), tuple(shuffled))) is None


def test_a_row_in_a_limit_cut_tie_is_one_of_the_tied_rows_within_the_tolerance() -> None:
    """Rows of the last group are looked up among the tied ones value by value: rounded to
    the tolerance's digits, 1.000004 and 1.0 (or 2,000,003 and 2,000,001) look alike."""
    top = Ordering(keys=(0,), limit=1)
    tied = [[10, 1.0], [10, 2.0]]
    for wrong in (1.000004, 3.0):
        found = difference(
            table("total x", [10, 1.0]),
            table("total x", [10, wrong]),
            tolerance=1e-6,
            ordering=top,
            tied=tied,
        )
        assert found is not None
    assert "past the tolerance" in (
        difference(
            table("total x", [10, 1.0]),
            table("total x", [10, 1.000004]),
            tolerance=1e-6,
            ordering=top,
            tied=tied,
        )
        or ""
    )
    ids = [[10, 2_000_001], [10, 2_000_002]]
    right, wrong_id = table("total id", [10, 2_000_002]), table("total id", [10, 2_000_003])
    expected = table("total id", [10, 2_000_001])
    assert difference(expected, right, tolerance=1e-6, ordering=top, tied=ids) is None
    assert difference(expected, wrong_id, tolerance=1e-6, ordering=top, tied=ids) is not None


def test_text_is_not_a_number_and_null_matches_only_null() -> None:
    assert diff(table("n", [2]), table("n", ["2"])) is not None
    assert diff(table("n", [None]), table("n", [None])) is None
    assert diff(table("n", [None]), table("n", [0])) is not None
    assert diff(table("n", [None]), table("n", [""])) is not None


def test_column_count_must_match() -> None:
    found = diff(REVENUE, table("category", ["coffee"], ["equipment"], ["tea"]))
    assert found is not None
    assert "expected 2 columns" in found


ORDERED = Ordering(keys=(1,), limit=None)


def test_order_matters_where_the_reference_orders() -> None:
    ascending = table("c r", ["tea", 31.6], ["equipment", 134.0], ["coffee", 161.5])
    found = diff(REVENUE, ascending, ORDERED)
    assert found is not None
    assert "another order" in found
    assert diff(REVENUE, REVENUE, ORDERED) is None


def test_ties_in_the_ordering_key_may_come_in_any_order() -> None:
    expected = table("name total", ["a", 3], ["b", 2], ["c", 2], ["d", 1])
    tied = table("name total", ["a", 3], ["c", 2], ["b", 2], ["d", 1])
    assert diff(expected, tied, ORDERED) is None
    wrong = table("name total", ["a", 3], ["c", 2], ["d", 1], ["b", 2])
    assert diff(expected, wrong, ORDERED) is not None


def test_a_limit_cutting_a_tie_lets_any_tied_row_in() -> None:
    expected = table("name total", ["a", 3], ["b", 2])
    tied = (["b", 2], ["c", 2])  # the rows with total 2 past the LIMIT
    other_tied = table("name total", ["a", 3], ["c", 2])
    assert difference(expected, other_tied, **LIMITED, tied=tied) is None
    assert diff(expected, other_tied, Ordering(keys=(1,), limit=2)) is None  # ties not known
    assert diff(expected, table("name total", ["a", 3], ["c", 1]), Ordering((1,), 2)) is not None
    assert diff(expected, other_tied, Ordering(keys=(1,), limit=None)) is not None


LIMITED = {"tolerance": 1e-6, "ordering": Ordering(keys=(1,), limit=2)}


def test_a_limit_lets_in_only_rows_that_tie_not_any_value_with_the_right_key() -> None:
    """``ORDER BY total DESC LIMIT 1``: a query with the right top total and any name at all
    passed, the other columns of the last group being never compared."""
    expected = table("name total", ["a", 3], ["b", 2])
    tied = (["b", 2], ["c", 2])
    invented = table("name total", ["a", 3], ["zzz", 2])
    assert difference(expected, invented, **LIMITED, tied=tied) is not None
    twice = table("name total", ["a", 3], ["c", 2], ["c", 2])
    three = table("name total", ["a", 3], ["b", 2], ["c", 2])
    assert difference(three, twice, **LIMITED, tied=tied) is not None  # one tied row, twice
    one = table("name price", ["Burr grinder", 89.0])
    top = {"tolerance": 1e-6, "ordering": Ordering(keys=(1,), limit=1)}
    anything = table("name price", ["anything", 89.0])
    assert difference(one, anything, **top, tied=(["Burr grinder", 89.0],)) is not None
    assert difference(one, one, **top, tied=(["Burr grinder", 89.0],)) is None


def test_the_tied_rows_are_those_past_the_limit_with_the_last_key() -> None:
    expected = table("name total", ["a", 3], ["b", 2])
    lifted = table("name total", ["a", 3], ["b", 2], ["c", 2], ["d", 1])
    order = Ordering(keys=(1,), limit=2)
    assert tied_rows(expected, lifted, order, tolerance=1e-6, read=1002) == (["b", 2], ["c", 2])
    # what was read stops inside the tie: more rows may tie, so none are known
    assert (
        tied_rows(
            expected,
            lifted.__class__(lifted.columns, lifted.rows[:3]),
            order,
            tolerance=1e-6,
            read=3,
        )
        is None
    )
    # the LIMIT cut nothing: fewer rows than it allows
    assert tied_rows(table("name total", ["a", 3]), lifted, order, tolerance=1e-6, read=9) is None
    # the raised run does not hold the reference's own last rows: not to be trusted
    other = table("name total", ["a", 3], ["c", 2], ["d", 1])
    assert tied_rows(expected, other, order, tolerance=1e-6, read=1002) is None


def test_tagged_values_compare_by_value() -> None:
    blob = {"bytes": "00ff"}
    assert diff(table("b", [blob]), table("b", [{"bytes": "00ff"}])) is None
    assert diff(table("b", [blob]), table("b", [{"bytes": "00fe"}])) is not None
    nan = {"float": "nan"}
    assert diff(table("x", [nan]), table("x", [{"float": "nan"}])) is None


def test_evidence_is_bounded() -> None:
    wide = ["x" * 10_000] * 3
    found = diff(table("a b c", wide), table("a b c", ["y" * 10_000] * 3))
    assert found is not None
    assert len(found) < 1000


values = st.one_of(
    st.none(),
    st.integers(-1000, 1000),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.text(max_size=5),
)


@given(
    st.integers(1, 4).flatmap(
        lambda width: st.lists(st.lists(values, min_size=width, max_size=width), max_size=12)
    ),
    st.randoms(use_true_random=False),
)
def test_a_result_matches_itself_shuffled_by_rows_and_columns(
    rows: list[list[object]], rng: random.Random
) -> None:
    width = len(rows[0]) if rows else 2
    expected = Table(tuple(f"c{i}" for i in range(width)), tuple(rows))
    permutation = list(range(width))
    rng.shuffle(permutation)
    shuffled = [[row[i] for i in permutation] for row in rows]
    rng.shuffle(shuffled)
    actual = Table(tuple(f"d{i}" for i in range(width)), tuple(shuffled))
    assert diff(expected, actual) is None


@given(st.lists(st.lists(values, min_size=2, max_size=2), min_size=1, max_size=10))
def test_dropping_a_row_never_matches(rows: list[list[object]]) -> None:
    expected = Table(("a", "b"), tuple(rows))
    assert diff(expected, Table(("a", "b"), tuple(rows[1:]))) is not None


tagged = st.one_of(
    st.builds(lambda h: {"bytes": h}, st.text("0123456789abcdef", max_size=6)),
    st.sampled_from([{"float": "nan"}, {"float": "inf"}, {"float": "-inf"}]),
    st.lists(values, max_size=3),
)


@given(st.lists(st.one_of(values, tagged), min_size=1, max_size=6), st.randoms())
def test_rows_equal_in_python_are_equal_value_by_value(
    row: list[object], rng: random.Random
) -> None:
    """The shortcut for identical results (``==`` on the rows) accepts nothing that the
    value-by-value comparison would refuse: ints given as floats, tagged values, lists."""
    other = [float(v) if type(v) is int and rng.random() < 0.5 else v for v in row]
    assert row == other
    assert _Matcher(1e-6).same_row(row, other)
    assert diff(Table(("a",) * len(row), (row,)), Table(("b",) * len(row), (other,))) is None


def test_columns_in_another_order_match_where_a_sum_rounds_the_other_way() -> None:
    """Two sums of the same amounts in another order differ in their last bit, which can put
    them on either side of the tolerance's rounding (12345.65 to 6 digits): a correct query
    with its columns in another order still matches."""
    expected = table("region total", ["north", 12345.65], ["south", 1.0])
    assert f"{12345.65:.6g}" != f"{12345.650000000001:.6g}"
    swapped = table("total region", [12345.650000000001, "north"], [1.0, "south"])
    assert diff(expected, swapped) is None
    wrong = table("total region", [12346.65, "north"], [1.0, "south"])
    assert diff(expected, wrong) is not None
