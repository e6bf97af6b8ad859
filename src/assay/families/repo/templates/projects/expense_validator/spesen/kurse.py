"""EZB-Referenzkurse (1 EUR = Kurs Fremdwährung) und die Umrechnung in Euro."""

import csv
import datetime
import io
import os
from decimal import ROUND_HALF_UP, Decimal

from spesen.betraege import DATA_DIR


def lade_kurse(text):
    """``{waehrung: {iso_datum: kurs}}`` aus ``datum;waehrung;kurs`` (``04.03.2024;GBP;0,8556``)."""
    kurse = {}
    for row in csv.DictReader(io.StringIO(text), delimiter=";"):
        tag = datetime.datetime.strptime(row["datum"].strip(), "%d.%m.%Y").date()
        kurs = row["kurs"].strip().replace(",", ".")
        kurse.setdefault(row["waehrung"].strip().upper(), {})[tag.isoformat()] = kurs
    return kurse


def standard_kurse():
    """Die Kurse aus ``data/kurse.csv``."""
    with open(os.path.join(DATA_DIR, "kurse.csv"), encoding="utf-8") as handle:
        return lade_kurse(handle.read())


def in_euro(cents, waehrung, iso_datum, kurse):
    """``cents`` in ``waehrung`` am ``iso_datum`` in Euro-Cent, kaufmännisch gerundet.

    Ohne Kurs an dem Tag (Wochenende, Feiertag) gilt der letzte Kurs davor.
    """
    waehrung = waehrung.strip().upper()
    if waehrung in ("EUR", ""):
        return cents
    if waehrung not in kurse:
        raise ValueError(f"keine Kurse für {waehrung}")
    frueher = [tag for tag in kurse[waehrung] if tag <= iso_datum]
    if not frueher:
        raise ValueError(f"kein Kurs für {waehrung} am {iso_datum} oder davor")
    kurs = Decimal(str(kurse[waehrung][max(frueher)]))
    return int((Decimal(cents) / kurs).quantize(Decimal(1), rounding=ROUND_HALF_UP))
