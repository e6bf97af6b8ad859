"""Monthly billing cycles anchored on the subscription's start date."""

import calendar
import datetime


def month_length(year, month):
    """Days in the month (leap years included)."""
    return calendar.monthrange(year, month)[1]


def anchored(year, month, day):
    """The anchor ``day`` in that month: the 29th to 31st fall on a shorter month's last day."""
    return datetime.date(year, month, min(day, month_length(year, month)))


def _shift(year, month, by):
    index = year * 12 + month - 1 + by
    return index // 12, index % 12 + 1


def cycle_for(anchor, on):
    """The cycle holding ``on``: ``{"start", "end", "days"}``, ``end`` exclusive, dates ISO."""
    anchor_day = datetime.date.fromisoformat(anchor).day
    day = datetime.date.fromisoformat(on)
    start = anchored(day.year, day.month, anchor_day)
    if start > day:
        start = anchored(*_shift(day.year, day.month, -1), anchor_day)
    end = anchored(*_shift(start.year, start.month, 1), anchor_day)
    return {"start": start.isoformat(), "end": end.isoformat(), "days": (end - start).days}
