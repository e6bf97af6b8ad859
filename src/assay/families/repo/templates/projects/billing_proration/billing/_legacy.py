"""Helpers from the PHP billing service this package replaced.

Deprecated: kept until the reports stop importing them. Do not use in new code.
"""

DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def cents_from_float(value):
    """Dollars as a float to integer cents."""
    return round(value * 100)
