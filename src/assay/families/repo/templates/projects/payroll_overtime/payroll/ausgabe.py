"""The report for the payroll office."""

from decimal import ROUND_HALF_UP, Decimal

HEADER = "Mitarbeiter;Stunden;Überstunden;Nacht;Feiertag"


def format_stunden(minutes):
    """Minutes as hours with two decimals and a decimal comma: 2490 is ``41,50``."""
    hours = (Decimal(minutes) / 60).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{hours}".replace(".", ",")


def report_lines(totals):
    lines = [HEADER]
    for employee, mine in totals.items():
        shown = [format_stunden(mine[key]) for key in ("worked", "overtime", "night", "holiday")]
        lines.append(";".join([employee, *shown]))
    return lines
