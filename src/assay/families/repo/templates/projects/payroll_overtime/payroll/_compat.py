"""Left from 0.x, when every branch was in Nordrhein-Westfalen. Deprecated: use regeln."""

BUNDESWEIT = ("01.01.", "01.05.", "03.10.", "25.12.", "26.12.")


def ist_feiertag(datum):
    """Whether the ISO date is a public holiday (in all of Germany)."""
    return f"{datum[8:10]}.{datum[5:7]}." in BUNDESWEIT
