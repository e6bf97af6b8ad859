"""Reading the ERP's monthly export: ``invoice_no;customer;date;amount``, one line per item."""

import csv
import io

from invoicing.amounts import parse_amount

COLUMNS = ("invoice_no", "customer", "date", "amount")


def decode_export(data):
    """The export's text. Exports are UTF-8; the old ERP still writes cp1252."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252")


def parse_date(text):
    """``31.03.2024`` (day first) as ISO ``2024-03-31``; two-digit years are 20xx."""
    day, month, year = text.strip().split(".")
    if len(year) == 2:
        year = "20" + year
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"


def read_invoices(text):
    """The export's lines as dicts: invoice, customer, date (ISO), amount (cents)."""
    reader = csv.DictReader(io.StringIO(text), delimiter=";")
    missing = [column for column in COLUMNS if column not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"export lacks columns: {', '.join(missing)}")
    rows = []
    for line in reader:
        if not any((value or "").strip() for value in line.values()):
            continue
        rows.append(
            {
                "invoice": line["invoice_no"].strip(),
                "customer": line["customer"].strip(),
                "date": parse_date(line["date"]),
                "amount": parse_amount(line["amount"]),
            }
        )
    return rows


def load_export(data):
    """Read an export's raw bytes."""
    return read_invoices(decode_export(data))
