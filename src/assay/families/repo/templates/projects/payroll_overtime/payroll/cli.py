"""Command line: ``python -m payroll.cli report STUNDENZETTEL [--region DE-BY] [--out FILE]``."""

import argparse
import sys

from payroll.ausgabe import report_lines
from payroll.berechnung import summarize
from payroll.regeln import REGIONS
from payroll.stundenzettel import readTimesheet


def main(argv=None):
    parser = argparse.ArgumentParser(prog="payroll")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="hours per employee")
    report.add_argument("timesheet", help="the time clock's export")
    report.add_argument("--region", default="DE-NW", choices=sorted(REGIONS))
    report.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args(argv)
    try:
        # the time clock writes UTF-8 since firmware 4 (the older ones write cp1252: unsupported)
        with open(args.timesheet, encoding="utf-8") as handle:
            entries = readTimesheet(handle.read())
    except (OSError, ValueError) as exc:
        print(f"Fehler: {exc}", file=sys.stderr)
        return 1
    lines = report_lines(summarize(entries, args.region))
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
