"""The return's boxes from the journals' lines (see the README for what each box holds)."""

from decimal import ROUND_HALF_UP, Decimal

from vatreturn.rates import EU, HOME, RATES, quarter_of, rate_for

BOXES = ("81", "86", "41", "43", "46", "66", "67", "83")
_DOMESTIC = {"S": "81", "R": "86"}


def tax_cents(net_cents, rate):
    """The tax on ``net_cents`` at ``rate`` percent, half a cent rounded away from zero."""
    exact = Decimal(net_cents) * Decimal(rate) / 100
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def sales_box(line):
    """The box a sales line belongs in."""
    country = line["country"]
    if country != HOME and country in EU and line["vat_id"]:
        return "41"  # reverse charge: the EU business customer owes the tax
    if country not in EU:
        return "43"
    return _DOMESTIC.get(line["code"], "43")


def summarise(sales, purchases, quarter, rounding="line"):
    """The boxes of ``quarter`` (``2024-Q1``): base and tax in cents for each box.

    ``rounding`` is ``line`` (each line's tax rounded, then added up) or ``total`` (the tax of
    each box and rate computed on its total).
    """
    if rounding not in ("line", "total"):
        raise ValueError(f"rounding must be line or total, not {rounding!r}")
    groups = {}
    for line in sales:
        if quarter_of(line["date"]) == quarter:
            box = sales_box(line)
            groups.setdefault((box, rate_for(line["code"], line["date"])), []).append(line["net"])
    for line in purchases:
        if quarter_of(line["date"]) != quarter:
            continue
        if line["code"] == "RC":
            rate = rate_for("S", line["date"])
            groups.setdefault(("46", rate), []).append(line["net"])
            groups.setdefault(("67", rate), []).append(line["net"])
        else:
            groups.setdefault(("66", rate_for(line["code"], line["date"])), []).append(line["net"])
    boxes = {box: {"base": 0, "tax": 0} for box in BOXES}
    for (box, rate), nets in sorted(groups.items()):
        boxes[box]["base"] += sum(nets)
        boxes[box]["tax"] += _tax(nets, rate if box not in ("41", "43") else 0, rounding)
    output = boxes["81"]["tax"] + boxes["86"]["tax"] + boxes["46"]["tax"]
    boxes["83"]["tax"] = output - boxes["66"]["tax"] - boxes["67"]["tax"]
    return boxes


def _tax(nets, rate, rounding):
    if rounding == "total":
        return tax_cents(sum(nets), rate)
    return sum(tax_cents(net, rate) for net in nets)


def known_codes():
    """The tax codes a journal may use."""
    return sorted([*RATES, "RC"])
