"""Command line: ``shiprate quote POSTCODE GRAMS LxWxH`` and ``shiprate batch ORDERS``."""

import argparse
import csv
import io
import sys

from shiprate.rates import quote, show
from shiprate.weights import kilos


def main(argv=None):
    parser = argparse.ArgumentParser(prog="shiprate")
    parser.add_argument("--config", help="carriers file (default: data/carriers.ini)")
    parser.add_argument("--carrier", default="parcelline")
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("quote", help="quote one parcel")
    one.add_argument("postcode")
    one.add_argument("grams", type=int)
    one.add_argument("dimensions", help="LxWxH in cm")
    batch = commands.add_parser("batch", help="quote every order of a CSV file")
    batch.add_argument("orders", help="order_id,postcode,weight_g,dimensions")
    batch.add_argument("--out", help="write the quotes here instead of standard output")
    args = parser.parse_args(argv)
    try:
        if args.command == "quote":
            result = quote(args.postcode, args.grams, args.dimensions, args.carrier, args.config)
            for name in ("base", "remote", "fuel", "total"):
                print(f"{name:<7}{show(result[name]):>10}")
            print(f"zone {result['zone']}, charged as {kilos(result['chargeable_g'])} kg")
            return 0
        return _batch(args)
    except (KeyError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _batch(args):
    with open(args.orders, encoding="utf-8", newline="") as handle:
        orders = list(csv.DictReader(handle))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["order_id", "zone", "chargeable_kg", "total"])
    for order in orders:
        result = quote(
            order["postcode"],
            int(order["weight_g"]),
            order["dimensions"],
            args.carrier,
            args.config,
        )
        writer.writerow(
            [
                order["order_id"],
                result["zone"],
                kilos(result["chargeable_g"]),
                show(result["total"]),
            ]
        )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
