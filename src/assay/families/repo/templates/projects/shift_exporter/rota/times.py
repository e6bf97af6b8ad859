"""Clock times as the planners type them, and the length and paid time of a shift."""


def parse_clock(text):
    """Minutes since midnight of ``7:30``, ``07:30`` or ``7.30``.

    ``24:00`` is the midnight at the end of the day.
    """
    cleaned = text.strip().replace(".", ":")
    hours, _, minutes = cleaned.partition(":")
    if not hours.isdigit() or (minutes and not minutes.isdigit()):
        raise ValueError(f"not a time: {text!r}")
    hour, minute = int(hours), int(minutes or "0")
    if hour > 24 or minute > 59 or (hour == 24 and minute):
        raise ValueError(f"not a time: {text!r}")
    return hour * 60 + minute


def shift_minutes(start, end):
    """Length of a shift in minutes; one that ends before it starts runs past midnight."""
    begin, finish = parse_clock(start), parse_clock(end)
    if finish < begin:
        finish += 24 * 60
    return finish - begin


def paid_minutes(start, end):
    """Worked minutes less the statutory break: 30 minutes for more than six hours of work,
    45 minutes for more than nine."""
    worked = shift_minutes(start, end)
    if worked > 9 * 60:
        return worked - 45
    if worked > 6 * 60:
        return worked - 30
    return worked


# Old name, still used by the calendar export.
getShiftLength = shift_minutes
