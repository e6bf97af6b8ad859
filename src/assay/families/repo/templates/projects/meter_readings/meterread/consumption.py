"""Advances between readings, the meter's counter going round included."""

import itertools

DIALS = 5  # the default; the older Quadra meters have six dials


def advance(previous, current, digits=DIALS, previous_estimated=False):
    """kWh used between two readings of a meter with ``digits`` dials.

    A lower reading after an actual one means the counter went round (five dials: 99990
    then 00012 is 22 kWh); after an estimate, it corrects the estimate (negative).
    """
    if current >= previous or previous_estimated:
        return current - previous
    return current + 10**digits - previous


def intervals(readings, digits=DIALS):
    """The intervals between one meter's consecutive readings (sorted by date): start, end,
    kwh, and whether the reading at either end is estimated."""
    ordered = sorted(readings, key=lambda reading: reading["date"])
    found = []
    for before, after in itertools.pairwise(ordered):
        kwh = advance(before["value"], after["value"], digits, before["estimated"])
        found.append(
            {
                "start": before["date"],
                "end": after["date"],
                "kwh": kwh,
                "start_estimated": before["estimated"],
                "end_estimated": after["estimated"],
            }
        )
    return found
