"""Die Prüfung einer Abrechnung: welche Belege abgelehnt werden, und warum."""

import configparser
import csv
import datetime
import io
import os

from spesen.betraege import DATA_DIR, format_betrag, parse_betrag
from spesen.kurse import in_euro, lade_kurse, standard_kurse
from spesen.tagegeld import tagessatz


def load_limits():
    """Freigabegrenzen je Kategorie in Cent (``default`` für alle anderen)."""
    config = configparser.ConfigParser()
    with open(os.path.join(DATA_DIR, "freigabe.ini"), encoding="utf-8") as handle:
        config.read_file(handle)
    return {name: parse_betrag(value) for name, value in config["freigabe"].items()}


def lese_abrechnung(text):
    """Die Belege der Abrechnung, Datum als ISO, Betrag in Cent der Belegwährung."""
    belege = []
    for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"):
        if not (row.get("beleg") or "").strip():
            continue
        tag = datetime.datetime.strptime(row["datum"].strip(), "%d.%m.%Y").date()
        belege.append(
            {
                "beleg": row["beleg"].strip(),
                "datum": tag.isoformat(),
                "kategorie": row["kategorie"].strip().lower(),
                "betrag": parse_betrag(row["betrag"]),
                "waehrung": (row.get("waehrung") or "EUR").strip().upper(),
                "land": (row.get("land") or "DE").strip().upper(),
                "stunden": int(row.get("stunden") or 0),
                "haendler": (row.get("haendler") or "").strip(),
            }
        )
    return belege


def pruefe(text, kurse_text=None):
    """``{"abgelehnt": [[beleg, grund], ...], "erstattung": cent}`` für eine Abrechnung."""
    kurse = standard_kurse() if kurse_text is None else lade_kurse(kurse_text)
    grenzen = load_limits()
    abgelehnt = []
    erstattung = 0
    gesehen = {}
    for beleg in lese_abrechnung(text):
        beleg["eur"] = in_euro(beleg["betrag"], beleg["waehrung"], beleg["datum"], kurse)
        grund = _grund(beleg, grenzen, gesehen)
        if grund:
            abgelehnt.append([beleg["beleg"], grund])
        else:
            erstattung += beleg["eur"]
    return {"abgelehnt": abgelehnt, "erstattung": erstattung}


def _grund(beleg, grenzen, gesehen):
    if beleg["kategorie"] == "tagegeld":
        satz = tagessatz(beleg["land"], beleg["stunden"])
        if beleg["eur"] > satz:
            return f"Tagegeld über der Pauschale {beleg['land']} ({format_betrag(satz)})"
        return None
    grenze = grenzen.get(beleg["kategorie"], grenzen["default"])
    if beleg["eur"] > grenze:
        return f"über der Freigabegrenze {beleg['kategorie']} ({format_betrag(grenze)})"
    schluessel = (beleg["datum"], beleg["betrag"], beleg["waehrung"])
    if schluessel in gesehen:
        return f"doppelt eingereicht (wie {gesehen[schluessel]})"
    gesehen[schluessel] = beleg["beleg"]
    return None
