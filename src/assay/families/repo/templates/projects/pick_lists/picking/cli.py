"""Command line: ``picking pick ORDERS --stock STOCK [--batch] [--out FILE]``."""

import argparse
import sys

from picking.picklist import batch, render
from picking.stock import allocate, read_orders, read_stock


def _text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="picking")
    commands = parser.add_subparsers(dest="command", required=True)
    pick = commands.add_parser("pick", help="print the pick list")
    pick.add_argument("orders", help="the day's order lines (CSV)")
    pick.add_argument("--stock", required=True, help="stock by location (CSV)")
    pick.add_argument("--batch", action="store_true", help="pick all orders in one walk")
    pick.add_argument("--out", help="write the pick list here instead of printing it")
    args = parser.parse_args(argv)
    try:
        lines = read_orders(_text(args.orders))
        stock = read_stock(_text(args.stock))
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    result = allocate(lines, stock)
    picks = batch(result["picks"]) if args.batch else result["picks"]
    descriptions = {entry["sku"]: entry["description"] for entry in stock}
    text = render(picks, result["backorders"], descriptions)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
