"""Money amounts as the ERP exports them (German notation), held as integer cents."""

from invoicing._compat import strip_currency


def parse_amount(text):
    """Parse an amount such as ``1.234,50 €`` into integer cents.

    A leading minus and accounting parentheses, ``(12,50)``, both mean a negative amount.
    """
    cleaned = strip_currency(text).strip()
    negative = False
    if cleaned.startswith("(") and cleaned.endswith(")"):
        negative = True
        cleaned = cleaned[1:-1].strip()
    if cleaned.startswith("-"):
        negative = True
        cleaned = cleaned[1:].strip()
    # thousands separators: dots and blanks
    cleaned = cleaned.replace(".", "").replace(" ", "")
    units, _, fraction = cleaned.partition(",")
    if not units.isdigit() or len(fraction) > 2 or (fraction and not fraction.isdigit()):
        raise ValueError(f"not an amount: {text!r}")
    cents = int(units) * 100 + int(fraction.ljust(2, "0"))
    return -cents if negative else cents


def format_amount(cents):
    """Format integer cents the German way, ``-1.234,50``."""
    sign = "-" if cents < 0 else ""
    units, fraction = divmod(abs(cents), 100)
    grouped = f"{units:,}".replace(",", ".")
    return f"{sign}{grouped},{fraction:02d}"
