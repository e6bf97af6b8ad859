"""Command line: ``vatreturn summary SALES PURCHASES --quarter 2024-Q1 [--rounding line]``."""

import argparse
import sys

from vatreturn.journal import read_journal
from vatreturn.numbers import format_amount, format_euros
from vatreturn.report import summarise


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return read_journal(handle.read())


def form_lines(boxes):
    """The summary as the form shows it: bases in whole euros, taxes with cents."""
    lines = ["Kz;Bemessungsgrundlage;Steuer"]
    for box, amounts in boxes.items():
        if amounts["base"] or amounts["tax"]:
            lines.append(f"{box};{format_euros(amounts['base'])};{format_amount(amounts['tax'])}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="vatreturn")
    commands = parser.add_subparsers(dest="command", required=True)
    summary = commands.add_parser("summary", help="the quarter's VAT return")
    summary.add_argument("sales", help="the sales journal")
    summary.add_argument("purchases", help="the purchase journal")
    summary.add_argument("--quarter", required=True, help="e.g. 2024-Q1")
    summary.add_argument("--rounding", choices=("line", "total"), default="line")
    args = parser.parse_args(argv)
    try:
        boxes = summarise(_read(args.sales), _read(args.purchases), args.quarter, args.rounding)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("\n".join(form_lines(boxes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
