"""Reading the time clock's export (semicolon-separated, German formats)."""

import csv
import io
from decimal import ROUND_HALF_UP, Decimal


class SemikolonDialekt(csv.excel):
    """What German Excel and the time clock write: semicolons, CRLF."""

    delimiter = ";"


COLUMNS = ("Mitarbeiter", "Datum", "Beginn", "Ende", "Pause")


def parse_zeit(text):
    """``7:30`` or ``07:30`` as minutes after midnight (``24:00`` is 1440)."""
    hours, _, minutes = text.strip().partition(":")
    if not hours.isdigit() or len(minutes) != 2 or not minutes.isdigit():
        raise ValueError(f"keine Uhrzeit: {text!r}")
    value = int(hours) * 60 + int(minutes)
    if value > 24 * 60 or int(minutes) > 59:
        raise ValueError(f"keine Uhrzeit: {text!r}")
    return value


def parse_datum(text):
    """``04.03.2024`` as ``2024-03-04``."""
    day, month, year = text.strip().split(".")
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"


def parse_pause(text):
    """The break in minutes: whole minutes (``30``), or hours with a decimal comma (``0,5``,
    ``0,75 h``) as the new terminals write it."""
    cleaned = text.strip().lower().removesuffix("h").strip()
    if not cleaned:
        return 0
    units, comma, fraction = cleaned.partition(",")
    if not units.isdigit() or (comma and not fraction.isdigit()):
        raise ValueError(f"keine Pause: {text!r}")
    if not comma:
        return int(units)
    hours = Decimal(f"{units}.{fraction}")
    return int((hours * 60).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def readTimesheet(text):
    """The export's shifts: employee, date (ISO), start and end (minutes; an end past
    midnight is over 1440) and the break (minutes)."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")), dialect=SemikolonDialekt)
    missing = [name for name in COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"Spalten fehlen: {', '.join(missing)}")
    entries = []
    for row in reader:
        if not (row["Mitarbeiter"] or "").strip():
            continue
        start, end = parse_zeit(row["Beginn"]), parse_zeit(row["Ende"])
        if end <= start:
            end += 24 * 60
        entries.append(
            {
                "employee": row["Mitarbeiter"].strip(),
                "date": parse_datum(row["Datum"]),
                "start": start,
                "end": end,
                "break": parse_pause(row["Pause"] or ""),
            }
        )
    return entries
