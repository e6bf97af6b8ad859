"""A task's checker is task code: it runs in a sandbox of its own, never in assay's process."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import TaskFormatError
from assay.families.code import CodeFamily
from assay.sandbox import Sandbox
from assay.verdicts import Status
from tests.conftest import REFERENCE, make_median_task, with_checker

family = CodeFamily()


def _verify(checker: bytes, source: bytes, sandbox: Sandbox):  # type: ignore[no-untyped-def]
    task = with_checker(make_median_task(), checker)
    return family.verify(task, {"solution.py": source}, sandbox)


def test_the_checker_cannot_touch_the_host(tmp_path: Path, sandbox: Sandbox) -> None:
    marker = tmp_path / "checker-ran-here"
    checker = (
        f"open({str(marker)!r}, 'w').write('host')\n"
        "def check(args, output, expected):\n    return output == expected\n"
    ).encode()
    # The open() fails in the sandbox (no such directory there), so the checker does not load.
    with pytest.raises(TaskFormatError, match="checker does not load: FileNotFoundError"):
        _verify(checker, REFERENCE, sandbox)
    assert not marker.exists()


def test_the_checker_sees_plain_data_and_nothing_of_the_candidate(sandbox: Sandbox) -> None:
    checker = b"""
import gc, os
def check(args, output, expected):
    seen = [o for o in gc.get_objects() if isinstance(o, dict) and "entrypoint" in o]
    plain = type(output) in (int, float, type(None))
    return not seen and not os.path.exists("solution.py") and plain
"""
    assert _verify(checker, REFERENCE, sandbox).status is Status.PASS


@pytest.mark.parametrize(
    ("output", "evidence"),
    [
        ("[1, 2]", "the task's checker raised: TypeError"),
        ("'two'", "the task's checker raised: TypeError"),
    ],
)
def test_a_checker_that_raises_on_ill_typed_output_fails_the_case(
    output: str, evidence: str, sandbox: Sandbox
) -> None:
    checker = b"def check(args, output, expected):\n    return abs(output - expected) < 1\n"
    verdict = _verify(checker, f"def median(values):\n    return {output}\n".encode(), sandbox)
    assert verdict.status is Status.FAIL
    assert evidence in verdict.criteria[0].evidence


def test_a_checker_that_returns_a_non_bool_fails_the_case_with_evidence(sandbox: Sandbox) -> None:
    checker = b"def check(args, output, expected):\n    return output\n"
    verdict = _verify(checker, REFERENCE, sandbox)
    assert verdict.status is Status.FAIL
    assert "the task's checker returned int, not a bool" in verdict.criteria[0].evidence


def test_a_checker_stopped_by_a_candidates_output_fails_the_case(sandbox: Sandbox) -> None:
    checker = (
        b"import os\ndef check(args, output, expected):\n"
        b"    if output == 'stop':\n        os._exit(3)\n    return output == expected\n"
    )
    verdict = _verify(checker, b"def median(values):\n    return 'stop'\n", sandbox)
    assert verdict.status is Status.FAIL
    assert "the task's checker gave no verdict on this output (it ended with status 3" in (
        verdict.criteria[0].evidence
    )


def test_a_checker_that_never_answers_even_on_the_expected_outputs_is_an_error(
    sandbox: Sandbox,
) -> None:
    checker = b"import os\ndef check(args, output, expected):\n    os._exit(3)\n"
    verdict = _verify(checker, REFERENCE, sandbox)  # recorded, not raised
    assert verdict.status is Status.ERROR
    assert "no verdict on the task's own expected outputs" in verdict.summary


@pytest.mark.parametrize(
    ("checker", "message"),
    [
        (b"def check(args, output, expected) return 1\n", "checker does not compile"),
        (b"def judge(args, output, expected):\n    return True\n", "defines no check"),
        (b"def check(output):\n    return True\n", "fewer than 3 arguments"),
    ],
)
def test_a_checker_that_cannot_work_is_a_task_problem(checker: bytes, message: str) -> None:
    task = with_checker(make_median_task(), checker)
    assert [message in f.message for f in family.lint(task)] == [True]


def test_a_checker_that_does_not_load_is_a_task_format_error(sandbox: Sandbox) -> None:
    checker = (
        b"import numpy_that_is_not_there\ndef check(args, output, expected):\n    return True\n"
    )
    loads = r"median-1/hidden/checker\.py: checker does not load"
    with pytest.raises(TaskFormatError, match=loads):
        _verify(checker, REFERENCE, sandbox)


def test_the_checker_harness_is_trusted_code_for_warm_workers() -> None:
    # the cases', the checker's and the legacy harness, and the audit's batches of the first
    assert len(family.trusted_code) == 4
    assert all("Stdlib only" in code for code in family.trusted_code)
