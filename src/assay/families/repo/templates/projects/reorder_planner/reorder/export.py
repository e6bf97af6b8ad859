"""The purchasing CSV, as the buyers open it in Excel."""

import csv
import io

HEADER = ["Supplier", "SKU", "Description", "Order (lb)", "Packs", "Urgent"]


def purchasing_csv(lines):
    """The lines grouped by supplier (then SKU), quantities with thousands separators."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # Excel on the buyers' machines
    writer.writerow(HEADER)
    for line in sorted(lines, key=lambda line: (line["supplier"], line["sku"])):
        writer.writerow(
            [
                line["supplier"],
                line["sku"],
                line["description"],
                f"{line['quantity_lb']:,}",
                line["packs"],
                "YES" if line["urgent"] else "",
            ]
        )
    return out.getvalue()
