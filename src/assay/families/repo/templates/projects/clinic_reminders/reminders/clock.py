"""Local clinic time to UTC. The UK and Ireland keep GMT in winter and UTC+1 in summer."""

import datetime


def last_sunday(year, month):
    """The last Sunday of ``month`` (March or October)."""
    day = datetime.date(year, month, 31)
    return day - datetime.timedelta(days=(day.weekday() + 1) % 7)


def utc_offset(local):
    """Hours ahead of UTC at naive local time ``local``: 1 from 01:00 on the last Sunday in
    March to 01:00 GMT on the last Sunday in October, else 0."""
    start = datetime.datetime.combine(last_sunday(local.year, 3), datetime.time(1))
    end = datetime.datetime.combine(last_sunday(local.year, 10), datetime.time(1))
    return 1 if start <= local < end else 0


def to_utc(local):
    """``2024-07-01T09:30`` (local, a string or a naive datetime) as ``2024-07-01T08:30Z``."""
    if isinstance(local, str):
        local = datetime.datetime.fromisoformat(local)
    moment = local - datetime.timedelta(hours=utc_offset(local))
    return moment.strftime("%Y-%m-%dT%H:%MZ")
