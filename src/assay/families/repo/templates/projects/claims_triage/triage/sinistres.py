"""The claims portal's export: ``numero;categorie;montant;debut_contrat;date_sinistre``."""

import csv
import io

from triage.montants import parse_amount

COLUMNS = ("numero", "categorie", "montant", "debut_contrat", "date_sinistre")


def parse_date(text):
    """``31/03/2024`` as ``2024-03-31``."""
    day, month, year = text.strip().split("/")
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"


def readClaims(text):
    """The export's claims as dicts (amount in cents, dates ISO)."""
    reader = csv.DictReader(io.StringIO(text), delimiter=";")
    missing = [name for name in COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"colonnes manquantes: {', '.join(missing)}")
    return [
        {
            "id": line["numero"].strip(),
            "category": line["categorie"].strip(),
            "amount": parse_amount(line["montant"]),
            "policy_start": parse_date(line["debut_contrat"]),
            "incident": parse_date(line["date_sinistre"]),
        }
        for line in reader
        if (line["numero"] or "").strip()
    ]
