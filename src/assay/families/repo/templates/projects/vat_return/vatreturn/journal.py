"""Reading the journals: ``Datum;Beleg;Land;USt-IdNr;Steuerschl;Netto``."""

import csv
import io

from vatreturn.numbers import de_to_cents, parse_date

COLUMNS = {
    "Datum": "date",
    "Beleg": "document",
    "Land": "country",
    "USt-IdNr": "vat_id",
    "Steuerschl": "code",
    "Netto": "net",
}


def read_journal(text):
    """The journal's lines as dicts with the English keys of COLUMNS; net in cents."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")), delimiter=";")
    missing = [name for name in COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"journal lacks columns: {', '.join(missing)}")
    lines = []
    for row in reader:
        if not (row.get("Beleg") or "").strip():
            continue
        line = {key: (row[name] or "").strip() for name, key in COLUMNS.items()}
        line["date"] = parse_date(line["date"])
        line["country"] = line["country"].upper() or "DE"
        line["code"] = line["code"].upper()
        line["net"] = de_to_cents(line["net"])
        lines.append(line)
    return lines
