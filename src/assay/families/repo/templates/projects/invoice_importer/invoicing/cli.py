"""Command line: ``python -m invoicing.cli summary EXPORT [--rate 19] [--out FILE]``."""

import argparse
import sys

from invoicing.amounts import format_amount
from invoicing.importer import load_export
from invoicing.totals import RATES, totals_by_customer


def main(argv=None):
    parser = argparse.ArgumentParser(prog="invoicing")
    commands = parser.add_subparsers(dest="command", required=True)
    summary = commands.add_parser("summary", help="totals per customer")
    summary.add_argument("export", help="the ERP export, or - for standard input")
    summary.add_argument("--rate", default="19", choices=sorted(RATES))
    summary.add_argument("--out", help="also write the totals to this CSV file")
    args = parser.parse_args(argv)
    if args.export == "-":
        data = sys.stdin.read().encode("utf-8")
    else:
        with open(args.export, "rb") as handle:
            data = handle.read()
    try:
        rows = load_export(data)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    lines = ["customer;net;vat;gross"]
    for customer, totals in totals_by_customer(rows, args.rate).items():
        shown = [format_amount(totals[name]) for name in ("net", "vat", "gross")]
        lines.append(";".join([customer, *shown]))
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
