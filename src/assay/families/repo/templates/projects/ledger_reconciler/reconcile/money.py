"""Amounts as the bank portal writes them: ``£1,234.56``, ``-12.00``, ``12.00 DR``, ``(5.00)``."""


def parse_money(text):
    """Integer pence. ``DR`` (a debit) and parentheses mean money out; ``CR`` money in."""
    cleaned = text.strip().replace("£", "").replace(",", "")
    sign = 1
    if cleaned.endswith("DR"):
        sign = -1
        cleaned = cleaned[:-2].strip()
    elif cleaned.endswith("CR"):
        cleaned = cleaned[:-2].strip()
    if cleaned.startswith("(") and cleaned.endswith(")"):
        sign = -sign
        cleaned = cleaned[1:-1].strip()
    if cleaned.startswith("-"):
        sign = -sign
        cleaned = cleaned[1:]
    pounds, _, pence = cleaned.partition(".")
    if not pounds.isdigit() or len(pence) > 2 or (pence and not pence.isdigit()):
        raise ValueError(f"not an amount: {text!r}")
    return sign * (int(pounds) * 100 + int(pence.ljust(2, "0")))


def show_money(pence):
    """``-1,234.56``."""
    sign = "-" if pence < 0 else ""
    pounds, rest = divmod(abs(pence), 100)
    return f"{sign}{pounds:,}.{rest:02d}"
