"""Command line: ``gradebook export SHEET --course COURSE [--scheme de|letter] [--out FILE]``."""

import argparse
import sys

from gradebook.course import load_course
from gradebook.export import read_sheet, registrar_csv, registrar_rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gradebook")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="grades for the examination office")
    export.add_argument("sheet", help="the tutors' score sheet")
    export.add_argument("--course", required=True, help="course.json")
    export.add_argument("--scheme", choices=("de", "letter"), help="default: the course's")
    export.add_argument("--out", help="write the CSV here instead of standard output")
    args = parser.parse_args(argv)
    try:
        with open(args.course, encoding="utf-8") as handle:
            course = load_course(handle.read())
        with open(args.sheet, encoding="utf-8") as handle:
            students = read_sheet(handle.read())
        text = registrar_csv(registrar_rows(students, course, args.scheme))
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
