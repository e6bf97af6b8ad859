"""``logrot plan BASE [--keep N] < listing`` and ``logrot check CONFIG``."""

import argparse
import sys

from logrot.config import read_config
from logrot.plan import rotation_plan


def main(argv=None):
    parser = argparse.ArgumentParser(prog="logrot")
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("plan", help="plan one rotation from a listing on stdin")
    plan.add_argument("base", help="the live log's name, e.g. app.log")
    plan.add_argument("--keep", type=int, help="rotated generations to keep")
    check = commands.add_parser("check", help="read a configuration and show it")
    check.add_argument("config")
    args = parser.parse_args(argv)
    if args.command == "check":
        with open(args.config, encoding="utf-8") as handle:
            try:
                settings = read_config(handle.read())
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
        for section, values in settings.items():
            shown = " ".join(f"{key}={value}" for key, value in values.items())
            print(f"[{section}] {shown}")
        return 0
    names = [line.strip() for line in sys.stdin.read().splitlines() if line.strip()]
    steps = rotation_plan(names, args.base, args.keep)
    for name in steps["delete"]:
        print(f"delete {name}")
    for old, new in steps["rename"]:
        print(f"rename {old} {new}")
    for name in steps["truncate"]:
        print(f"truncate {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
