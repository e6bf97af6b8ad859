"""The meter vendors' file formats. Each reader gives readings as dicts: meter, date (ISO),
value (whole kWh), estimated (bool)."""

import csv
import datetime
import io

VOLTMARK_TYPES = {"ACTUAL": False, "CUSTOMER": False, "ESTIMATE": True}
QUADRA_FLAGS = {"A": False, "C": False, "E": True}


def voltmark_date(text):
    """Voltmark's read dates, ``31/01/2024``, as ISO."""
    return datetime.datetime.strptime(text.strip(), "%d/%m/%Y").date().isoformat()


def read_voltmark(text):
    """Voltmark CSV: ``MeterID,ReadDate,Reading,ReadType``."""
    readings = []
    for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff"))):
        if not (row.get("MeterID") or "").strip():
            continue
        kind = row["ReadType"].strip().upper()
        if kind not in VOLTMARK_TYPES:
            raise ValueError(f"unknown read type: {kind!r}")
        readings.append(
            {
                "meter": row["MeterID"].strip(),
                "date": voltmark_date(row["ReadDate"]),
                "value": int(row["Reading"]),
                "estimated": VOLTMARK_TYPES[kind],
            }
        )
    return readings


def read_quadra(text):
    """Quadra fixed-width lines (see the README), between ``HDR`` and ``TRL`` lines."""
    readings = []
    for line in text.splitlines():
        if not line.strip() or line.startswith(("HDR", "TRL")):
            continue
        flag = line[29:30]
        if flag not in QUADRA_FLAGS:
            raise ValueError(f"unknown read flag {flag!r} in {line!r}")
        day = line[12:20]
        readings.append(
            {
                "meter": line[0:12].strip(),
                "date": f"{day[0:4]}-{day[4:6]}-{day[6:8]}",
                "value": int(line[20:29]),
                "estimated": QUADRA_FLAGS[flag],
            }
        )
    return readings


READERS = {"voltmark": read_voltmark, "quadra": read_quadra}
