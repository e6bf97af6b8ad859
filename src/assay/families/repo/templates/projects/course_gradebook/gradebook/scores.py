"""Cells of the tutors' score sheet: ``17,5``, ``17,5*2`` (two days late), empty or ``-``."""

LATE_PENALTY = 0.1  # of the item's maximum points, per day late
LATE_CUTOFF = 7  # days; handed in later than this, the item counts as zero
MISSING = ("", "-", "n.a.", "k.A.")


def parse_points(text):
    """Points as a float, ``None`` for a missing submission."""
    cleaned = text.strip()
    if cleaned in MISSING:
        return None
    return float(cleaned.replace(",", "."))


def parse_cell(text):
    """``(points, days_late)`` of a cell; ``17,5*2`` is 17.5 points, two days late."""
    points, _, days = text.partition("*")
    return parse_points(points), int(days) if days.strip() else 0


def late_points(points, max_points, days_late):
    """The points left after the late penalty: 10 % of the maximum per day late, never
    below zero, and nothing after LATE_CUTOFF days."""
    if points is None or days_late <= 0:
        return points
    if days_late > LATE_CUTOFF:
        return 0.0
    return max(0.0, round(points - LATE_PENALTY * max_points * days_late, 2))
