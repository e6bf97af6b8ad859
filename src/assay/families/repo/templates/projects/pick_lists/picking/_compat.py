"""Helpers kept from the first version, written for the old racking.

Deprecated: use ``locations.parse_location``. (stock.py still calls ``normalise_label``.)
"""


def normalise_label(label):
    """``3-12`` and ``a3-12`` as ``A03-12``; new labels unchanged."""
    text = label.strip().upper()
    if not text.startswith("A"):
        text = "A" + text
    aisle, _, rest = text[1:].partition("-")
    return f"A{int(aisle):02d}-{rest}"
