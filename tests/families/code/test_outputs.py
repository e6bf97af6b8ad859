"""Sandbox output is hostile bytes: the decoder never raises, and forged records win nothing."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.families.code import CodeFamily
from assay.families.code.family import run_cases
from assay.families.code.outputs import CaseOutputs, Raised, Refused, Returned, decode_outputs
from assay.families.code.records import MAX_DEPTH, NotPlainError, check_plain, parse_plain
from assay.sandbox import Sandbox
from assay.sandbox.protocol import ExecResult
from assay.tasks import Task
from assay.tasks.spec import Limits
from assay.verdicts import Status
from tests.families.code.plain import plain_values

NONCE = "@assay:0123456789abcdef:"
IDS = ["case-0", "case-1", "case-2"]


def _decode(*records: str, truncated: bool = False) -> CaseOutputs:
    stdout = "".join(f"\n{NONCE}{record}\n" for record in records)
    result = ExecResult(exit_code=0, wall_s=0.1, stdout=stdout, stdout_truncated=truncated)
    return decode_outputs(result, NONCE, IDS)


def _value(case_id: str, value: object) -> str:
    return json.dumps({"id": case_id, "value": value})


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "[1, Infinity]",
        "-Infinity",
        "1e999",
        '{"a": 1, "a": 2}',
        '"\\ud800"',
        '["ok", {"k": "\\uDFFF"}]',
        '"\\uD83D"',
        '{"\\udc00": 1}',
        "[" * 100_000 + "]" * 100_000,
        "[" * 100_000,
        "1" * 5000,
        "x" * 2_000_000,
        "",
        "{",
    ],
)
def test_text_that_is_not_plain_data_within_the_bounds_is_refused(text: str) -> None:
    with pytest.raises(NotPlainError):
        parse_plain(text)


def test_values_up_to_the_bounds_are_read() -> None:
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_plain(deep) is not None
    with pytest.raises(NotPlainError):
        parse_plain("[" + deep + "]")
    assert parse_plain("9" * 4300) == int("9" * 4300)
    assert parse_plain('{"é": [1.5, null, true, "\\u00e9"]}') == {"é": [1.5, None, True, "é"]}


_ANY_TEXT = st.text(st.characters() | st.characters(categories=["Cs"]), max_size=4)
"""Text, lone surrogates included."""


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _ANY_TEXT,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ANY_TEXT, inner, max_size=3),
        max_leaves=20,
    ),
    st.integers(min_value=1, max_value=8),
)
def test_what_is_read_without_a_walk_is_what_the_walk_accepts(value: object, depth: int) -> None:
    """Plain-looking ASCII text skips the walk over the decoded value (the decoder's hooks
    bound every number and key); any text either way gets the same answer as the walk."""
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        try:
            expected: object = json.loads(text)
            check_plain(expected, max_depth=depth)
        except (ValueError, NotPlainError):
            expected = NotPlainError
        try:
            got: object = parse_plain(text, max_depth=depth)
        except NotPlainError:
            got = NotPlainError
        assert got == expected or (got is expected)


@given(st.text())
def test_any_text_parses_or_is_refused_never_raises_anything_else(text: str) -> None:
    with contextlib.suppress(NotPlainError):
        parse_plain(text)


@given(plain_values)
def test_plain_values_round_trip(value: object) -> None:
    assert parse_plain(json.dumps(value)) == value


_record_parts = st.one_of(
    st.text(),
    plain_values.map(json.dumps),
    st.dictionaries(
        st.sampled_from(["id", "value", "raised", "error", "refused", "import_error"]),
        plain_values | st.sampled_from(IDS),
    ).map(json.dumps),
    st.builds(_value, st.sampled_from(IDS), plain_values),
)


@given(st.lists(st.tuples(st.booleans(), _record_parts), max_size=8), st.booleans())
def test_any_output_decodes_to_a_result(lines: list[tuple[bool, str]], truncated: bool) -> None:
    stdout = "\n".join((NONCE if marked else "") + text for marked, text in lines)
    result = ExecResult(exit_code=0, wall_s=0.1, stdout=stdout, stdout_truncated=truncated)
    outputs = decode_outputs(result, NONCE, IDS)
    assert isinstance(outputs, CaseOutputs)
    assert set(outputs.outcomes) <= set(IDS)


def test_honest_records_decode_to_outcomes() -> None:
    raised = {"type": "ParseError", "builtins": ["ValueError", "Exception", "BaseException"]}
    outputs = _decode(
        _value("case-0", 2),
        json.dumps({"id": "case-1", "raised": raised, "error": "ParseError: bad"}),
        json.dumps({"id": "case-2", "refused": "TypeError: set is not plain data"}),
    )
    assert outputs.tampered is None
    assert outputs.outcomes == {
        "case-0": Returned(2),
        "case-1": Raised("ParseError", tuple(raised["builtins"]), "ParseError: bad"),
        "case-2": Refused("TypeError: set is not plain data"),
    }


@pytest.mark.parametrize(
    ("records", "reason"),
    [
        ([_value("case-1", 3)], "out of order"),  # forged ahead of the call of case-1
        ([_value("case-0", 3), _value("case-0", 2)], "second record"),
        ([_value("case-0", 3), _value("case-9", 2)], "names no case"),
        (['{"id": [1], "value": 3}'], "no case id"),
        (['{"id": "case-0", "value": NaN}'], "not plain data"),
        (["[" * 100_000 + "]" * 100_000], "not plain data"),
        (['{"id": "case-0", "value": 1, "passed": true}'], "fields"),
        ([_value("case-0", 1), '{"import_error": "x"}'], "follows the end"),
        (
            ['{"id": "case-0", "raised": {"type": "E", "builtins": "ValueError"}, "error": ""}'],
            "malformed",
        ),
        (['{"import_error": 3}'], "non-string"),
    ],
)
def test_forged_or_broken_records_fail_every_case(records: list[str], reason: str) -> None:
    outputs = _decode(*records)
    assert outputs.tampered is not None
    assert reason in outputs.tampered
    assert outputs.outcomes == {}


def test_a_record_cut_by_the_output_limit_is_missing_not_forged() -> None:
    outputs = _decode(_value("case-0", 1), '{"id": "case-1", "val', truncated=True)
    assert outputs.tampered is None
    assert outputs.outcomes == {"case-0": Returned(1)}
    assert "output limit" in outputs.missing_reason()


family = CodeFamily()

STACK_NONCE = """
import sys, json, os
def _nonce():
    frame = sys._getframe()
    while frame:
        for value in frame.f_locals.values():
            if isinstance(value, dict) and "nonce" in value:
                return value["nonce"]
        frame = frame.f_back
def median(values):
    os.write(1, ("\\n" + _nonce() + PAYLOAD + "\\n").encode())
    return sorted(values)[len(values) // 2] if values else None
"""


@pytest.mark.parametrize(
    "payload",
    [
        '{"id": [1], "value": 2}',
        "[" * 100_000 + "]" * 100_000,
        '{"id": "case-0", "value": NaN}',
        '{"id": "case-4", "value": 7.5}',  # a passing record for a later case, ahead of its call
        '{"id": "case-0", "value": 2}',
    ],
)
def test_forged_records_from_inside_the_sandbox_fail_with_evidence(
    payload: str, median_task: Task, sandbox: Sandbox
) -> None:
    source = STACK_NONCE.replace("PAYLOAD", repr(payload))
    verdict = family.verify(median_task, {"solution.py": source.encode()}, sandbox)
    assert verdict.status is Status.FAIL
    assert verdict.score == 0
    assert "tampered" in verdict.criteria[0].evidence


def test_forging_a_later_case_then_dying_in_its_call_wins_nothing(
    median_task: Task, sandbox: Sandbox
) -> None:
    # case-4 expects 7.5. Its record is forged during case-0, and the real call of case-4 dies.
    source = STACK_NONCE.replace("PAYLOAD", repr('{"id": "case-4", "value": 7.5}')).replace(
        "    return sorted", "    if values == [9, 7, 8, 6]: os._exit(0)\n    return sorted"
    )
    verdict = family.verify(median_task, {"solution.py": source.encode()}, sandbox)
    assert verdict.status is Status.FAIL
    assert not any(c.passed for c in verdict.criteria if c.name == "case-4")


def test_a_huge_int_where_a_float_is_expected_fails_without_a_traceback(
    median_task: Task, sandbox: Sandbox
) -> None:
    source = b"def median(values):\n    return 10**400 if len(values) == 4 else 0\n"
    verdict = family.verify(median_task, {"solution.py": source}, sandbox)
    assert verdict.status is Status.FAIL
    assert "expected float 2.5, got int 1000" in verdict.criteria[1].evidence


@pytest.mark.parametrize(
    ("returned", "evidence"),
    [
        ("10**5000", "Exceeds the limit"),
        ("eval('[' * 150 + ']' * 150)", "nested more than 100 deep"),
        ("'x' * 2_000_000", "longer than"),
        ("['PASSED'] * 200_000", "longer than"),  # told from the lengths, never written
        ("['x'] * 199_999 + [1]", "longer than"),  # written, item by item
        ("['a', 'b\\ud800', 'c']", "surrogate"),
        ("['a', 1, 'b\\ud800']", "surrogate"),
        ("[1, True, None, float('inf')]", "not finite"),
        ("'\\ud800'", "surrogate"),
        ("{'\\udc80': 1}", "surrogate"),
        ("float('nan')", "not finite"),
        ("{1: 2}", "keys must be str"),
    ],
)
def test_results_beyond_the_bounds_fail_the_case(
    returned: str, evidence: str, median_task: Task, sandbox: Sandbox
) -> None:
    source = f"def median(values):\n    return {returned}\n".encode()
    verdict = family.verify(median_task, {"solution.py": source}, sandbox)
    assert verdict.status is Status.FAIL
    assert evidence in verdict.criteria[0].evidence, verdict.criteria[0].evidence


@pytest.mark.parametrize(
    "returned",
    ["list(range(50_000))", "['ab'] * 100_000", "[True, None, 3] * 1000", "('é',) * 1000", "[]"],
)
def test_long_lists_of_one_simple_kind_within_the_bounds_come_back_whole(
    returned: str, sandbox: Sandbox
) -> None:
    """Lists of one simple kind are checked at once in the sandbox (the lengths of strings
    tell a record too long before it is written); within the bounds they are values."""
    outputs = run_cases(
        sandbox,
        workspace={},
        solution={"solution.py": f"def f():\n    return {returned}\n".encode()},
        function="f",
        entrypoint="solution.py",
        cases=[("only", [])],
        limits=Limits(timeout_s=10, cpu_s=10, max_output_kb=4096),
    )
    assert outputs.outcomes["only"] == Returned(list(eval(returned)))  # noqa: S307 - ours


@pytest.mark.parametrize(("max_output_kb", "calls_after_the_limit"), [(1, False), (64, True)])
def test_the_harness_calls_no_case_once_its_records_pass_the_output_limit(
    max_output_kb: int, calls_after_the_limit: bool, sandbox: Sandbox
) -> None:
    """Past the output limit nothing more of stdout is read, so the harness stops calling:
    the second call here would end the process with status 7, and does only where the first
    answer fits."""
    source = (
        "import os\n"
        "CALLS = []\n"
        "def f():\n"
        "    CALLS.append(1)\n"
        "    if len(CALLS) > 1:\n"
        "        os._exit(7)\n"
        "    return 'x' * 2000\n"
    )
    outputs = run_cases(
        sandbox,
        workspace={},
        solution={"solution.py": source.encode()},
        function="f",
        entrypoint="solution.py",
        cases=[("first", []), ("second", []), ("third", [])],
        limits=Limits(timeout_s=10, cpu_s=10, max_output_kb=max_output_kb),
    )
    assert outputs.result.stdout_truncated is not calls_after_the_limit
    assert outputs.result.exit_code == (7 if calls_after_the_limit else 0)
    if calls_after_the_limit:
        assert outputs.outcomes == {"first": Returned("x" * 2000)}
    else:
        assert outputs.outcomes == {}
        assert "output limit" in outputs.missing_reason()
