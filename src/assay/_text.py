"""Text from outside (a benchmark, a task file, a sandbox's output) made safe to show: control
characters, the bidirectional ones that make text display in another order than it reads (a
right-to-left override can make ``a < b`` show as ``b > a``), and the ones that show as nothing,
written as escapes."""

from __future__ import annotations

import re

BIDI = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""The bidirectional controls, as the body of a regular expression's character class."""
BIDI_CONTROLS = re.compile(f"[{BIDI}]")
INVISIBLE = (
    r"\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b\u2028\u2029\u2060-\u2064\u3164"
    r"\ufeff\uffa0\U000e0000-\U000e007f"
)
"""Characters that show as nothing (zero-width spaces, the byte-order mark, the combining
grapheme joiner, the Hangul and Khmer fillers that render blank, the tag characters that spell
hidden text), so that two different strings would look the same. The zero-width joiner and
non-joiner are left as they are: scripts such as Persian and Devanagari, and emoji, need them."""
CONTROLS = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}{INVISIBLE}]")
"""Control characters but tab and line feed, the bidirectional ones and the invisible ones."""
LINE_CONTROLS = re.compile(rf"[\x00-\x1f\x7f-\x9f{BIDI}{INVISIBLE}]")
"""As :data:`CONTROLS`, tab and line feed too: for text that must stay on one line."""


def escaped(text: str, pattern: re.Pattern[str] = CONTROLS) -> str:
    """``text`` with each character ``pattern`` matches written as its escape (``\\u202e``)."""
    return pattern.sub(lambda match: ascii(match.group())[1:-1], text)


def one_line(text: object) -> str:
    """``text`` with line breaks (and every other control) written as escapes: for what a task
    wrote inside a line of assay's own, where a line break would print a line that reads like
    one of assay's (a label ``en\\n9 tasks: 9 accepted`` under the totals)."""
    return escaped(str(text), LINE_CONTROLS)
