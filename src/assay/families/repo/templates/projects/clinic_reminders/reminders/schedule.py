"""When each reminder goes out."""

import datetime

from reminders.clock import to_utc
from reminders.holidays import is_working_day, last_working_day
from reminders.sites import load_sites

DEFAULT_RULES = ("2d", "3h")


def send_times(appointment, site_id, rules=DEFAULT_RULES):
    """The UTC send times (``2024-03-02T10:00Z``) of the reminders for an appointment at local
    time ``appointment`` (ISO) at ``site_id``, one per rule (``2d``: days, ``3h``: hours)."""
    site = load_sites()[site_id]
    when = datetime.datetime.fromisoformat(appointment)
    times = []
    for rule in rules:
        amount, unit = int(rule[:-1]), rule[-1:]
        if unit == "d":
            day = last_working_day(when.date() - datetime.timedelta(days=amount), site["region"])
            local = datetime.datetime.combine(day, site["send_at"])
        elif unit == "h":
            local = when - datetime.timedelta(hours=amount)
            local = _while_open(local, site)
        else:
            raise ValueError(f"not a reminder rule: {rule!r}")
        times.append(to_utc(local))
    return times


def _while_open(local, site):
    """``local`` if the clinic is open then, else its last closing time before ``local``."""
    region = site["region"]
    day = local.date()
    if is_working_day(day, region) and site["opens"] <= local.time() <= site["closes"]:
        return local
    if local.time() < site["opens"] or not is_working_day(day, region):
        day = last_working_day(day - datetime.timedelta(days=1), region)
    return datetime.datetime.combine(day, site["closes"])
