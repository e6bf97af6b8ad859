"""Case files of format 4: values JSON cannot hold round-trip exactly, and are judged by type."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assay.errors import TaskFormatError
from assay.families.code import CodeFamily
from assay.families.code._codec import EncodingError, decode, encode, normalize
from assay.families.code.casefile import ENCODED, Case, cases_json, hidden_case_file
from assay.families.code.compare import first_difference
from assay.sandbox import Sandbox
from assay.tasks import Task, TaskSpec
from assay.verdicts import Status

_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary()
_hashable = st.recursive(
    _scalars.filter(lambda v: not (isinstance(v, float) and math.isnan(v))),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
    max_leaves=8,
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.sets(_hashable, max_size=4)
        | st.frozensets(_hashable, max_size=4)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        | st.dictionaries(_hashable, inner, max_size=3)
    ),
    max_leaves=20,
)


def _same(a: object, b: object) -> bool:
    """Equal and of the same types all the way down (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b  # type: ignore[arg-type]
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)  # type: ignore[call-overload,index]
    return a == b


@given(_values)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # nested values; busy CI
def test_every_value_round_trips_through_json_exactly(value: object) -> None:
    text = json.dumps(encode(value), allow_nan=False)
    assert _same(decode(json.loads(text)), value)
    assert normalize(json.loads(text)) == encode(value)


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ((1, "a"), {"$tuple": [1, "a"]}),
        ({3, 1, 2}, {"$set": [1, 2, 3]}),
        (frozenset({"b"}), {"$frozenset": ["b"]}),
        ({2: "x", 1: "y"}, {"$dict": [[2, "x"], [1, "y"]]}),
        ({"$ref": 1}, {"$dict": [["$ref", 1]]}),
        (math.inf, {"$float": "inf"}),
        (b"\x00\xff", {"$bytes": "AP8="}),
        ({"a": [(1,)]}, {"a": [{"$tuple": [1]}]}),
    ],
)
def test_the_documented_encodings(value: object, encoded: object) -> None:
    assert encode(value) == encoded
    assert _same(decode(encoded), value)


def test_subclasses_and_other_objects_are_not_encoded() -> None:
    class Sneaky(int):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = int.__hash__

    with pytest.raises(EncodingError, match=r"\$\[1\]: Sneaky cannot be encoded"):
        encode([1, Sneaky(2)])
    with pytest.raises(EncodingError, match="object cannot be encoded"):
        encode(object())


@pytest.mark.parametrize(
    ("expected", "actual", "difference"),
    [
        ((1, 2), [1, 2], "$: expected tuple, got list"),
        ([1, 2], (1, 2), "$: expected list, got tuple"),
        # == takes a set for the frozenset of its members, as the original checks do
        ({1, 2}, frozenset({1, 2}), None),
        ({"k": frozenset({(1, 2)})}, {"k": {(1, 2)}}, None),
        ({1, 2}, frozenset({1, 3}), "$$set[1]: expected 2, got 3"),
        ({1, 2}, (1, 2), "$: expected set, got tuple"),
        ({1: "a", 2: "b"}, {2: "b", 1: "a"}, None),
        ({1: "a"}, {"1": "a"}, "$: expected dict, got dict"),
        ((0.1 + 0.2, 1), (0.3, 1), None),
        ((1, 2), (1, 2.0), "$$tuple[1]: expected int 2, got float 2.0"),
        (math.inf, 1e308, "$: expected float, got float 1e+308"),
        (math.nan, math.nan, None),
    ],
)
def test_encoded_values_are_compared_as_python_types(
    expected: object, actual: object, difference: str | None
) -> None:
    found = first_difference(encode(expected), normalize(encode(actual)), encoded=True)
    assert found == difference


def _task(cases: list[Case], source: str) -> Task:
    return Task(
        spec=TaskSpec(id="pairs", family="code", config={"function": "pairs"}),
        prompt="Write pairs(values) in solution.py.",
        hidden={"cases.json": cases_json(cases, min_format=ENCODED)},
        solutions={"reference": {"solution.py": source.encode()}},
    )


@pytest.mark.sandbox
def test_a_list_where_a_tuple_is_expected_fails_as_humaneval_would(sandbox: Sandbox) -> None:
    cases = [
        Case(id="t", args=[[3, 1]], expected=encode((1, 3))),
        Case(id="s", args=[encode({2: (1,)})], expected=encode({frozenset({1})})),
        Case(id="f", args=[[{"$float": "-inf"}]], expected=encode((-math.inf, -math.inf))),
    ]
    right = (
        "def pairs(v):\n"
        "    if isinstance(v, dict):\n"
        "        return {frozenset(x) for x in v.values()}\n"
        "    return tuple(sorted(v)) if v[0] != float('-inf') else (v[0], v[0])\n"
    )
    task = _task(cases, right)
    verdict = CodeFamily().verify(task, task.solutions["reference"], sandbox)
    assert verdict.status is Status.PASS, verdict.summary
    as_list = right.replace("return tuple(sorted(v))", "return sorted(v)")
    verdict = CodeFamily().verify(task, {"solution.py": as_list.encode()}, sandbox)
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert failed == {"t": "$: expected tuple, got list"}


@pytest.mark.sandbox
def test_a_set_of_floats_within_the_tolerance_passes_whatever_order_its_texts_sort_in(
    sandbox: Sandbox,
) -> None:
    """As text, 2.0 sorts after 10.0 and 1.9999999999999998 before it: the members were paired
    in that order, 10.0 with 1.9999999999999998, and a right set computed another way failed."""
    cases = [Case(id="s", args=[[0.2] * 10], expected=encode({2.0, 10.0}))]
    task = _task(cases, "def pairs(v):\n    return {2.0, 10.0}\n")
    summed = {"solution.py": b"def pairs(v):\n    return {sum(v), 10.0}\n"}  # 1.9999999999999998
    verdict = CodeFamily().verify(task, summed, sandbox)
    assert verdict.status is Status.PASS, verdict.summary
    off = {"solution.py": b"def pairs(v):\n    return {sum(v) + 1e-6, 10.0}\n"}
    verdict = CodeFamily().verify(task, off, sandbox)
    assert verdict.status is Status.FAIL, verdict.summary


@given(st.sets(st.floats(-1e6, 1e6), max_size=30))
def test_a_set_of_floats_matches_itself_nudged(values: set[float]) -> None:
    nudged = {value * (1 + 1e-12) for value in values}
    assume(len(nudged) == len(values))
    assert first_difference(encode(values), encode(nudged), encoded=True) is None
    assert first_difference(encode(frozenset(values)), encode(nudged), encoded=True) is None


@pytest.mark.sandbox
def test_older_case_files_still_read_a_tuple_result_as_a_list(sandbox: Sandbox) -> None:
    task = _task([Case(id="t", args=[[3, 1]], expected=[1, 3])], "def pairs(v):\n    return 0\n")
    old = task.model_copy(update={"hidden": {"cases.json": cases_json(list(_cases(task)))}})
    verdict = CodeFamily().verify(
        old, {"solution.py": b"def pairs(v):\n    return (1, 3)\n"}, sandbox
    )
    assert verdict.status is Status.PASS, verdict.summary


def _cases(task: Task) -> tuple[Case, ...]:
    found = hidden_case_file(task)
    assert found is not None
    return found.cases


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"$tuple": 3},
            "pairs/hidden/cases.json: cases[0].expected: not a valid encoded value: $: $tuple "
            "holds a list",
        ),
        ({"$tup": [1]}, "cases[0].expected: not a valid encoded value: $: unknown tag '$tup'"),
        ({"$set": [[1]]}, "a member of $set is a list, dict or set (unhashable)"),
        ({"$float": "big"}, '$float is "inf", "-inf" or "nan"'),
        ({"$bytes": "***"}, "$bytes holds base64 text"),
        ({"$dict": [[1, 2, 3]]}, "a $dict item is a [key, value] pair"),
    ],
)
def test_a_bad_encoded_value_is_one_line_naming_file_field_and_fix(
    value: object, message: str
) -> None:
    raw = json.dumps({"format": 4, "cases": [{"id": "a", "args": [], "expected": value}]})
    task = _task([Case(id="a", args=[], expected=1)], "")
    task = task.model_copy(update={"hidden": {"cases.json": raw.encode()}})
    with pytest.raises(TaskFormatError) as raised:
        hidden_case_file(task)
    text = str(raised.value)
    assert message in text
    assert "\n" not in text
    assert '(write a tuple as {"$tuple": [...]}' in text


def test_format_3_files_keep_dollar_keys_as_plain_dicts() -> None:
    raw = json.dumps({"format": 3, "cases": [{"id": "a", "args": [], "expected": {"$x": 1}}]})
    task = _task([Case(id="a", args=[], expected=1)], "")
    task = task.model_copy(update={"hidden": {"cases.json": raw.encode()}})
    found = hidden_case_file(task)
    assert found is not None
    assert not found.encoded
    assert found.cases[0].expected == {"$x": 1}


def test_example_needs_format_4_and_is_written_with_it() -> None:
    raw = cases_json([Case(id="a", args=[1], expected=2, example=True)])
    assert json.loads(raw)["format"] == 4
    bad = json.dumps(
        {"format": 3, "cases": [{"id": "a", "args": [], "expected": 1, "example": True}]}
    )
    task = _task([Case(id="a", args=[], expected=1)], "")
    with pytest.raises(TaskFormatError, match='example needs "format": 4'):
        hidden_case_file(task.model_copy(update={"hidden": {"cases.json": bad.encode()}}))
