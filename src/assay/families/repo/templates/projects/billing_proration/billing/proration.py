"""What a mid-cycle plan change costs: the old plan's unused days back, the new plan's on."""

import datetime
from decimal import Decimal

from billing.cycles import cycle_for
from billing.money import to_cents


def prorated(price_cents, days, cycle_days, rounding="bankers"):
    """``days`` out of ``cycle_days`` of a monthly price, in cents."""
    return to_cents(Decimal(price_cents) * days / cycle_days, rounding)


def prorate(old_cents, new_cents, anchor, on, rounding="bankers"):
    """The change from a plan at ``old_cents`` to one at ``new_cents`` a month, on ``on``.

    ``{"cycle", "remaining", "credit", "charge", "due", "balance"}``: ``due`` is never negative;
    what a downgrade leaves over is ``balance``, credited to the account.
    """
    cycle = cycle_for(anchor, on)
    remaining = (datetime.date.fromisoformat(cycle["end"]) - datetime.date.fromisoformat(on)).days
    credit = prorated(old_cents, remaining, cycle["days"], rounding)
    charge = prorated(new_cents, remaining, cycle["days"], rounding)
    net = charge - credit
    return {
        "cycle": cycle,
        "remaining": remaining,
        "credit": credit,
        "charge": charge,
        "due": max(net, 0),
        "balance": max(-net, 0),
    }


calcProration = prorate  # the old name; the invoicing service still calls it
