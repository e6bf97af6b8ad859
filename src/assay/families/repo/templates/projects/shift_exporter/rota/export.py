"""The exports: payroll lines, an iCalendar file, weekly hours."""

from rota._vendor.icalfold import fold
from rota.roster import weekly_hours
from rota.times import getShiftLength, paid_minutes


def hours_text(minutes):
    """Hours as payroll reads them, with a decimal comma: ``7,50``."""
    return f"{minutes / 60:.2f}".replace(".", ",")


def german_date(iso_date):
    """``2024-03-01`` as ``01.03.2024``."""
    year, month, day = iso_date.split("-")
    return f"{day}.{month}.{year}"


def payroll_lines(shifts):
    """One line per shift, sorted by employee and date, under payroll's header."""
    lines = ["Personalname;Datum;Stunden"]
    for shift in sorted(shifts, key=lambda s: (s["employee"], s["date"], s["start"])):
        paid = paid_minutes(shift["start"], shift["end"])
        lines.append(f"{shift['employee']};{german_date(shift['date'])};{hours_text(paid)}")
    return lines


def weekly_lines(shifts):
    """One line per employee and ISO week with the paid hours."""
    lines = ["Personalname;Woche;Stunden"]
    for employee, weeks in weekly_hours(shifts).items():
        for week, hours in weeks.items():
            lines.append(f"{employee};{week};{hours_text(round(hours * 60))}")
    return lines


def ics_calendar(shifts):
    """The shifts as an iCalendar file (floating local times, CRLF line ends)."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//rota//shift export//DE"]
    for number, shift in enumerate(shifts, 1):
        hours, minutes = divmod(getShiftLength(shift["start"], shift["end"]), 60)
        start = shift["start"].replace(".", ":").zfill(5).replace(":", "")
        lines += [
            "BEGIN:VEVENT",
            f"UID:shift-{number}-{shift['date']}@rota",
            f"DTSTART:{shift['date'].replace('-', '')}T{start}00",
            f"DURATION:PT{hours}H{minutes}M",
            fold(f"SUMMARY:Dienst {shift['employee']} ({shift['start']}-{shift['end']})"),
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"
