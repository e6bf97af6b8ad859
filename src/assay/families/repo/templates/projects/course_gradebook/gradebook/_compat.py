"""Kept from the 2.x gradebook.

Deprecated since 3.0: use ``scores.parse_points``. (course.py still does.)
"""


def to_float(value):
    """A number from course.json, which may be a number or a string with a decimal comma."""
    if isinstance(value, str):
        return float(value.replace(",", "."))
    return float(value)
