"""Verpflegungspauschalen je Land (``data/tagegeld.csv``, Beträge in Euro)."""

import csv
import os

from spesen.betraege import DATA_DIR, parse_betrag

_cache = {}


def pauschalen():
    """``{land: (voll, teil)}`` in Cent."""
    if not _cache:
        with open(os.path.join(DATA_DIR, "tagegeld.csv"), encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter=";"):
                _cache[row["land"]] = (parse_betrag(row["voll"]), parse_betrag(row["teil"]))
    return _cache


def tagessatz(land, stunden):
    """Die Pauschale in Cent für einen Tag mit ``stunden`` Abwesenheit in ``land``: die volle
    ab 24 Stunden, die Teilpauschale bei mehr als 8 Stunden, sonst nichts."""
    if land not in pauschalen():
        raise ValueError(f"keine Pauschale für {land!r}")
    voll, teil = pauschalen()[land]
    if stunden >= 24:
        return voll
    if stunden > 8:
        return teil
    return 0
