"""Command line: ``meterread bill FILE --vendor NAME --period START:END [--digits 5]``."""

import argparse
import sys

from meterread.billing import bills
from meterread.consumption import DIALS
from meterread.vendors import READERS


def bill_lines(results):
    """One line per meter: serial, kWh, and whether it rests on an estimate."""
    lines = []
    for meter, result in results.items():
        flag = "  (estimated)" if result["estimated"] else ""
        lines.append(f"{meter:<14}{result['kwh']:>12,.2f} kWh{flag}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="meterread")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("bill", help="consumption of a billing period")
    command.add_argument("file", help="the vendor's readings file")
    command.add_argument("--vendor", choices=sorted(READERS), required=True)
    command.add_argument("--period", required=True, help="START:END, ISO dates, both included")
    command.add_argument("--digits", type=int, default=DIALS, help="the meters' dials")
    args = parser.parse_args(argv)
    start, _, end = args.period.partition(":")
    try:
        with open(args.file, encoding="utf-8") as handle:
            readings = READERS[args.vendor](handle.read())
        results = bills(readings, start, end, args.digits)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("\n".join(bill_lines(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
