"""Words of a prompt that promise the order of a result.

A prompt that says "in ascending order", "sorted by length", "in the order they appear" or "in
order of first appearance" promises an order that only ``compare = "exact"`` checks. One that
says the order is free ("in any order", "the order does not matter") promises none, even where
it also orders the parts ("each group sorted in ascending order; the groups in any order").
"""

from __future__ import annotations

import re

_ORDER = re.compile(
    r"\bin\s+(?:strictly\s+)?(?:ascending|descending|increasing|decreasing|non-decreasing"
    r"|non-increasing|alphabetical|lexicographic(?:al)?|numerical|sorted|reverse|reversed)"
    r"\s+order\b"
    r"|\bsorted\s+(?:in\s+)?(?:ascending|descending|increasing|decreasing|by)\b"
    r"|\bin\s+the\s+(?:same\s+)?order\s+(?:they|of|in\s+which)\b"
    r"|\bin\s+order\s+of\b",
    re.IGNORECASE,
)
_ANY_ORDER = re.compile(
    r"\bin\s+any\s+order\b|\border\s+(?:does\s+not|doesn't|need\s+not)\s+matter\b",
    re.IGNORECASE,
)
_DENIED = re.compile(r"\b(?:not|never|n't)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
"""Words just before a promise that deny it: "need not be in ascending order"."""


def promised_order(text: str) -> re.Match[str] | None:
    """The first words of ``text`` that promise the order of the result; ``None`` when it
    promises none, or says the order is free."""
    if _ANY_ORDER.search(text):
        return None
    for promise in _ORDER.finditer(text):
        if not _DENIED.search(text[max(0, promise.start() - 40) : promise.start()]):
            return promise
    return None
