"""Helpers kept from the 1.x importer.

Deprecated since 2.0: new code should not use them. (amounts still does.)
"""

CURRENCY_SIGNS = ("EUR", "€")


def strip_currency(text):
    """Remove a currency sign or code from an amount."""
    for sign in CURRENCY_SIGNS:
        text = text.replace(sign, "")
    return text


def legacy_round(value):
    """Round to an int the way 1.x did. Only ever called with positive numbers."""
    return int(value + 0.5)
