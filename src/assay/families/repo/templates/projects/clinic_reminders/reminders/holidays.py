"""Public holidays per region (``data/holidays.csv``) and the clinics' working days."""

import csv
import datetime
import os

from reminders.sites import DATA

_loaded = {}


def holidays_for(region):
    """The ISO dates of ``region``'s public holidays."""
    if not _loaded:
        with open(os.path.join(DATA, "holidays.csv"), encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                _loaded.setdefault(row["region"], set()).add(row["date"])
    if region not in _loaded:
        raise ValueError(f"no holidays for region {region!r}")
    return _loaded[region]


def is_bank_holiday(day):
    """Deprecated: England and Wales only. Use ``is_working_day(day, region)``."""
    return day.isoformat() in holidays_for("england-and-wales")


def is_working_day(day, region):
    """Monday to Friday, and not a public holiday in ``region``."""
    return day.weekday() < 5 and day.isoformat() not in holidays_for(region)


def last_working_day(day, region):
    """``day`` if it is a working day, else the last one before it."""
    while not is_working_day(day, region):
        day -= datetime.timedelta(days=1)
    return day
