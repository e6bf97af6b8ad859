"""The shift-schedule exporter: a ward's roster to payroll lines, a calendar and weekly hours."""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

TIMES = "rota/times.py"
ROSTER = "rota/roster.py"
EXPORT = "rota/export.py"
CLI = "rota/cli.py"
EMPLOYEES = (
    "Jana Kowalski",
    "Emre Demir",
    "Lisa Brandt",
    "Tobias Wendt",
    "Aylin Yilmaz",
    "Marek Nowak",
    "Sophie Lang",
    "Ruth Okafor",
)


def _clock(minutes: int, rng: random.Random) -> str:
    hours, rest = divmod(minutes % 1440, 60)
    return rng.choice((f"{hours}:{rest:02d}", f"{hours:02d}:{rest:02d}", f"{hours}.{rest:02d}"))


def _day_shift(rng: random.Random, length: int | None = None) -> tuple[str, str]:
    start = rng.randrange(5 * 60, 12 * 60, 15)
    minutes = length if length is not None else rng.randrange(3 * 60, 10 * 60, 15)
    return _clock(start, rng), _clock(start + minutes, rng)


def _night_shift(rng: random.Random) -> tuple[str, str]:
    start = rng.randrange(20 * 60, 23 * 60 + 1, 15)
    return _clock(start, rng), _clock(start + rng.randrange(6 * 60, 10 * 60, 15), rng)


def _date(rng: random.Random, year: int = 2024, month: int | None = None) -> datetime.date:
    return datetime.date(year, month or rng.randint(2, 11), rng.randint(1, 28))


def _roster(
    rng: random.Random,
    count: int,
    shift: Callable[[random.Random], tuple[str, str]] = _day_shift,
    year: int = 2024,
) -> str:
    lines = ["employee;date;start;end"]
    for _ in range(count):
        start, end = shift(rng)
        day = _date(rng, year)
        lines.append(f"{rng.choice(EMPLOYEES[:4])};{day:%d.%m.%Y};{start};{end}")
    return "\n".join(lines) + "\n"


def _export(roster: str, *extra: str) -> Probe:
    return Probe(
        cli="rota.cli:main", argv=("export", "roster.csv", *extra), files={"roster.csv": roster}
    )


def _call(function: str, *args: object) -> Probe:
    module = {
        "parse_clock": "times",
        "shift_minutes": "times",
        "paid_minutes": "times",
        "week_of": "roster",
        "hours_text": "export",
    }
    return Probe(call=f"rota.{module[function]}:{function}", args=args)


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _call("parse_clock", _clock(rng.randrange(0, 1440), rng)),
        _call("shift_minutes", *_day_shift(rng)),
        _call("paid_minutes", *_day_shift(rng, rng.randrange(60, 6 * 60, 15))),
        _call("paid_minutes", *_day_shift(rng, rng.randrange(6 * 60 + 15, 9 * 60, 15))),
        _call("week_of", _date(rng).isoformat()),
        _call("hours_text", rng.randrange(15, 600, 15)),
        _export(_roster(rng, 3)),
        _export(_roster(rng, 4), "--format", "weekly"),
        _export(_roster(rng, 2), "--format", "ics", "--out", "shifts.ics"),
        _export(f"employee;date;start;end\nLisa Brandt;{rng.randint(30, 31)}.02.2024;8:00;9:00\n"),
    ]


OVERNIGHT = Change(
    id="overnight-shift",
    kind="bug",
    undo=(Replace(TIMES, "    if finish < begin:\n        finish += 24 * 60\n", ""),),
    report=Report(
        title="Night shifts come out with negative hours",
        complaint="Payroll called: everyone on nights got minus hours on their statement for "
        "December. Day shifts are fine.",
        expected="A shift that ends before it starts runs past midnight and counts its real "
        "length.",
        request="shift_minutes (and everything built on it) must treat an end before the start "
        "as the next day: 22:00 to 6:00 is 480 minutes.",
        translations={
            "de": Report(
                title="Nachtdienste kommen mit negativen Stunden heraus",
                complaint="Die Lohnbuchhaltung hat angerufen: Alle im Nachtdienst haben für "
                "Dezember Minusstunden auf der Abrechnung. Tagdienste stimmen.",
                expected="Ein Dienst, der vor seinem Beginn endet, geht über Mitternacht und "
                "zählt seine wirkliche Länge.",
                request="shift_minutes (und alles, was darauf aufbaut) muss ein Ende vor dem "
                "Beginn als nächsten Tag behandeln: 22:00 bis 6:00 sind 480 Minuten.",
            )
        },
    ),
    example=lambda rng: _call("shift_minutes", *_night_shift(rng)),
    fail_to_pass=lambda rng: [
        _call("shift_minutes", *_night_shift(rng)),
        _call("paid_minutes", *_night_shift(rng)),
        _export(_roster(rng, 3, _night_shift)),
        _export(_roster(rng, 2, _night_shift), "--format", "ics"),
    ],
    pass_to_pass=lambda rng: [
        _call("shift_minutes", *[_clock(rng.randrange(0, 1440, 5), rng)] * 2)
    ],
    known_bad={
        "adds-twelve-hours": (
            Replace(
                TIMES,
                "    return finish - begin\n",
                "    if finish < begin:\n        finish += 12 * 60\n    return finish - begin\n",
            ),
        ),
    },
)

ISO_WEEK = Change(
    id="iso-week",
    kind="bug",
    undo=(
        Replace(
            ROSTER,
            "    year, week, _ = datetime.date.fromisoformat(iso_date).isocalendar()\n"
            '    return f"{year}-W{week:02d}"\n',
            '    return datetime.date.fromisoformat(iso_date).strftime("%Y-W%W")\n',
        ),
    ),
    report=Report(
        title="Weekly hours for January land in week 00",
        complaint="The weekly overview for January shows a week 00 and every week after it is "
        "one off compared with the duty plan, which uses calendar weeks.",
        expected="Weeks are ISO calendar weeks (Monday first; week 1 holds the first Thursday).",
        request="week_of must give the ISO week, `2025-W01` for 2025-01-01, including ISO "
        "years that differ from the calendar year (2024-12-30 is `2025-W01`).",
        translations={
            "de": Report(
                title="Wochenstunden für Januar landen in Woche 00",
                complaint="Die Wochenübersicht für Januar zeigt eine Woche 00, und jede Woche "
                "danach ist gegenüber dem Dienstplan um eins verschoben, der Kalenderwochen "
                "nutzt.",
                expected="Wochen sind ISO-Kalenderwochen (Montag zuerst; Woche 1 enthält den "
                "ersten Donnerstag).",
                request="week_of muss die ISO-Woche liefern, `2025-W01` für 2025-01-01, auch wenn "
                "das ISO-Jahr vom Kalenderjahr abweicht (2024-12-30 ist `2025-W01`).",
            )
        },
    ),
    example=lambda rng: _call("week_of", _date(rng, 2025, 1).isoformat()),
    fail_to_pass=lambda rng: [
        _call("week_of", _date(rng, 2025).isoformat()),
        _call("week_of", f"2025-12-{rng.randint(29, 31)}"),
        _call("week_of", f"2027-01-0{rng.randint(1, 3)}"),
        _export(_roster(rng, 4, year=2025), "--format", "weekly"),
    ],
    known_bad={
        "week-number-plus-one": (
            Replace(
                ROSTER,
                '    return datetime.date.fromisoformat(iso_date).strftime("%Y-W%W")\n',
                "    day = datetime.date.fromisoformat(iso_date)\n"
                "    return f\"{day.year}-W{int(day.strftime('%W')) + 1:02d}\"\n",
            ),
        ),
    },
)

DECIMAL_COMMA = Change(
    id="decimal-comma",
    kind="bug",
    undo=(
        Replace(
            EXPORT,
            '    return f"{minutes / 60:.2f}".replace(".", ",")\n',
            '    return f"{minutes / 60:.2f}"\n',
        ),
        Replace("tests/test_export.py", '"7,50"', '"7.50"'),
        Replace(
            "tests/test_export.py", '"Lisa Brandt;05.12.2024;4,50"', '"Lisa Brandt;05.12.2024;4.50"'
        ),
    ),
    report=Report(
        title="Payroll import rejects our hours file",
        complaint="The payroll office says their system refuses the hours file since the new "
        "version: it reads 7.50 as seven thousand fifty hours or not at all.",
        expected="Hours in the payroll and weekly exports use a decimal comma, as payroll expects.",
        request="hours_text must write hours with a decimal comma (`7,50`), two decimals; "
        "dates and names in the export stay as they are.",
        translations={
            "de": Report(
                title="Lohnimport lehnt unsere Stundendatei ab",
                complaint="Die Lohnbuchhaltung sagt, ihr System lehnt die Stundendatei seit der "
                "neuen Version ab: 7.50 liest es als siebentausendfünfzig Stunden oder gar nicht.",
                expected="Stunden im Lohn- und Wochenexport haben ein Dezimalkomma, wie die "
                "Lohnbuchhaltung es erwartet.",
                request="hours_text muss Stunden mit Dezimalkomma (`7,50`) und zwei "
                "Nachkommastellen schreiben; Datum und Namen im Export bleiben, wie sie sind.",
            )
        },
    ),
    example=lambda rng: _call("hours_text", rng.randrange(15, 600, 15)),
    fail_to_pass=lambda rng: [
        _call("hours_text", rng.randrange(15, 700, 15)),
        _export(_roster(rng, 3)),
        _export(_roster(rng, 3), "--format", "weekly"),
    ],
    known_bad={
        "comma-everywhere": (
            Replace(
                EXPORT,
                "        lines.append(f\"{shift['employee']};{german_date(shift['date'])};"
                '{hours_text(paid)}")\n',
                "        line = f\"{shift['employee']};{german_date(shift['date'])};"
                '{hours_text(paid)}"\n        lines.append(line.replace(".", ","))\n',
            ),
        ),
    },
)

EMPLOYEE_FILTER = Change(
    id="employee-filter",
    kind="feature",
    undo=(
        Replace(
            CLI, '    export.add_argument("--employee", help="only this employee\'s shifts")\n', ""
        ),
        Replace(
            CLI,
            "    if args.employee:\n"
            '        shifts = [shift for shift in shifts if shift["employee"] == args.employee]\n',
            "",
        ),
        Replace(
            CLI,
            "[--format F] [--employee NAME] [--out FILE]",
            "[--format F] [--out FILE]",
        ),
        Replace(
            "README.md",
            'python -m rota.cli export data/roster.csv --format weekly --employee "Jana Kowalski"',
            "python -m rota.cli export data/roster.csv --format weekly",
        ),
    ),
    report=Report(
        title="Export one person's shifts",
        complaint="Staff keep asking for their own shifts as a calendar file and I have to "
        "delete everyone else's by hand.",
        expected="The export takes an option to keep only one employee's shifts.",
        request="`rota export` gets an `--employee NAME` option that keeps only the shifts of "
        "the employee with exactly that name, for every format.",
        translations={
            "de": Report(
                title="Die Dienste einer Person exportieren",
                complaint="Das Personal fragt ständig nach den eigenen Diensten als "
                "Kalenderdatei, und ich lösche alle anderen von Hand.",
                expected="Der Export bekommt eine Option, die nur die Dienste einer Person behält.",
                request="`rota export` bekommt eine Option `--employee NAME`, die nur die Dienste "
                "der Person mit genau diesem Namen behält, in jedem Format.",
            )
        },
    ),
    example=lambda rng: _export(_roster(rng, 4), "--employee", rng.choice(EMPLOYEES[:4])),
    fail_to_pass=lambda rng: [
        _export(_roster(rng, 5), "--employee", rng.choice(EMPLOYEES[:4])),
        _export(_roster(rng, 4), "--format", "ics", "--employee", rng.choice(EMPLOYEES[:4])),
        _export(_roster(rng, 5), "--format", "weekly", "--employee", rng.choice(EMPLOYEES[:4])),
    ],
    known_bad={
        "filters-payroll-only": (
            Replace(
                CLI,
                '    if args.format == "ics":\n',
                '    if args.format == "payroll" and args.employee:\n'
                '        shifts = [s for s in shifts if s["employee"] == args.employee]\n'
                '    if args.format == "ics":\n',
            ),
            Replace(
                CLI,
                '    export.add_argument("--out"',
                '    export.add_argument("--employee")\n    export.add_argument("--out"',
            ),
        ),
    },
)

BREAK_BOUNDARY = Change(
    id="break-boundary",
    kind="bug",
    undo=(
        Replace(TIMES, "    if worked > 9 * 60:\n", "    if worked >= 9 * 60:\n"),
        Replace(TIMES, "    if worked > 6 * 60:\n", "    if worked >= 6 * 60:\n"),
    ),
    report=Report(
        title="Break deducted from six-hour shifts",
        complaint="The works council complains that staff doing exactly six hours lose half an "
        "hour of pay for a break they are not required to take.",
        expected="The break is deducted only for *more than* six (30 minutes) or nine hours "
        "(45 minutes) of work, as the law says.",
        request="paid_minutes: deduct 30 minutes only above 6:00 worked and 45 minutes only "
        "above 9:00; exactly 6:00 and 9:00 are paid as 6:00 and 8:30.",
        translations={
            "de": Report(
                title="Pause wird bei Sechs-Stunden-Diensten abgezogen",
                complaint="Der Betriebsrat beschwert sich, dass Leute mit genau sechs Stunden "
                "eine halbe Stunde Lohn für eine Pause verlieren, die sie nicht machen müssen.",
                expected="Die Pause wird nur bei *mehr als* sechs (30 Minuten) bzw. neun Stunden "
                "(45 Minuten) Arbeit abgezogen, wie im Gesetz.",
                request="paid_minutes: 30 Minuten erst über 6:00 Arbeit abziehen und 45 Minuten "
                "erst über 9:00; genau 6:00 und 9:00 werden als 6:00 und 8:30 bezahlt.",
            )
        },
    ),
    example=lambda rng: _call("paid_minutes", *_day_shift(rng, 6 * 60)),
    fail_to_pass=lambda rng: [
        _call("paid_minutes", *_day_shift(rng, 6 * 60)),
        _call("paid_minutes", *_day_shift(rng, 9 * 60)),
        _export(_roster(rng, 2, lambda r: _day_shift(r, 9 * 60))),
    ],
    pass_to_pass=lambda rng: [
        _call("paid_minutes", *_day_shift(rng, 6 * 60 + rng.randint(1, 5))),
        _call("paid_minutes", *_day_shift(rng, 9 * 60 + rng.randint(1, 8))),
    ],
    known_bad={
        "fixes-six-hours-only": (
            Replace(TIMES, "    if worked >= 6 * 60:\n", "    if worked > 6 * 60:\n"),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="shift-exporter",
    title="the shift-schedule exporter",
    project="shift_exporter",
    cli="rota.cli:main",
    locale="de-DE",
    changes=(OVERNIGHT, ISO_WEEK, DECIMAL_COMMA, EMPLOYEE_FILTER, BREAK_BOUNDARY),
    pass_to_pass=_pass_to_pass,
    titles={"de": "der Dienstplan-Export"},
    tags=("scheduling", "dates", "payroll"),
)
