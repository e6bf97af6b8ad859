"""Quantities as the warehouse system writes them, in pounds or kilograms."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

LB_PER_KG = Decimal("2.20462262")
POUNDS = ("lb", "lbs", "#")
KILOS = ("kg", "kgs")


def parse_quantity(text):
    """``1,250.5`` as a Decimal (US thousands separators)."""
    try:
        return Decimal(str(text).strip().replace(",", ""))
    except InvalidOperation:
        raise ValueError(f"not a quantity: {text!r}") from None


def to_pounds(quantity, unit):
    """``quantity`` in ``unit`` (lb or kg) as pounds, rounded to a hundredth of a pound."""
    unit = unit.strip().lower()
    value = parse_quantity(quantity)
    if unit in KILOS:
        value = value * LB_PER_KG
    elif unit not in POUNDS:
        raise ValueError(f"unknown unit: {unit!r}")
    return float(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def kg_to_lb(kilos):
    """Deprecated: use ``to_pounds(quantity, "kg")``. Kept for the old dashboard scripts."""
    return float(kilos) * 2.2046
