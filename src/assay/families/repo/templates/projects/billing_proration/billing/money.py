"""Cents, rounding modes and US dollar formatting."""

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

from billing._legacy import cents_from_float

ROUNDING = {"bankers": ROUND_HALF_EVEN, "half-up": ROUND_HALF_UP}


def to_cents(exact, rounding="bankers"):
    """An exact Decimal number of cents rounded to a whole cent by ``rounding``."""
    if rounding not in ROUNDING:
        raise ValueError(f"unknown rounding {rounding!r}: use one of {', '.join(ROUNDING)}")
    return int(Decimal(exact).quantize(Decimal(1), rounding=ROUNDING[rounding]))


def parse_usd(text):
    """``$1,299.00`` or ``19.99`` as integer cents."""
    cleaned = text.strip().replace("$", "").replace(",", "")
    return cents_from_float(float(cleaned))


def format_usd(cents):
    """Cents as ``$1,234.56``, negatives as ``-$4.50``."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"
