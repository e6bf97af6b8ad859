"""Hostile runner output: every surprise is a failure with a reason, never an exception."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from assay.families.sql.results import Failed, Table, decode_run
from assay.sandbox.protocol import ExecResult

NONCE = "@assay:0123456789abcdef:"


def run(*records: object, raw: str = "", **fields: object) -> ExecResult:
    lines = [NONCE + (r if isinstance(r, str) else json.dumps(r)) for r in records]
    data: dict[str, object] = {"exit_code": 0, "wall_s": 0.1, **fields}
    return ExecResult.model_validate({**data, "stdout": "\n".join(lines) + raw})


def decode(result: ExecResult, queries: int = 1, databases: int = 2, stop: bool = True):  # type: ignore[no-untyped-def]
    return decode_run(result, NONCE, queries, databases, max_chars=10_000, stop_on_failure=stop)


def table(q: int, d: int, rows: list[list[object]]) -> dict[str, object]:
    return {"q": q, "db": d, "columns": ["a"], "rows": rows}


def test_honest_records_are_read_in_order() -> None:
    outputs = decode(run(table(0, 0, [[1], [None]]), table(0, 1, [["x"]])))
    assert outputs.tampered is None
    assert outputs.outcome(0, 0) == Table(("a",), ([1], [None]))
    assert outputs.outcome(0, 1) == Table(("a",), (["x"],))


def test_a_failure_ends_the_run_and_the_rest_is_missing() -> None:
    failed = {"q": 0, "db": 0, "failed": {"kind": "timeout", "message": "longer than 2 s"}}
    outputs = decode(run(failed))
    assert outputs.outcome(0, 0) == Failed("timeout", "longer than 2 s")
    assert isinstance(outputs.outcome(0, 1), Failed)


def test_lines_without_the_nonce_are_ignored() -> None:
    outputs = decode(run(table(0, 0, [[1]]), table(0, 1, [[2]]), raw='\n{"q": 0, "db": 0}'))
    assert outputs.tampered is None


FORGERIES = {
    "out of order": [table(0, 1, [[1]]), table(0, 0, [[1]])],
    "repeated": [table(0, 0, [[1]]), table(0, 0, [[1]])],
    "unknown database": [table(0, 0, [[1]]), table(0, 1, [[1]]), table(0, 2, [[1]])],
    "not json": ["{not json"],
    "not an object": [[1, 2]],
    "extra field": [{**table(0, 0, [[1]]), "passed": True}],
    "bool value": [table(0, 0, [[True]])],
    "ragged row": [{"q": 0, "db": 0, "columns": ["a", "b"], "rows": [[1]]}],
    "object value": [table(0, 0, [[{"eq": "always"}]])],
    "bad bytes": [table(0, 0, [[{"bytes": "zz"}]])],
    "bad float tag": [table(0, 0, [[{"float": "1e400"}]])],
    "nan literal": [NONCE[:0] + '{"q": 0, "db": 0, "columns": ["a"], "rows": [[NaN]]}'],
    "unknown failure kind": [{"q": 0, "db": 0, "failed": {"kind": "pass", "message": ""}}],
    "string index": [{"q": "0", "db": 0, "columns": ["a"], "rows": []}],
    "record after failure": [
        {"q": 0, "db": 0, "failed": {"kind": "error", "message": "x"}},
        table(0, 1, [[1]]),
    ],
    "setup error among records": [table(0, 0, [[1]]), {"setup_error": "x"}],
    "too long": [table(0, 0, [["x" * 20_000]])],
}


def test_each_forgery_marks_the_run_tampered() -> None:
    for name, records in FORGERIES.items():
        outputs = decode(run(*records))
        assert outputs.tampered is not None, name
        outcome = outputs.outcome(0, 0)
        assert isinstance(outcome, Failed), name
        assert outcome.kind == "tampered", name


def test_missing_records_say_why() -> None:
    for fields, reason in [
        ({"timed_out": True, "exit_code": None}, "time limit"),
        ({"out_of_memory": True, "exit_code": None}, "memory limit"),
        ({"exit_code": 1}, "status 1"),
        ({"stdout_truncated": True}, "output limit"),
    ]:
        outputs = decode(run(**fields))
        outcome = outputs.outcome(0, 0)
        assert isinstance(outcome, Failed)
        assert reason in outcome.message


@given(st.text(max_size=300))
def test_any_text_decodes_without_raising(text: str) -> None:
    result = ExecResult(exit_code=0, wall_s=0.0, stdout=text.replace("@", NONCE))
    outputs = decode(result)
    for d in range(2):
        assert isinstance(outputs.outcome(0, d), (Table, Failed))
