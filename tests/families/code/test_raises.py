"""Cases that expect an exception: written by the generator, judged by type, demanded by lint."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from assay.families.code import CodeFamily
from assay.families.code.config import Case, cases_json, hidden_cases
from assay.families.code.generator import _make_task
from assay.families.code.raising import counts_as, expectable, promised_exceptions
from assay.families.code.templates import TEMPLATES
from assay.sandbox import Sandbox
from assay.tasks import Limits, Task, TaskSpec
from assay.verdicts import Status

family = CodeFamily()

REFERENCE = b"""
def parse_port(text):
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"not a port: {text!r}")
    return int(text)
"""


def _port_task(
    prompt: str = "Write parse_port(text). Raise ValueError for anything else.\n",
) -> Task:
    cases = [
        Case(id="case-0", args=["8080"], expected=8080),
        Case(id="case-1", args=["x"], raises="ValueError"),
        Case(id="case-2", args=["70000"], raises="ValueError"),
    ]
    return Task(
        spec=TaskSpec(
            id="port-1",
            family="code",
            config={"function": "parse_port"},
            limits=Limits(timeout_s=5, memory_mb=256),
        ),
        prompt=prompt,
        hidden={"cases.json": cases_json(cases)},
        solutions={"reference": {"solution.py": REFERENCE}},
    )


@pytest.mark.parametrize(
    ("body", "passed"),
    [
        ("raise ValueError('no')", True),
        ("class PortError(ValueError): pass\n    raise PortError('no')", True),
        ("int('x')", True),  # ValueError from the standard library
        ("b'\\xff'.decode()", True),  # UnicodeDecodeError is a ValueError
        ("raise TypeError('no')", False),
        ("raise KeyError('no')", False),
        ("class ValueError(Exception): pass\n    raise ValueError('fake')", False),
        ("return 0", False),
        ("return None", False),
    ],
)
def test_a_case_that_expects_an_exception_passes_only_on_that_type_or_a_subclass(
    body: str, passed: bool, sandbox: Sandbox
) -> None:
    source = f"def parse_port(text):\n    if text == '8080':\n        return 8080\n    {body}\n"
    verdict = family.verify(_port_task(), {"solution.py": source.encode()}, sandbox)
    assert [c.passed for c in verdict.criteria] == [True, passed, passed], verdict.criteria
    assert (verdict.status is Status.PASS) is passed


def test_a_raises_case_reports_what_happened(sandbox: Sandbox) -> None:
    source = b"def parse_port(text):\n    return 8080 if text == '8080' else -1\n"
    verdict = family.verify(_port_task(), {"solution.py": source}, sandbox)
    assert verdict.criteria[1].evidence == "expected ValueError to be raised, returned -1"
    assert family.verify(_port_task(), {"solution.py": REFERENCE}, sandbox).passed


def test_counting_uses_the_trusted_hierarchy_only() -> None:
    assert counts_as("ValueError", ("UnicodeDecodeError",))
    assert counts_as("LookupError", ("KeyError",))
    assert counts_as("OSError", ("FileNotFoundError",))
    assert not counts_as("ValueError", ("Exception", "BaseException"))
    assert not counts_as("ValueError", ("NotABuiltin", "object"))
    assert not counts_as("NotABuiltin", ("NotABuiltin",))


def test_a_case_may_name_several_types_any_of_which_counts() -> None:
    """``except (ValueError, TypeError)`` as a case: ``"ValueError|TypeError"``."""
    assert counts_as("ValueError|TypeError", ("TypeError", "Exception"))
    assert counts_as("ValueError|TypeError", ("UnicodeDecodeError", "ValueError"))
    assert not counts_as("ValueError|TypeError", ("KeyError", "LookupError"))
    assert expectable("ValueError|TypeError")
    assert not expectable("ValueError|NotABuiltin")
    assert not expectable("ValueError|")
    assert not expectable("ValueError|SystemExit")  # not an Exception: a case cannot expect it


def test_promised_exceptions_are_read_from_the_text() -> None:
    assert promised_exceptions("Raise ValueError for empty text.") == {"ValueError"}
    assert promised_exceptions("it raises a `KeyError` when missing") == {"KeyError"}
    assert promised_exceptions("raise MyOwnError, then raise SystemExit") == set()
    assert promised_exceptions("Return -1 on errors.") == set()


@pytest.mark.parametrize(
    ("text", "promised"),
    [
        ("Signal it by raising ValueError (or throw a TypeError).", {"ValueError", "TypeError"}),
        (
            "It throws KeyError when missing; an IndexError is thrown past the end.",
            {"KeyError", "IndexError"},
        ),
        ("A `ZeroDivisionError` is raised for zero.", {"ZeroDivisionError"}),
        ("The call fails with OverflowError.", {"OverflowError"}),
        ("It must not raise KeyError; never throws TypeError; no ValueError is raised.", set()),
        ("Return None without raising an IndexError.", set()),
    ],
)
def test_promised_exceptions_are_read_in_other_wordings(text: str, promised: set[str]) -> None:
    assert promised_exceptions(text) == promised


def test_lint_flags_an_exception_promised_by_raising_or_throw() -> None:
    task = _port_task(
        "Write parse_port(text). Signal bad text by raising ValueError (or throw a TypeError "
        "for non-text).\n"
    )
    messages = [f.message for f in family.lint(task)]
    assert messages == ["prompt.md promises TypeError but no hidden case expects it"]


def test_lint_flags_a_promised_exception_that_no_case_expects() -> None:
    task = _port_task(
        "Write parse_port(text). Raise ValueError or raise TypeError for bad input.\n"
    )
    messages = [f.message for f in family.lint(task)]
    assert messages == ["prompt.md promises TypeError but no hidden case expects it"]
    assert family.lint(_port_task()) == []


def test_every_template_whose_rules_promise_an_exception_has_cases_that_expect_it() -> None:
    for template in TEMPLATES:
        problem = template.build(random.Random(0))
        if promised_exceptions(" ".join(problem.rules)):
            assert any("never-raises" in label for label in problem.bad), template.id


def test_the_generator_writes_exception_cases_that_catch_a_solution_that_never_raises(
    sandbox: Sandbox,
) -> None:
    duration = next(t for t in TEMPLATES if t.id == "parse-duration")
    task = _make_task(duration, 0, 0, sandbox)
    raising = [case for case in hidden_cases(task) if case.raises is not None]
    assert raising
    assert {case.raises for case in raising} == {"ValueError"}
    assert json.loads(task.hidden["cases.json"])["format"] == 2
    assert family.lint(task) == []
    assert family.verify(task, task.solutions["reference"], sandbox).passed
    for label in ("bad-never-raises", "bad-raises-key-error"):
        verdict = family.verify(task, task.solutions[label], sandbox)
        assert verdict.status is Status.FAIL, label
        failed = {c.name for c in verdict.criteria if not c.passed}
        assert failed >= {case.id for case in raising}, label


def test_a_prompt_with_a_long_word_is_read_once_not_once_a_letter() -> None:
    """Read at every letter of a 300,000-letter word, the name of an exception was read to the
    word's end each time: many minutes of one core for a prompt of 300 kB. Run apart, so that a
    reading that grows with the square of the word fails here instead of hanging the suite."""
    reading = (
        "from assay.families.code.raising import promised_exceptions\n"
        "text = 'A' * 300_000 + ' raises ValueError and ' + 'Bad' * 100_000 + ' is raised'\n"
        "print(sorted(promised_exceptions(text)))\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", reading], check=False, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading a long word took more than a minute: once a letter, not once")
    assert done.stdout.split() == ["['ValueError']"], done.stderr
