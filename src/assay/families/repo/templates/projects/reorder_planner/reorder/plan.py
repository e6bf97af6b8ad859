"""The plan: the stock export and the supplier file in, purchase lines out."""

import csv
import io

from reorder.planning import is_urgent, order_quantity
from reorder.suppliers import read_suppliers
from reorder.units import to_pounds


def read_stock(text):
    """The warehouse export's items: sku, description, available and daily usage in pounds."""
    items = []
    for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff"))):
        if not (row.get("sku") or "").strip():
            continue
        unit = row["unit"]
        items.append(
            {
                "sku": row["sku"].strip(),
                "description": row["description"].strip(),
                "available": round(
                    to_pounds(row["on_hand"], unit) + to_pounds(row["on_order"], unit), 2
                ),
                "daily_usage": to_pounds(row["daily_usage"], unit),
            }
        )
    return items


def plan(items, suppliers, safety_days=5, review_days=14):
    """One purchase line per item to reorder, in the stock export's order."""
    lines = []
    for item in items:
        if item["sku"] not in suppliers:
            raise KeyError(f"no supplier for {item['sku']}")
        terms = suppliers[item["sku"]]
        quantity = order_quantity(
            item["available"], item["daily_usage"], terms, safety_days, review_days
        )
        if not quantity:
            continue
        lines.append(
            {
                "supplier": terms["supplier"],
                "sku": item["sku"],
                "description": item["description"],
                "quantity_lb": quantity,
                "packs": quantity // terms["pack_size"],
                "urgent": is_urgent(
                    item["available"], item["daily_usage"], terms["lead_time_days"]
                ),
            }
        )
    return lines


def plan_files(stock_text, supplier_texts, safety_days=5, review_days=14):
    """The plan for the files' contents, as the command line makes it; a later supplier file
    wins over an earlier one for the same SKU."""
    suppliers = {}
    for text in supplier_texts:
        suppliers.update(read_suppliers(text))
    return plan(read_stock(stock_text), suppliers, safety_days, review_days)
