"""Reading the two sides: the bank's statement and the ledger's cash-account entries."""

import csv
import datetime
import io

from reconcile.money import parse_money


def read_statement(text):
    """Statement lines (``Date,Description,Amount``, dates ``dd/mm/yyyy``) as dicts with an
    id (``B1``, ``B2``, ... in file order), date (ISO), description and amount (pence)."""
    lines = []
    for number, row in enumerate(csv.DictReader(io.StringIO(text)), 1):
        day = datetime.datetime.strptime(row["Date"].strip(), "%d/%m/%Y").date()
        lines.append(
            {
                "id": f"B{number}",
                "date": day.isoformat(),
                "description": row["Description"].strip(),
                "amount": parse_money(row["Amount"]),
            }
        )
    return lines


def read_ledger(text):
    """Ledger entries (``ref,date,amount``, ISO dates, amounts in pounds) as dicts."""
    entries = []
    for row in csv.DictReader(io.StringIO(text)):
        entries.append(
            {
                "ref": row["ref"].strip(),
                "date": row["date"].strip(),
                "amount": parse_money(row["amount"]),
            }
        )
    return entries
