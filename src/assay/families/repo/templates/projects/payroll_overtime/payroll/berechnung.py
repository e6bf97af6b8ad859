"""Worked, overtime, night and holiday minutes per employee."""

import datetime

from payroll.regeln import NIGHT_END, NIGHT_START, is_holiday, rules_for


def worked_minutes(entry):
    return entry["end"] - entry["start"] - entry["break"]


def night_minutes(start, end):
    """Minutes of [start, end) between 22:00 and 6:00 (``end`` may be past midnight)."""
    windows = [(0, NIGHT_END), (NIGHT_START, 24 * 60 + NIGHT_END)]
    return sum(max(0, min(end, high) - max(start, low)) for low, high in windows)


def overtime_minutes(days, region):
    """Overtime of one week from the minutes worked on each of its days."""
    rules = rules_for(region)
    daily = rules["daily"]
    over_daily = sum(max(0, minutes - daily) for minutes in days) if daily else 0
    counted = sum(min(minutes, daily) for minutes in days) if daily else sum(days)
    return over_daily + max(0, counted - rules["weekly"])


def iso_week(datum):
    year, week, _ = datetime.date.fromisoformat(datum).isocalendar()
    return f"{year}-W{week:02d}"


def summarize(entries, region):
    """``{employee: {"worked", "overtime", "night", "holiday"}}`` in minutes, by name."""
    totals = {}
    weeks = {}
    for entry in entries:
        minutes = worked_minutes(entry)
        mine = totals.setdefault(
            entry["employee"], {"worked": 0, "overtime": 0, "night": 0, "holiday": 0}
        )
        mine["worked"] += minutes
        mine["night"] += night_minutes(entry["start"], entry["end"])
        if is_holiday(entry["date"], region):
            mine["holiday"] += minutes
        week = weeks.setdefault((entry["employee"], iso_week(entry["date"])), {})
        week[entry["date"]] = week.get(entry["date"], 0) + minutes
    for (employee, _), days in weeks.items():
        totals[employee]["overtime"] += overtime_minutes(list(days.values()), region)
    return dict(sorted(totals.items()))
