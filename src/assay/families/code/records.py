"""Plain data read out of hostile text: sandbox output, and the task's own case file.

Whatever a sandbox prints is hostile bytes, and so is a task file. :func:`parse_plain` turns text
into plain JSON data (``None``, ``bool``, ``int``, ``float``, ``str``, ``list``, ``dict`` with
``str`` keys) within fixed bounds, and raises :class:`NotPlainError` for anything else. It never
raises anything else, whatever the text. The bounds:

- a record line holds at most :data:`MAX_RECORD_CHARS` characters;
- lists and objects nest at most :data:`MAX_DEPTH` deep (the harness refuses deeper results);
- an integer has at most :data:`MAX_INT_DIGITS` digits (Python's own default for ``int(str)``);
- ``NaN``, ``Infinity`` and numbers too large for a float (``1e999``) are refused, as are
  objects that repeat a key and strings holding lone surrogates (they are not text and could not
  be stored or printed).
"""

from __future__ import annotations

import json
import math
import re

MAX_RECORD_CHARS = 1_000_000
"""Longest record line the trusted side reads; the harness refuses longer results."""
MAX_DEPTH = 100
"""Deepest nesting of lists and objects in one value."""
MAX_INT_DIGITS = 4300
"""Most digits of one integer."""
_INT_BOUND = 10**MAX_INT_DIGITS
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape of a surrogate, the only way an ASCII text holds one (a pair is two)."""


class NotPlainError(ValueError):
    """The text is not plain JSON data within the bounds; the message says which bound."""


def parse_plain(
    text: str, *, max_chars: int = MAX_RECORD_CHARS, max_depth: int = MAX_DEPTH
) -> object:
    """The plain value ``text`` encodes; raises :class:`NotPlainError` and nothing else."""
    if len(text) > max_chars:
        raise NotPlainError(f"{len(text)} characters, more than the limit of {max_chars}")
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise NotPlainError(f"nested more than {max_depth} deep") from None
    except ValueError as exc:  # JSONDecodeError and the bounds below
        raise NotPlainError(str(exc).splitlines()[0][:200]) from None
    if not _surely_plain(text, max_depth):
        check_plain(value, max_depth=max_depth)
    return value


def _surely_plain(text: str, max_depth: int) -> bool:
    """Whether what the decoder made of ``text`` is plain within the bounds without a walk:
    its hooks refuse every number and key out of bounds, and the text (ASCII, as the harnesses
    write it) escapes no surrogate and opens fewer lists and objects than ``max_depth``."""
    return (
        text.isascii()
        and _SURROGATE_ESCAPE.search(text) is None
        and text.count("[") + text.count("{") < max_depth
    )


def check_plain(value: object, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`NotPlainError` unless ``value`` is plain data within the bounds.

    Iterative, so that no value can exhaust the interpreter's stack.
    """
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        kind = type(item)
        if kind is str:
            _check_text(item)  # type: ignore[arg-type]
        elif kind is list or kind is dict:
            if depth >= max_depth:
                raise NotPlainError(f"nested more than {max_depth} deep")
            if kind is dict:
                for key in item:  # type: ignore[attr-defined]
                    if type(key) is not str:
                        raise NotPlainError("object keys must be strings")
                    _check_text(key)
                item = list(item.values())  # type: ignore[attr-defined]
            pending.extend((child, depth + 1) for child in item)  # type: ignore[attr-defined]
        elif kind is int:
            if abs(item) >= _INT_BOUND:  # type: ignore[arg-type]
                raise NotPlainError(f"an integer has more than {MAX_INT_DIGITS} digits")
        elif kind is float:
            if not math.isfinite(item):  # type: ignore[arg-type]
                raise NotPlainError("a float is not finite")
        elif item is not None and kind is not bool:
            raise NotPlainError(f"{kind.__name__} is not plain data")


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise NotPlainError("a string holds a lone surrogate, which is not text") from None


def _refuse_constant(name: str) -> object:
    raise NotPlainError(f"{name} is not a number")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NotPlainError(f"{text[:40]} is too large for a float")
    return number


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise NotPlainError(f"an integer has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise NotPlainError("an object repeats a key")
    return result


_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant,
    parse_float=_finite_float,
    parse_int=_bounded_int,
    object_pairs_hook=_unique_keys,
)
