"""Command line: ``python -m triage.cli route RULES CLAIMS [--fraud-only]``."""

import argparse
import sys

from triage.moteur import route_all
from triage.regles import load_rules
from triage.sinistres import readClaims


def main(argv=None):
    parser = argparse.ArgumentParser(prog="triage")
    commands = parser.add_subparsers(dest="command", required=True)
    routing = commands.add_parser("route", help="route the claims of an export")
    routing.add_argument("rules", help="the rules file (INI)")
    routing.add_argument("claims", help="the portal's export (CSV)")
    routing.add_argument("--fraud-only", action="store_true", help="only flagged claims")
    args = parser.parse_args(argv)
    try:
        with open(args.rules, encoding="utf-8") as handle:
            config = load_rules(handle.read())
        with open(args.claims, encoding="utf-8") as handle:
            claims = readClaims(handle.read())
    except (OSError, ValueError, KeyError) as exc:
        print(f"erreur: {exc}", file=sys.stderr)
        return 1
    print("numero;queue;priority;fraude")
    for routed in route_all(claims, config):
        if args.fraud_only and not routed["fraud"]:
            continue
        flag = "oui" if routed["fraud"] else "non"
        print(f"{routed['claim']};{routed['queue']};{routed['priority']};{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
