"""German number and date formats as the bookkeeping exports them."""


def parse_amount(text):
    """``1.234,56`` as integer cents. SAP writes negatives with a trailing minus: ``45,00-``."""
    cleaned = text.strip().replace("EUR", "").replace("€", "").strip()
    negative = False
    if cleaned.endswith("-"):
        negative = True
        cleaned = cleaned[:-1].strip()
    if cleaned.startswith("-"):
        negative = True
        cleaned = cleaned[1:].strip()
    units, _, fraction = cleaned.replace(".", "").partition(",")
    if not units.isdigit() or len(fraction) > 2 or (fraction and not fraction.isdigit()):
        raise ValueError(f"not an amount: {text!r}")
    cents = int(units) * 100 + int(fraction.ljust(2, "0"))
    return -cents if negative else cents


def de_to_cents(text):
    """Deprecated since 1.5, use parse_amount: kept for the old import scripts."""
    return parse_amount(text)


def format_amount(cents):
    """Integer cents as ``-1.234,56``."""
    sign = "-" if cents < 0 else ""
    units, fraction = divmod(abs(cents), 100)
    return sign + f"{units:,}".replace(",", ".") + f",{fraction:02d}"


def format_euros(cents):
    """Integer cents as whole euros, ``1.234``: the form wants its bases without cents, the
    cents simply dropped (the tax office's rule, never rounded up)."""
    sign = "-" if cents < 0 else ""
    return sign + f"{abs(cents) // 100:,}".replace(",", ".")


def parse_date(text):
    """``31.03.2024`` as ISO ``2024-03-31``."""
    day, month, year = text.strip().split(".")
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
