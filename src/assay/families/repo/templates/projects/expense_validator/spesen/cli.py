"""Kommandozeile: ``spesen pruefen ABRECHNUNG [--kurse DATEI] [--json]``."""

import argparse
import json
import sys

from spesen.betraege import format_betrag
from spesen.pruefung import pruefe


def main(argv=None):
    parser = argparse.ArgumentParser(prog="spesen")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("pruefen", help="eine Abrechnung prüfen")
    check.add_argument("abrechnung", help="die Abrechnung (CSV mit Semikolon)")
    check.add_argument("--kurse", help="Kursdatei statt data/kurse.csv")
    check.add_argument("--json", action="store_true", help="Ergebnis als JSON ausgeben")
    args = parser.parse_args(argv)
    with open(args.abrechnung, encoding="utf-8") as handle:
        text = handle.read()
    kurse = None
    if args.kurse:
        with open(args.kurse, encoding="utf-8") as handle:
            kurse = handle.read()
    try:
        ergebnis = pruefe(text, kurse)
    except (KeyError, ValueError) as exc:
        print(f"Fehler: {exc}", file=sys.stderr)
        return 2
    if args.json:
        abgelehnt = [{"beleg": beleg, "grund": grund} for beleg, grund in ergebnis["abgelehnt"]]
        daten = {"abgelehnt": abgelehnt, "erstattung_cent": ergebnis["erstattung"]}
        print(json.dumps(daten, ensure_ascii=False))
        return 1 if ergebnis["abgelehnt"] else 0
    for beleg, grund in ergebnis["abgelehnt"]:
        print(f"ABGELEHNT {beleg}: {grund}")
    print(f"Erstattung: {format_betrag(ergebnis['erstattung'])}")
    return 1 if ergebnis["abgelehnt"] else 0


if __name__ == "__main__":
    sys.exit(main())
