"""Command line: ``reminders plan APPOINTMENTS [--rules 2d,3h] [--out FILE]``."""

import argparse
import csv
import datetime
import io
import sys

from reminders.schedule import DEFAULT_RULES, send_times
from reminders.sites import load_sites
from reminders.sms import reminder_text, sms_length


def parse_uk(text):
    """``04/03/2024 09:30`` as a naive datetime; the new booking system writes ``9:30am`` or
    ``2:15 pm``."""
    for pattern in ("%d/%m/%Y %H:%M", "%d/%m/%Y %I:%M%p", "%d/%m/%Y %I:%M %p"):
        try:
            return datetime.datetime.strptime(text.strip(), pattern)
        except ValueError:
            continue
    raise ValueError(f"not an appointment time: {text!r}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="reminders")
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("plan", help="the reminders for an appointments export")
    plan.add_argument("appointments", help="patient,first_name,mobile,site,appointment")
    plan.add_argument("--rules", default=",".join(DEFAULT_RULES))
    plan.add_argument("--out", help="write the outbox here instead of standard output")
    args = parser.parse_args(argv)
    sites = load_sites()
    with open(args.appointments, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["send_at_utc", "mobile", "parts", "text"])
    too_long = 0
    for row in rows:
        try:
            local = parse_uk(row["appointment"])
            site = sites[row["site"]]
            times = send_times(local.isoformat(), row["site"], args.rules.split(","))
        except (KeyError, ValueError) as exc:
            print(f"error: {row.get('patient')}: {exc}", file=sys.stderr)
            return 1
        text = reminder_text(row["first_name"], local, site)
        parts = sms_length(text)["parts"]
        too_long += parts > 1
        for moment in times:
            writer.writerow([moment, row["mobile"], parts, text])
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    if too_long:
        print(f"warning: {too_long} texts take more than one SMS", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
