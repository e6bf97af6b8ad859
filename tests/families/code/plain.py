"""Hypothesis strategies for plain JSON data within the trusted side's bounds."""

from __future__ import annotations

from hypothesis import strategies as st

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**4000), max_value=10**4000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
)
plain_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(_text, children, max_size=5),
    max_leaves=30,
)
"""Any value the harness can return: None, bool, int, finite float, str, list, str-keyed dict."""
