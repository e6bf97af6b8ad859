"""Command line: ``rota export ROSTER [--format F] [--employee NAME] [--out FILE]``."""

import argparse
import sys

from rota.export import ics_calendar, payroll_lines, weekly_lines
from rota.roster import read_roster

FORMATS = ("payroll", "ics", "weekly")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="rota")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="export the roster")
    export.add_argument("roster", help="the roster file, or - for standard input")
    export.add_argument("--format", choices=FORMATS, default="payroll")
    export.add_argument("--employee", help="only this employee's shifts")
    export.add_argument("--out", help="write here instead of standard output")
    args = parser.parse_args(argv)
    if args.roster == "-":
        text = sys.stdin.read()
    else:
        with open(args.roster, encoding="utf-8") as handle:
            text = handle.read()
    try:
        shifts = read_roster(text)
    except (KeyError, ValueError) as exc:
        print(f"error: bad roster: {exc}", file=sys.stderr)
        return 1
    if args.employee:
        shifts = [shift for shift in shifts if shift["employee"] == args.employee]
    if args.format == "ics":
        output = ics_calendar(shifts)
    else:
        lines = payroll_lines(shifts) if args.format == "payroll" else weekly_lines(shifts)
        output = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as handle:
            handle.write(output)
    else:
        sys.stdout.write(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
