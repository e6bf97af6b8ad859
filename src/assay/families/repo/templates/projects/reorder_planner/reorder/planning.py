"""Reorder points and order quantities, in pounds; usage is in pounds a day."""

import math
from decimal import Decimal


def reorder_point(daily_usage, lead_time_days, safety_days):
    """The usage over the lead time plus the safety stock (``safety_days`` of usage)."""
    usage = Decimal(str(daily_usage))
    return usage * lead_time_days + usage * safety_days


def order_quantity(available, daily_usage, terms, safety_days=5, review_days=14):
    """Pounds to order on the supplier's ``terms`` (``lead_time_days``, ``moq``,
    ``pack_size``): none while ``available`` (on hand plus on order) is above the reorder
    point; otherwise enough for the reorder point plus ``review_days`` of usage, at least the
    supplier's minimum order quantity, in whole packs."""
    available = Decimal(str(available))
    point = reorder_point(daily_usage, terms["lead_time_days"], safety_days)
    if available > point:
        return 0
    need = point + Decimal(str(daily_usage)) * review_days - available
    need = max(need, Decimal(terms["moq"]))
    packs = math.ceil(need / terms["pack_size"])
    return packs * terms["pack_size"]


def is_urgent(available, daily_usage, lead_time_days):
    """Whether the plant runs out before an order placed today arrives."""
    return Decimal(str(available)) < Decimal(str(daily_usage)) * lead_time_days
