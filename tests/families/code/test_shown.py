"""Calls of the function a text shows, read as Python: however the call is written, the same
arguments are the same case."""

from __future__ import annotations

from assay.families.code.shown import argument_key, shown_arguments, shows
from tests.families.code.work import lines_run

REFERENCE = "def split_words(text, sep=' '):\n    return text.split(sep)\n"


def test_a_call_is_read_whatever_its_quotes_spacing_and_lines() -> None:
    prompt = (
        ">>> split_words(\"Hello, (world)!\")\nsplit_words( 'a b' ,\n    sep = ',' ) == ['a b']\n"
    )
    assert shows(prompt, "split_words", ["Hello, (world)!"], REFERENCE)
    assert shows(prompt, "split_words", ["a b", ","], REFERENCE)
    assert not shows(prompt, "split_words", ["a b"], REFERENCE)  # the keyword is an argument


def test_format_4_tells_a_tuple_from_a_list_but_numbers_match_by_value() -> None:
    prompt = "f((1, 2)) and f(3.0)"
    assert shows(prompt, "f", [(1, 2)], "def f(x): ...")
    assert not shows(prompt, "f", [[1, 2]], "def f(x): ...")
    assert shows(prompt, "f", [3], "def f(x): ...")
    assert not shows("f(True)", "f", [1], "def f(x): ...")


def test_older_formats_hold_a_shown_tuple_as_a_list() -> None:
    shown = shown_arguments("f((1, 2))", "f", ("x",), encoded=False)
    assert argument_key([[1, 2]], encoded=False, case_file=True) in shown


def test_a_keyword_is_bound_only_by_a_known_signature() -> None:
    assert not shows("f(x=1)", "f", [1], "no definition of f here")
    assert not shows("f(y=1)", "f", [1], "def f(x, y=0): ...")  # x left to no one
    assert not shows("f(*[1])", "f", [1], "def f(x): ...")


def test_a_string_argument_may_hold_a_closing_parenthesis() -> None:
    assert shows("f(')') and f('x)y', 2)", "f", [")"], "def f(x, y=0): ...")
    assert shows("f(')') and f('x)y', 2)", "f", ["x)y", 2], "def f(x, y=0): ...")
    assert not shows("f('(')", "f", ["("], "def f(x): ...")  # read as never closed


def _lines_run(text: str) -> int:
    """The lines of :mod:`assay.families.code.shown` that reading ``text`` runs: the work the
    read does, counted instead of timed."""
    return lines_run(lambda: shown_arguments(text, "f", ("x",), encoded=True))


def test_reading_grows_with_the_text_not_with_its_square() -> None:
    # Calls that never close, nested without end: each was read to the end of a window of
    # 10,000 characters, one character at a time, so 20 KB of them took seconds and the
    # largest prompt a task may have took hours.
    for unit in ("f(", "f(f(1)"):
        small, large = _lines_run(unit * 500), _lines_run(unit * 4000)
        assert large < 10 * small, (unit, small, large)
