"""Consumption per billing period, shared out by days."""

import datetime

from meterread.consumption import DIALS, intervals

ONE_DAY = datetime.timedelta(days=1)


def apportion(spans, start, end):
    """kWh of the period ``start`` to ``end`` (ISO dates, both days included), each span's
    kWh shared out by the days it has in the period. A span runs from its start reading's
    day up to the day before its end reading."""
    first = datetime.date.fromisoformat(start)
    stop = datetime.date.fromisoformat(end) + ONE_DAY
    total = 0.0
    for span in spans:
        begins = datetime.date.fromisoformat(span["start"])
        ends = datetime.date.fromisoformat(span["end"])
        days = (ends - begins).days
        overlap = (min(ends, stop) - max(begins, first)).days
        if days > 0 and overlap > 0:
            total += span["kwh"] * overlap / days
    return round(total, 2)


def bill(readings, start, end, digits=DIALS):
    """One meter's consumption in the period: ``{"kwh": ..., "estimated": ...}``; estimated
    when a reading that the period's consumption rests on is an estimate."""
    spans = [
        span for span in intervals(readings, digits) if span["start"] <= end and span["end"] > start
    ]
    estimated = any(span["start_estimated"] or span["end_estimated"] for span in spans)
    return {"kwh": apportion(spans, start, end), "estimated": estimated}


def bills(readings, start, end, digits=DIALS):
    """:func:`bill` of every meter in ``readings``, by meter."""
    meters = {}
    for reading in readings:
        meters.setdefault(reading["meter"], []).append(reading)
    return {meter: bill(found, start, end, digits) for meter, found in sorted(meters.items())}
