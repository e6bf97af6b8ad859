"""Limits and holidays per region, as agreed with the works councils."""

REGIONS = {
    "DE-BY": {
        "weekly": 40 * 60,
        "daily": None,
        "holidays": [
            "01.01.",
            "06.01.",
            "01.05.",
            "15.08.",
            "03.10.",
            "01.11.",
            "25.12.",
            "26.12.",
        ],
    },
    "DE-NW": {
        "weekly": 40 * 60,
        "daily": None,
        "holidays": ["01.01.", "01.05.", "03.10.", "01.11.", "25.12.", "26.12."],
    },
    "AT": {
        "weekly": 40 * 60,
        "daily": 8 * 60,
        "holidays": [
            "01.01.",
            "06.01.",
            "01.05.",
            "15.08.",
            "26.10.",
            "01.11.",
            "08.12.",
            "25.12.",
            "26.12.",
        ],
    },
}

NIGHT_START = 22 * 60
NIGHT_END = 6 * 60


def rules_for(region):
    """The rules of ``region``; raises ValueError for an unknown one."""
    if region not in REGIONS:
        raise ValueError(f"unbekannte Region {region!r}: {', '.join(sorted(REGIONS))}")
    return REGIONS[region]


def is_holiday(datum, region):
    """Whether the ISO date is a public holiday in ``region``."""
    return f"{datum[8:10]}.{datum[5:7]}." in rules_for(region)["holidays"]
