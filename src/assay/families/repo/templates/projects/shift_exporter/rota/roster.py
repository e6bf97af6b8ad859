"""The roster file: ``employee;date;start;end`` with German dates (``31.12.2024``)."""

import csv
import datetime
import io

from rota.times import paid_minutes


def read_roster(text):
    """The roster's shifts as dicts: employee, date (ISO), start, end (as typed)."""
    shifts = []
    for line in csv.DictReader(io.StringIO(text), delimiter=";"):
        if not (line.get("employee") or "").strip():
            continue
        day = datetime.datetime.strptime(line["date"].strip(), "%d.%m.%Y").date()
        shifts.append(
            {
                "employee": line["employee"].strip(),
                "date": day.isoformat(),
                "start": line["start"].strip(),
                "end": line["end"].strip(),
            }
        )
    return shifts


def week_of(iso_date):
    """The ISO week a date belongs to, as ``2025-W01``."""
    year, week, _ = datetime.date.fromisoformat(iso_date).isocalendar()
    return f"{year}-W{week:02d}"


def weekly_hours(shifts):
    """Paid hours per employee and ISO week, ``{employee: {week: hours}}``, to 2 decimals."""
    minutes = {}
    for shift in shifts:
        mine = minutes.setdefault(shift["employee"], {})
        week = week_of(shift["date"])
        mine[week] = mine.get(week, 0) + paid_minutes(shift["start"], shift["end"])
    return {
        employee: {week: round(total / 60, 2) for week, total in sorted(weeks.items())}
        for employee, weeks in sorted(minutes.items())
    }
