"""The printed pick list."""

from picking._vendor.textcols import row, rule
from picking.locations import walk_key

WIDTHS = (8, 10, 4, 20, 24)
HEADER = ("Location", "SKU", "Qty", "Order", "Description")


def route(picks):
    """The picks in walking order (picks at one location in order of the orders)."""
    return sorted(picks, key=lambda pick: walk_key(pick["location"]))


def batch(picks):
    """Picks of several orders in one walk: picks of one SKU at one location merged, their
    quantities added and their orders listed."""
    merged = {}
    for pick in picks:
        key = (pick["location"], pick["sku"])
        if key in merged:
            merged[key]["qty"] += pick["qty"]
            merged[key]["order"] += "," + pick["order"]
        else:
            merged[key] = dict(pick)
    return list(merged.values())


def render(picks, backorders, descriptions):
    """The pick list as printed: a header, the picks in walking order and their total
    quantity, then backorders."""
    picked = {order for pick in picks for order in pick["order"].split(",")}
    orders = picked | {line["order"] for line in backorders}
    lines = [f"PICK LIST - {len(orders)} order(s), {len(picks)} pick(s)", ""]
    lines += [row(HEADER, WIDTHS, right=(2,)), rule(WIDTHS)]
    for pick in route(picks):
        shown = descriptions.get(pick["sku"], "")
        cells = (pick["location"], pick["sku"], pick["qty"], pick["order"], shown)
        lines.append(row(cells, WIDTHS, right=(2,)))
    total = sum(pick["qty"] for pick in picks)
    lines += [rule(WIDTHS), row(("TOTAL", "", total), WIDTHS, right=(2,))]
    if backorders:
        lines += ["", "BACKORDERED"]
        for line in backorders:
            lines.append(row((line["order"], line["sku"], line["qty"]), (8, 10, 4), right=(2,)))
    return "\n".join(lines) + "\n"
