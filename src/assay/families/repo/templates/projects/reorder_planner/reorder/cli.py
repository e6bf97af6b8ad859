"""Command line: ``reorder plan STOCK SUPPLIERS... [--safety-days N] [--review-days N]``."""

import argparse
import sys

from reorder.export import purchasing_csv
from reorder.plan import plan_files


def main(argv=None):
    parser = argparse.ArgumentParser(prog="reorder")
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("plan", help="the purchase lines for this week")
    plan.add_argument("stock", help="the warehouse system's stock export")
    plan.add_argument("suppliers", nargs="+", help="purchasing's supplier files")
    plan.add_argument("--safety-days", type=int, default=5)
    plan.add_argument("--review-days", type=int, default=14)
    plan.add_argument("--supplier", help="only this supplier's lines (any capitalisation)")
    plan.add_argument("--out", help="write the CSV here instead of standard output")
    args = parser.parse_args(argv)
    with open(args.stock, encoding="utf-8") as handle:
        stock = handle.read()
    suppliers = []
    for path in args.suppliers:
        with open(path, encoding="utf-8") as handle:
            suppliers.append(handle.read())
    try:
        lines = plan_files(stock, suppliers, args.safety_days, args.review_days)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.supplier:
        wanted = args.supplier.strip().casefold()
        lines = [line for line in lines if line["supplier"].casefold() == wanted]
    text = purchasing_csv(lines)
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        urgent = sum(1 for line in lines if line["urgent"])
        print(f"{len(lines)} lines ({urgent} urgent) written to {args.out}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
