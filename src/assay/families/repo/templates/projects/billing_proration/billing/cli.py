"""Command line: ``python -m billing.cli preview --from PLAN --to PLAN --anchor D --on D``."""

import argparse
import json
import sys

from billing.money import ROUNDING, format_usd, parse_usd
from billing.proration import prorate


def load_plans(path):
    """``{plan id: {"name", "price" (cents)}}`` from the plans file."""
    with open(path, encoding="utf-8") as handle:
        plans = json.load(handle)
    return {
        key: {"name": plan["name"], "price": parse_usd(plan["price"])}
        for key, plan in plans.items()
    }


def preview_lines(old, new, on, result):
    cycle = result["cycle"]
    lines = [
        f"Plan change: {old['name']} -> {new['name']} on {on}",
        f"Cycle: {cycle['start']} to {cycle['end']} ({cycle['days']} days, "
        f"{result['remaining']} remaining)",
        f"Unused time on {old['name']}: {format_usd(-result['credit'])}",
        f"Remaining time on {new['name']}: {format_usd(result['charge'])}",
        f"Amount due: {format_usd(result['due'])}",
    ]
    if result["balance"]:
        lines.append(f"Account credit: {format_usd(result['balance'])}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="billing")
    commands = parser.add_subparsers(dest="command", required=True)
    preview = commands.add_parser("preview", help="preview the invoice of a plan change")
    preview.add_argument("--plans", default="data/plans.json")
    preview.add_argument("--from", dest="old", required=True, help="the current plan")
    preview.add_argument("--to", dest="new", required=True, help="the new plan")
    preview.add_argument("--anchor", required=True, help="the subscription's start, ISO")
    preview.add_argument("--on", required=True, help="the day of the change, ISO")
    preview.add_argument("--rounding", default="bankers", choices=sorted(ROUNDING))
    args = parser.parse_args(argv)
    try:
        plans = load_plans(args.plans)
        old, new = plans[args.old], plans[args.new]
        result = prorate(old["price"], new["price"], args.anchor, args.on, args.rounding)
    except KeyError as exc:
        print(f"billing: unknown plan {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"billing: {exc}", file=sys.stderr)
        return 1
    print("\n".join(preview_lines(old, new, args.on, result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
