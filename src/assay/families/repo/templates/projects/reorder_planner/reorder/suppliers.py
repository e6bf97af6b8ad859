"""The supplier file from purchasing: lead time, minimum order quantity and pack size per SKU."""

import csv
import io


def read_suppliers(text):
    """``{sku: {"supplier", "lead_time_days", "moq", "pack_size"}}``, quantities in pounds.

    Files from the old ERP have ``leadtime_wks`` (in weeks) instead of ``lead_time_days`` and
    ``min_qty`` instead of ``moq``.
    """
    found = {}
    for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff"))):
        sku = (row.get("sku") or "").strip()
        if not sku:
            continue
        if (row.get("lead_time_days") or "").strip():
            lead = int(row["lead_time_days"])
        else:
            lead = int(row["leadtime_wks"]) * 7
        found[sku] = {
            "supplier": row["supplier"].strip(),
            "lead_time_days": lead,
            "moq": int(row.get("moq") or row.get("min_qty") or 0),
            "pack_size": int(row["pack_size"]),
        }
    return found
