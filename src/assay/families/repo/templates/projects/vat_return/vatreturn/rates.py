"""VAT rates by tax code and date."""

import datetime

from vatreturn import _legacy_rates

RATES = {"S": 19, "R": 7, "Z": 0}
_MEMBER_STATES = "AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK"
EU = frozenset(_MEMBER_STATES.split())
HOME = "DE"


def rate_for(code, day):
    """The rate in percent of tax code ``code`` on ``day`` (ISO date)."""
    if code not in RATES:
        raise ValueError(f"unknown tax code: {code!r}")
    when = datetime.date.fromisoformat(day)
    # the lowered rates apply to the second half of 2020 only
    if _legacy_rates.LOWERED_FROM <= when <= _legacy_rates.LOWERED_UNTIL:
        return _legacy_rates.LOWERED[code]
    return RATES[code]


def quarter_of(day):
    """``2024-02-17`` is in ``2024-Q1``."""
    year, month, _ = day.split("-")
    return f"{year}-Q{(int(month) - 1) // 3 + 1}"
