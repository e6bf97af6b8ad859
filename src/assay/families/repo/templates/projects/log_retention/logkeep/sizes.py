"""Sizes in the config: ``500``, ``64K``, ``10M``, ``1G`` (``MB`` and ``MiB`` spellings too)."""

UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def parse_size(text):
    """Bytes of a size; units are powers of 1024, whatever the spelling."""
    cleaned = text.strip().upper().replace(" ", "")
    for suffix in ("IB", "B"):
        if cleaned.endswith(suffix) and cleaned[: -len(suffix)][-1:] in "KMG":
            cleaned = cleaned[: -len(suffix)]
            break
    number = cleaned.rstrip("KMG")
    unit = cleaned[len(number) :]
    if not number.isdigit() or unit not in UNITS:
        raise ValueError(f"not a size: {text!r}")
    return int(number) * UNITS[unit]
