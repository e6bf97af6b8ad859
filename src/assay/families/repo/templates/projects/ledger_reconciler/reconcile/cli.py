"""Command line: ``python -m reconcile.cli match STATEMENT LEDGER [--days N] [--report FILE]``."""

import argparse
import json
import sys

from reconcile.matching import DEFAULT_DAYS, reconcile
from reconcile.sources import read_ledger, read_statement


def main(argv=None):
    parser = argparse.ArgumentParser(prog="reconcile")
    commands = parser.add_subparsers(dest="command", required=True)
    match = commands.add_parser("match", help="match a statement against the ledger")
    match.add_argument("statement")
    match.add_argument("ledger")
    match.add_argument("--days", type=int, default=DEFAULT_DAYS)
    match.add_argument("--report", help="write the full result as JSON here")
    args = parser.parse_args(argv)
    with open(args.statement, encoding="utf-8") as handle:
        statement = read_statement(handle.read())
    with open(args.ledger, encoding="utf-8") as handle:
        ledger = read_ledger(handle.read())
    result = reconcile(statement, ledger, args.days)
    print(f"matched: {len(result['matched'])}")
    print(f"unmatched bank lines: {', '.join(result['unmatched_bank']) or '-'}")
    print(f"unmatched ledger entries: {', '.join(result['unmatched_ledger']) or '-'}")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
    return 0 if not (result["unmatched_bank"] or result["unmatched_ledger"]) else 3


if __name__ == "__main__":
    sys.exit(main())
