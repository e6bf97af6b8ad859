"""Command line: ``python -m logkeep.cli --config FILE --dir DIR [--today DATE] [--dry-run]``."""

import argparse
import datetime
import os
import sys

from logkeep.config import load_config
from logkeep.plan import freed_bytes, plan
from logkeep.rotate import carry_out


def listing_of(directory):
    """``{file name: size}`` of the regular files in ``directory``."""
    return {
        name: os.path.getsize(os.path.join(directory, name))
        for name in os.listdir(directory)
        if os.path.isfile(os.path.join(directory, name))
    }


def describe(action, dry_run):
    verb, name, target = action
    text = f"{verb} {name}" + (f" -> {target}" if target else "")
    return f"would {text}" if dry_run else text


def main(argv=None):
    parser = argparse.ArgumentParser(prog="logkeep")
    parser.add_argument("--config", required=True, help="the rotation config (INI)")
    parser.add_argument("--dir", default=".", help="the directory holding the logs")
    parser.add_argument("--today", help="the date of the run, ISO (default: today)")
    parser.add_argument("-n", "--dry-run", action="store_true", help="print, do not touch")
    parser.add_argument("--noop", action="store_true", help=argparse.SUPPRESS)  # 1.x spelling
    args = parser.parse_args(argv)
    dry_run = args.dry_run or args.noop
    today = args.today or datetime.date.today().isoformat()
    try:
        with open(args.config, encoding="utf-8") as handle:
            config = load_config(handle.read())
        listing = listing_of(args.dir)
        actions = plan(listing, config, today)
    except (OSError, ValueError) as exc:
        print(f"logkeep: {exc}", file=sys.stderr)
        return 2
    for action in actions:
        print(describe(action, dry_run))
    if dry_run:
        print(f"would free {freed_bytes(actions, listing)} bytes")
    else:
        carry_out(actions, args.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
