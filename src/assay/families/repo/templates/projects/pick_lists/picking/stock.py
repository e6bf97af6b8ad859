"""Orders, stock, and what can be picked now."""

import csv
import io

from picking._compat import normalise_label
from picking.locations import walk_key


def _rows(text, columns):
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [name for name in columns if name not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"missing columns: {', '.join(missing)}")
    return [row for row in reader if any((value or "").strip() for value in row.values())]


def quantity(text):
    """A whole quantity; spreadsheets write thousands with commas (``1,200``)."""
    return int(text.strip().replace(",", ""))


def read_orders(text):
    """Order lines ``order_no,sku,qty`` as dicts: order, sku, qty."""
    return [
        {"order": row["order_no"].strip(), "sku": row["sku"].strip(), "qty": quantity(row["qty"])}
        for row in _rows(text, ("order_no", "sku", "qty"))
    ]


def read_stock(text):
    """Stock ``sku,location,qty,description`` as dicts; locations normalised."""
    return [
        {
            "sku": row["sku"].strip(),
            "location": normalise_label(row["location"]),
            "qty": quantity(row["qty"]),
            "description": (row.get("description") or "").strip(),
        }
        for row in _rows(text, ("sku", "location", "qty"))
    ]


def allocate(lines, stock):
    """Picks and backorders: ``{"picks": [...], "backorders": [...]}``.

    Lines are served in order; each SKU is taken from its locations in walking order. What is
    not in stock is backordered, the rest of a line picked.
    """
    slots = {}
    for entry in sorted(stock, key=lambda entry: walk_key(entry["location"])):
        slots.setdefault(entry["sku"], []).append([entry["location"], entry["qty"]])
    picks = []
    backorders = []
    for line in lines:
        wanted = line["qty"]
        for slot in slots.get(line["sku"], []):
            take = min(wanted, slot[1])
            if take > 0:
                picks.append(
                    {"order": line["order"], "sku": line["sku"], "location": slot[0], "qty": take}
                )
                slot[1] -= take
                wanted -= take
        if wanted > 0:
            backorders.append({"order": line["order"], "sku": line["sku"], "qty": wanted})
    return {"picks": picks, "backorders": backorders}
