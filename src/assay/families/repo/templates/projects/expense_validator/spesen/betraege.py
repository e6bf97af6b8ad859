"""Beträge im deutschen Format: ``1.234,56`` ist 123456 Cent."""

import os

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def parse_betrag(text):
    """Cent eines Betrags wie ``1.234,56``, ``-12,5`` oder ``89,00 €``."""
    cleaned = text.replace("€", "").strip()
    negative = cleaned.startswith("-")
    cleaned = cleaned.lstrip("-").replace(".", "")
    euros, _, cents = cleaned.partition(",")
    if not euros.isdigit() or (cents and not cents.isdigit()) or len(cents) > 2:
        raise ValueError(f"kein Betrag: {text!r}")
    value = int(euros) * 100 + int(cents.ljust(2, "0") or "0")
    return -value if negative else value


def format_betrag(cents):
    """123456 als ``1.234,56 €``."""
    euros, rest = divmod(abs(cents), 100)
    text = f"{euros:,}".replace(",", ".") + f",{rest:02d} €"
    return f"-{text}" if cents < 0 else text


def to_float(text):
    """Veraltet: parse_betrag benutzen. Nur noch für den alten DATEV-Export."""
    return float(text.replace(".", "").replace(",", "."))
