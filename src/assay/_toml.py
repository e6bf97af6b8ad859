"""TOML read from files assay did not write (task files, imported benchmarks, price tables),
with a bound that the standard library's parser lacks.

The parser's work grows with the square of a dotted key's parts: some 60 KiB of ``a.a.a...``
takes gigabytes of memory, and a file well under any size cap can exhaust the machine. A key
or table header of more parts than any real file uses is refused before the parser sees it.
"""

from __future__ import annotations

import functools
import re
import tomllib
from typing import Any

MAX_KEY_PARTS = 64
"""The most parts a dotted key or table header may have in a file read here."""

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""


@functools.cache
def _long_key(parts: int) -> re.Pattern[str]:
    """A dotted key of more than ``parts`` parts, outside strings and comments (which the other
    alternatives pass over whole)."""
    return re.compile(
        rf"(?P<key>(?<![A-Za-z0-9_-]){_PART}(?:[ \t]*\.[ \t]*{_PART}){{{parts},}})"
        r'|"{3}(?:[^"\\]|\\.|""?(?!"))*"{3,5}'
        r"|'{3}(?:[^']|''?(?!'))*'{3,5}"
        r'|"(?:[^"\\\n]|\\.)*"'
        r"|'[^'\n]*'"
        r"|#[^\n]*",
        re.DOTALL,
    )


def has_long_key(text: str, parts: int = MAX_KEY_PARTS) -> bool:
    """Whether ``text`` holds a dotted key or table header of more than ``parts`` parts."""
    return any(match["key"] for match in _long_key(parts).finditer(text))


def loads(text: str) -> dict[str, Any]:
    """``text`` parsed as TOML; :class:`tomllib.TOMLDecodeError` (a ValueError) for text that
    is not, or that holds a key of more than :data:`MAX_KEY_PARTS` parts."""
    if has_long_key(text):
        raise tomllib.TOMLDecodeError(
            f"a key or table header has more than {MAX_KEY_PARTS} dotted parts"
        )
    return tomllib.loads(text)
