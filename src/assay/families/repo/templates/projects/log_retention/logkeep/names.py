"""Names of rotated files: ``app.log.2024-03-10[.gz]``, and logrotate's ``app.log-20240310``."""

import datetime
import re

DASHED = re.compile(r"^(?P<base>.+)\.(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?P<gz>\.gz)?$")
# what logrotate's dateext wrote before we replaced it; those files still sit on the hosts
COMPACT = re.compile(r"^(?P<base>.+)-(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?P<gz>\.gz)?$")


def parse_rotated(name):
    """``{"base", "date", "compressed"}`` of a rotated file's name, or None for other files."""
    for pattern in (DASHED, COMPACT):
        found = pattern.match(name)
        if found is None:
            continue
        try:
            day = datetime.date(int(found["y"]), int(found["m"]), int(found["d"]))
        except ValueError:
            return None
        return {"base": found["base"], "date": day.isoformat(), "compressed": bool(found["gz"])}
    return None


def rotated_name(base, today):
    """The name a log rotated on ``today`` (ISO) gets."""
    return f"{base}.{today}"
