"""The meter-reading importer: vendors' files to consumption per billing period."""

from __future__ import annotations

import datetime
import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

VENDORS = "meterread/vendors.py"
CONSUMPTION = "meterread/consumption.py"
BILLING = "meterread/billing.py"
CLI = "meterread/cli.py"
Reading = dict[str, object]
QUARTERS = (
    ("2024-01-01", "2024-03-31"),
    ("2024-04-01", "2024-06-30"),
    ("2024-07-01", "2024-09-30"),
    ("2024-10-01", "2024-12-31"),
)


def _meter(rng: random.Random, vendor: str = "voltmark") -> str:
    if vendor == "quadra":
        return f"Q{rng.randint(1, 9)}-{rng.randint(0, 999_999):06d}"
    return (
        f"{rng.choice('SKLZ')}{rng.randint(10, 99)}{rng.choice('ABCD')}{rng.randint(0, 99_999):05d}"
    )


def _readings(
    rng: random.Random,
    count: int = 4,
    digits: int = 5,
    *,
    meter: str = "",
    first: datetime.date | None = None,
    estimated: tuple[int, ...] = (),
    near_top: bool = False,
) -> list[Reading]:
    """One meter's readings 20 to 70 days apart; ``near_top``: the counter goes round."""
    top = 10**digits
    value = top - rng.randint(200, 900) if near_top else rng.randint(0, top // 2)
    day = first or datetime.date(2023, rng.randint(10, 12), rng.randint(1, 28))
    found: list[Reading] = []
    for index in range(count):
        found.append(
            {
                "meter": meter or "M1",
                "date": day.isoformat(),
                "value": value % top,
                "estimated": index in estimated,
            }
        )
        day += datetime.timedelta(days=rng.randint(20, 70))
        value += rng.randint(150, 1_400)
    return found


def _voltmark(readings: list[Reading], types: tuple[str, ...] = ("ACTUAL", "CUSTOMER")) -> str:
    lines = ["MeterID,ReadDate,Reading,ReadType"]
    for reading in readings:
        day = datetime.date.fromisoformat(str(reading["date"]))
        kind = "ESTIMATE" if reading["estimated"] else types[len(lines) % len(types)]
        lines.append(f"{reading['meter']},{day:%d/%m/%Y},{int(str(reading['value'])):05d},{kind}")
    return "\n".join(lines) + "\n"


def _quadra(readings: list[Reading]) -> str:
    lines = ["HDR QUADRA 2.1 20250105"]
    for reading in readings:
        day = str(reading["date"]).replace("-", "")
        flag = "E" if reading["estimated"] else "A"
        lines.append(f"{reading['meter']!s:<12}{day}{int(str(reading['value'])):09d}{flag}")
    lines.append(f"TRL {len(readings):06d}")
    return "\n".join(lines) + "\n"


def _bill(
    readings: list[Reading], vendor: str, period: tuple[str, str], digits: int | None = None
) -> Probe:
    name = "readings.csv" if vendor == "voltmark" else "readings.txt"
    text = _voltmark(readings) if vendor == "voltmark" else _quadra(readings)
    extra = ("--digits", str(digits)) if digits is not None else ()
    return Probe(
        cli="meterread.cli:main",
        argv=("bill", name, "--vendor", vendor, "--period", ":".join(period), *extra),
        files={name: text},
    )


def _fleet(rng: random.Random, vendor: str, meters: int = 2, digits: int = 5) -> list[Reading]:
    found: list[Reading] = []
    for _ in range(meters):
        found += _readings(rng, rng.randint(4, 7), digits, meter=_meter(rng, vendor))
    rng.shuffle(found)
    return found


def _call(function: str, *args: object) -> Probe:
    module = {"advance": "consumption", "intervals": "consumption", "apportion": "billing"}
    module |= {"bill": "billing", "read_voltmark": "vendors", "read_quadra": "vendors"}
    module |= {"voltmark_date": "vendors"}
    return Probe(call=f"meterread.{module[function]}:{function}", args=args)


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    value = rng.randint(0, 90_000)
    return [
        _call("advance", value, value + rng.randint(0, 5_000)),
        _call("advance", 99_999 - rng.randint(0, 500), rng.randint(0, 500)),
        _call("advance", value + 500, value + rng.randint(0, 499), 5, True),
        _call("read_quadra", _quadra(_readings(rng, 3, 6, meter=_meter(rng, "quadra")))),
        _call("intervals", _readings(rng, 4), 5),
        _bill(_fleet(rng, "quadra", 2, 6), "quadra", QUARTERS[0], 6),
    ]


ROLLOVER = Change(
    id="six-dial-rollover",
    kind="bug",
    undo=(
        Replace(
            CONSUMPTION,
            "    return current + 10**digits - previous\n",
            "    return current + 10**DIALS - previous\n",
        ),
        Replace(
            "tests/test_billing.py",
            "    def test_six_dials(self):\n"
            "        self.assertEqual(advance(999990, 12, 6), 22)\n\n",
            "",
        ),
    ),
    report=Report(
        title="Negative consumption after a six-dial meter went round",
        complaint="A customer with one of the old Quadra meters got a bill for minus 899,000 "
        "kWh. The meter display went from 999,8xx to a few hundred, which is normal for a "
        "counter that goes round.",
        expected="When a meter's counter goes round, the consumption counts from its last "
        "reading up to the top of that meter's counter and on from zero, whatever the number "
        "of dials.",
        request="advance(previous, current, digits, previous_estimated) must use the meter's "
        "`digits` for the rollover (six dials: 999900 then 000150 is 250 kWh), keep five dials "
        "as the default, and keep a lower reading after an estimate as a negative correction.",
    ),
    example=lambda rng: _call("advance", 999_999 - rng.randint(0, 900), rng.randint(0, 900), 6),
    fail_to_pass=lambda rng: [
        _call("advance", 999_999 - rng.randint(0, 5_000), rng.randint(0, 5_000), 6),
        _call("advance", 9_999 - rng.randint(0, 300), rng.randint(0, 300), 4),
        _call("intervals", _readings(rng, 4, 6, near_top=True), 6),
        _bill(_readings(rng, 5, 6, meter="Q1-004411", near_top=True), "quadra", QUARTERS[0], 6),
    ],
    pass_to_pass=lambda rng: [
        _call("advance", 999_999 - rng.randint(0, 900), 999_999 - rng.randint(901, 2_000), 6, True),
        _call("advance", rng.randint(0, 50_000), rng.randint(50_001, 99_999), 5),
        _call("advance", 99_999 - rng.randint(0, 900), rng.randint(0, 900)),
    ],
    known_bad={
        "modulo-everything": (
            Replace(
                CONSUMPTION,
                "    if current >= previous or previous_estimated:\n"
                "        return current - previous\n"
                "    return current + 10**DIALS - previous\n",
                "    return (current - previous) % 10**digits\n",
            ),
        ),
    },
)


def _straddling(rng: random.Random, quarter: int, digits: int = 5) -> list[Reading]:
    """Readings from before the quarter to after it, one of them a few days before its end."""
    start, end = (datetime.date.fromisoformat(day) for day in QUARTERS[quarter])
    days = [
        start - datetime.timedelta(days=rng.randint(1, 30)),
        start + datetime.timedelta(days=rng.randint(20, 60)),
        end - datetime.timedelta(days=rng.randint(1, 15)),
        end + datetime.timedelta(days=rng.randint(2, 40)),
    ]
    found = _readings(rng, 4, digits)
    for reading, day in zip(found, days, strict=True):
        reading["date"] = day.isoformat()
    return found


def _spans(rng: random.Random, quarter: int) -> list[dict[str, object]]:
    start, end = (datetime.date.fromisoformat(day) for day in QUARTERS[quarter])
    begins = end - datetime.timedelta(days=rng.randint(0, 20))
    return [
        {
            "start": (start + datetime.timedelta(days=3)).isoformat(),
            "end": begins.isoformat(),
            "kwh": rng.randint(300, 3_000),
        },
        {
            "start": begins.isoformat(),
            "end": (end + datetime.timedelta(days=rng.randint(2, 40))).isoformat(),
            "kwh": rng.randint(100, 900),
        },
    ]


LAST_DAY = Change(
    id="period-last-day",
    kind="bug",
    undo=(
        Replace(
            BILLING,
            "    stop = datetime.date.fromisoformat(end) + ONE_DAY\n",
            "    stop = datetime.date.fromisoformat(end)\n",
        ),
        Replace(
            "tests/test_billing.py",
            "    def test_shared_by_days(self):\n"
            '        spans = [{"start": "2024-03-22", "end": "2024-04-11", "kwh": 200}]\n'
            '        self.assertEqual(apportion(spans, "2024-01-01", "2024-03-31"), 100)\n\n',
            "",
        ),
    ),
    report=Report(
        title="Quarterly bills a day short",
        complaint="Finance compared the four quarterly bills of a customer with the year's "
        "meter readings: each quarter loses a little, about one day of consumption, when the "
        "next reading comes after the quarter's end.",
        expected="A billing period includes its last day: consumption that straddles the end "
        "is shared out with every day of the period counted, as the README says.",
        request="apportion(spans, start, end) must count both the first and the last day of "
        "the period (01/01 to 31/03 is 91 days in 2024) when it shares a span's kWh out by "
        "days; spans wholly inside the period stay as they are.",
    ),
    example=lambda rng: _call("apportion", _spans(rng, 0)[1:], *QUARTERS[0]),
    fail_to_pass=lambda rng: [
        _call("apportion", _spans(rng, 1), *QUARTERS[1]),
        _call("apportion", _spans(rng, 2), *QUARTERS[2]),
        _call("bill", _straddling(rng, 0), *QUARTERS[0]),
        _bill(_straddling(rng, 3), "voltmark", QUARTERS[3]),
    ],
    pass_to_pass=lambda rng: [
        _call("apportion", _spans(rng, 1)[:1], *QUARTERS[1]),
        _call(
            "apportion",
            [{"start": "2023-12-10", "end": "2024-02-02", "kwh": rng.randint(100, 900)}],
            *QUARTERS[0],
        ),
    ],
    known_bad={
        "counts-both-ends": (
            Replace(
                BILLING,
                "        days = (ends - begins).days\n"
                "        overlap = (min(ends, stop) - max(begins, first)).days\n",
                "        days = (ends - begins).days + 1\n"
                "        overlap = (min(ends, stop) - max(begins, first)).days + 1\n",
            ),
        ),
    },
)


def _dates(rng: random.Random, count: int, low_days: bool) -> list[Reading]:
    """Readings on days 1 to 12 (``low_days``, a month that is not the day) or 13 to 28."""
    found = _readings(rng, count, meter=_meter(rng))
    for reading in found:
        month = rng.randint(1, 12)
        day = (
            rng.choice([d for d in range(1, 13) if d != month]) if low_days else rng.randint(13, 28)
        )
        reading["date"] = f"2024-{month:02d}-{day:02d}"
    found.sort(key=lambda reading: str(reading["date"]))
    return found


_PARSE = "datetime.datetime.strptime(text.strip(), "

US_DATES = Change(
    id="voltmark-day-first",
    kind="bug",
    undo=(
        Replace(
            VENDORS, '.strptime(text.strip(), "%d/%m/%Y")', '.strptime(text.strip(), "%m/%d/%Y")'
        ),
        Replace("tests/test_vendors.py", "M1,31/01/2024,00412", "M1,01/01/2024,00412"),
        Replace("tests/test_vendors.py", '"date": "2024-01-31"', '"date": "2024-01-01"'),
    ),
    report=Report(
        title="Voltmark import: 'time data does not match format'",
        complaint="The Voltmark file for March stopped the import with an error about a date. "
        "Looking closer, February's readings are also on strange days: a reading from 3 "
        "February is in the system as 2 March.",
        expected="Voltmark's dates are British, day first (31/01/2024 is 31 January), and are "
        "read as such.",
        request="read_voltmark / voltmark_date must read `dd/mm/yyyy` (`03/02/2024` is "
        "`2024-02-03`) and keep rejecting dates that are not valid that way.",
    ),
    example=lambda rng: _call(
        "voltmark_date", f"{rng.randint(13, 28)}/{rng.randint(1, 12):02d}/2024"
    ),
    fail_to_pass=lambda rng: [
        _call("voltmark_date", f"{rng.randint(13, 28)}/{rng.randint(1, 12):02d}/2023"),
        _call("read_voltmark", _voltmark(_dates(rng, 3, low_days=True))),
        _call("read_voltmark", _voltmark(_dates(rng, 4, low_days=False))),
        _bill(_dates(rng, 5, low_days=True), "voltmark", QUARTERS[rng.randint(1, 3)]),
    ],
    pass_to_pass=lambda rng: [
        _call("voltmark_date", f"{rng.randint(1, 12):02d}/{rng.randint(13, 28)}/2024"),
        _call("read_quadra", _quadra(_readings(rng, 3, meter=_meter(rng, "quadra")))),
    ],
    known_bad={
        "tries-us-first": (
            Replace(
                VENDORS,
                f'    return {_PARSE}"%m/%d/%Y").date().isoformat()\n',
                "    try:\n"
                f'        return {_PARSE}"%m/%d/%Y").date().isoformat()\n'
                "    except ValueError:\n"
                f'        return {_PARSE}"%d/%m/%Y").date().isoformat()\n',
            ),
        ),
    },
)


def _flagged(rng: random.Random, vendor: str, outside: bool) -> list[Reading]:
    """Two meters' readings around a quarter; ``outside``: one meter's only estimate lies
    outside the quarter, so its bill rests on actual readings alone."""
    found: list[Reading] = []
    for index in range(2):
        readings = _straddling(rng, 1)
        readings.insert(0, {**readings[0], "date": "2023-11-20", "value": 0})
        readings[0]["estimated"] = outside and index == 0
        for reading in readings[1:]:
            reading["estimated"] = not outside and rng.random() < 0.4
        if not outside and index == 1:
            readings[-1]["estimated"] = True
        meter = _meter(rng, vendor)
        found += [{**reading, "meter": meter} for reading in readings]
    return found


def _mid_estimate(rng: random.Random, meter: str = "M1") -> list[Reading]:
    """Readings around the second quarter, the one inside it an estimate, the closing one
    after it actual."""
    readings = _straddling(rng, 1)
    readings[1]["estimated"] = True
    return [{**reading, "meter": meter} for reading in readings]


def _closing_estimate(rng: random.Random) -> list[Reading]:
    """Readings around the second quarter, only the closing one (after it) an estimate."""
    readings = _straddling(rng, 1)
    readings[-1]["estimated"] = True
    return readings


ESTIMATED = Change(
    id="estimated-flag",
    kind="feature",
    undo=(
        Replace(
            BILLING,
            '    """One meter\'s consumption in the period: ``{"kwh": ..., "estimated": ...}``; '
            "estimated\n    when a reading that the period's consumption rests on is an "
            'estimate."""\n',
            '    """One meter\'s consumption in the period: ``{"kwh": ...}``."""\n',
        ),
        Replace(
            BILLING,
            '    estimated = any(span["start_estimated"] or span["end_estimated"] for span in '
            "spans)\n",
            "",
        ),
        Replace(
            BILLING,
            '    return {"kwh": apportion(spans, start, end), "estimated": estimated}\n',
            '    return {"kwh": apportion(spans, start, end)}\n',
        ),
        Replace(
            CLI,
            '        flag = "  (estimated)" if result["estimated"] else ""\n'
            "        lines.append(f\"{meter:<14}{result['kwh']:>12,.2f} kWh{flag}\")\n",
            "        lines.append(f\"{meter:<14}{result['kwh']:>12,.2f} kWh\")\n",
        ),
        Replace(CLI, "serial, kWh, and whether it rests on an estimate.", "serial and kWh."),
        Replace(
            "tests/test_billing.py",
            '{"kwh": 600, "estimated": True}',
            '{"kwh": 600}',
        ),
    ),
    report=Report(
        title="Bills must say when they are based on estimated readings",
        complaint="A customer complained to the ombudsman: her bill was based on an estimated "
        "reading and nothing on it said so. Compliance says every bill has to show when its "
        "consumption is estimated, e.g. with (estimated) after the kWh.",
        expected="Each meter's bill result gets an `estimated` flag (true or false), and the "
        "printed line of an estimated meter ends in `  (estimated)`.",
        request='bill() must return `{"kwh": ..., "estimated": bool}`, and `meterread bill` '
        "must append `  (estimated)` to the line of a meter whose consumption is estimated.",
    ),
    example=lambda rng: _bill(_flagged(rng, "voltmark", False), "voltmark", QUARTERS[1]),
    fail_to_pass=lambda rng: [
        _bill(_flagged(rng, "quadra", False), "quadra", QUARTERS[1]),
        _call("bill", _straddling(rng, 1), *QUARTERS[1]),
        _call("bill", _flagged(rng, "voltmark", True)[:5], *QUARTERS[1]),
        _call("bill", _mid_estimate(rng), *QUARTERS[1]),
        _call("bill", _closing_estimate(rng), *QUARTERS[1]),
        _bill(_mid_estimate(rng, _meter(rng)), "voltmark", QUARTERS[1]),
    ],
    pass_to_pass=lambda rng: [_bill(_flagged(rng, "voltmark", True), "voltmark", QUARTERS[1])],
    readings={
        "closing": (
            Replace(
                BILLING,
                '    estimated = any(span["start_estimated"] or span["end_estimated"] for span in '
                "spans)\n",
                '    estimated = bool(spans) and spans[-1]["end_estimated"]\n',
            ),
        ),
    },
    known_bad={
        "any-reading-in-the-file": (
            Replace(
                BILLING,
                '    return {"kwh": apportion(spans, start, end)}\n',
                '    estimated = any(reading["estimated"] for reading in readings)\n'
                '    return {"kwh": apportion(spans, start, end), "estimated": estimated}\n',
            ),
            Replace(
                CLI,
                "        lines.append(f\"{meter:<14}{result['kwh']:>12,.2f} kWh\")\n",
                '        flag = "  (estimated)" if result["estimated"] else ""\n'
                "        lines.append(f\"{meter:<14}{result['kwh']:>12,.2f} kWh{flag}\")\n",
            ),
        ),
    },
)


def _customer_reads(rng: random.Random, count: int) -> list[Reading]:
    """Quadra readings of one meter, some of them the customer's own (flag ``C``)."""
    readings = _readings(rng, count, 6, meter=_meter(rng, "quadra"), estimated=(1,))
    for reading in rng.sample(readings[2:], max(1, (count - 2) // 2)):
        reading["customer"] = True
    return readings


def _quadra_flags(readings: list[Reading]) -> str:
    text = _quadra(readings)
    lines = text.splitlines()
    for index, reading in enumerate(readings, 1):
        if reading.get("customer"):
            lines[index] = lines[index][:-1] + "C"
    return "\n".join(lines) + "\n"


def _quadra_bill(readings: list[Reading], quarter: int) -> Probe:
    probe = _bill(readings, "quadra", QUARTERS[quarter], 6)
    return Probe(cli=probe.cli, argv=probe.argv, files={"readings.txt": _quadra_flags(readings)})


CUSTOMER_READS = Change(
    id="quadra-customer-reads",
    kind="bug",
    undo=(
        Replace(
            VENDORS,
            'QUADRA_FLAGS = {"A": False, "C": False, "E": True}\n',
            'QUADRA_FLAGS = {"A": False, "E": True}\n',
        ),
        Replace("tests/test_vendors.py", "20240318000873390C", "20240318000873390A"),
    ),
    report=Report(
        title="Quadra import fails: unknown read flag 'C'",
        complaint="Since Quadra started sending the readings customers submit through the app, "
        "the nightly import of their file fails and nobody gets billed.",
        expected="Customer reads (flag C) are imported like actual readings, as Quadra's format "
        "description in the README says; A and E stay as they are.",
        request="read_quadra must accept the flag `C` (a customer read) and import it as an "
        "actual reading (`estimated` false); unknown flags still raise ValueError.",
    ),
    example=lambda rng: _call("read_quadra", _quadra_flags(_customer_reads(rng, 3))),
    fail_to_pass=lambda rng: [
        _call("read_quadra", _quadra_flags(_customer_reads(rng, 5))),
        _call("read_quadra", _quadra_flags(_customer_reads(rng, 4))),
        _quadra_bill(_customer_reads(rng, 6), 0),
    ],
    pass_to_pass=lambda rng: [
        _call("read_quadra", _quadra(_readings(rng, 4, 6, meter=_meter(rng, "quadra")))),
        _call("read_voltmark", _voltmark(_readings(rng, 5, meter=_meter(rng), estimated=(2,)))),
        _call("read_voltmark", _voltmark(_readings(rng, 3, meter=_meter(rng), estimated=(0,)))),
        _call("read_quadra", _quadra_flags(_customer_reads(rng, 3)).replace("C\n", "X\n")),
    ],
    known_bad={
        "customer-reads-as-estimates": (
            Replace(
                VENDORS,
                'QUADRA_FLAGS = {"A": False, "E": True}\n',
                'QUADRA_FLAGS = {"A": False, "C": True, "E": True}\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="meter-readings",
    title="the meter-reading importer",
    project="meter_readings",
    cli="meterread.cli:main",
    locale="en-GB",
    changes=(ROLLOVER, LAST_DAY, US_DATES, ESTIMATED, CUSTOMER_READS),
    pass_to_pass=_pass_to_pass,
    tags=("utilities", "file-formats", "dates"),
)
