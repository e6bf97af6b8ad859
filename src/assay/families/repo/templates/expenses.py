"""The expense report validator: per-diem rates per country, receipts in foreign currencies at
the ECB rate of their date, approval limits, and a command line that says what to reject."""

from __future__ import annotations

import datetime
import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

KURSE = "spesen/kurse.py"
TAGEGELD = "spesen/tagegeld.py"
PRUEFUNG = "spesen/pruefung.py"
TESTS = "tests/test_spesen.py"
CLI = "spesen/cli.py"
HEADER = "beleg;datum;kategorie;betrag;waehrung;land;stunden;haendler"
CURRENCIES = {"GBP": 0.855, "USD": 1.083, "CHF": 0.957, "PLN": 4.31, "JPY": 161.4, "CZK": 25.3}
COUNTRY = {"GBP": "GB", "USD": "US", "CHF": "CH", "PLN": "PL", "JPY": "JP", "CZK": "CZ"}
PER_DIEM = {"DE": (28, 14), "AT": (50, 33), "FR": (53, 36), "GB": (52, 35), "US": (59, 40)}
PER_DIEM |= {"CH": (66, 44), "IT": (42, 28), "PL": (34, 23), "JP": (52, 35), "NL": (47, 32)}
MERCHANTS = {
    "hotel": ("Premier Inn", "Hilton Garden Inn", "Motel One", "Ibis Styles", "Marriott"),
    "taxi": ("Addison Lee", "Yellow Cab", "Uber", "Taxi 24", "FreeNow"),
    "bewirtung": ("Dishoom", "Zum Franziskaner", "Nobu", "Trattoria Roma", "Pret A Manger"),
    "bahn": ("Deutsche Bahn", "Eurostar", "SBB", "Amtrak", "PKP Intercity"),
}
Rates = dict[str, dict[str, str]]


class Trip:
    """A trip's rates: weekdays of three weeks in early 2024 with one bank holiday."""

    def __init__(self, rng: random.Random) -> None:
        start = datetime.date(2024, 1, 1) + datetime.timedelta(weeks=rng.randint(0, 5))
        days = [start + datetime.timedelta(days=n) for n in range(21)]
        weekdays = [day for day in days if day.weekday() < 5]
        self.holiday = rng.choice(weekdays[1:-1])
        self.rates: Rates = {}
        for currency, base in CURRENCIES.items():
            places = 2 if base > 100 else 4
            self.rates[currency] = {
                day.isoformat(): f"{base * rng.uniform(0.97, 1.03):.{places}f}"
                for day in weekdays
                if day != self.holiday
            }
        self.open = [day for day in weekdays if day != self.holiday]
        self.closed = [
            day for day in days if day > start and day.isoformat() not in self.rates["GBP"]
        ]

    def text(self, receipts: list[str]) -> str:
        """The rates file with the currencies of ``receipts`` (report lines), from four days
        before the first receipt to four days after the last."""
        used = {line.split(";")[4] for line in receipts}
        days = [datetime.datetime.strptime(line.split(";")[1], "%d.%m.%Y") for line in receipts]
        first = (min(days) - datetime.timedelta(days=4)).date().isoformat()
        last = (max(days) + datetime.timedelta(days=4)).date().isoformat()
        lines = ["datum;waehrung;kurs"]
        for currency, rates in self.rates.items():
            if currency not in used:
                continue
            for day, rate in rates.items():
                if not first <= day <= last:
                    continue
                shown = datetime.date.fromisoformat(day).strftime("%d.%m.%Y")
                lines.append(f"{shown};{currency};{rate.replace('.', ',')}")
        return "\n".join(lines) + "\n"


def _de(cents: int) -> str:
    units, rest = divmod(cents, 100)
    return f"{units:,}".replace(",", ".") + f",{rest:02d}"


def _line(
    number: int,
    day: datetime.date,
    kind: str,
    cents: int,
    currency: str,
    *,
    merchant: str = "",
    hours: int | None = None,
    country: str | None = None,
) -> str:
    land = country or COUNTRY.get(currency, "DE")
    shown_hours = "" if hours is None else str(hours)
    return (
        f"B{number};{day:%d.%m.%Y};{kind};{_de(cents)};{currency};{land};{shown_hours};{merchant}"
    )


def _receipt(rng: random.Random, number: int, day: datetime.date, currency: str = "") -> str:
    kind = rng.choice(("hotel", "taxi", "bewirtung", "bahn"))
    code = currency or rng.choice((*CURRENCIES, "EUR", "EUR"))
    ceiling = {"hotel": 150, "taxi": 60, "bewirtung": 200, "bahn": 300}[kind]
    euros = rng.randint(ceiling // 6, ceiling)
    cents = round(euros * CURRENCIES.get(code, 1.0) * 100) + rng.randint(0, 99)
    return _line(number, day, kind, cents, code, merchant=rng.choice(MERCHANTS[kind]))


def _per_diem(rng: random.Random, number: int, day: datetime.date, hours: int) -> str:
    land = rng.choice(sorted(PER_DIEM))
    full, partial = PER_DIEM[land]
    claim = full if hours >= 24 else partial
    return _line(number, day, "tagegeld", claim * 100, "EUR", hours=hours, country=land)


def _report(lines: list[str]) -> str:
    return "\n".join([HEADER, *lines]) + "\n"


def _ordinary(rng: random.Random, trip: Trip, count: int) -> list[str]:
    lines = [_receipt(rng, n + 1, rng.choice(trip.open)) for n in range(count)]
    lines.append(_per_diem(rng, count + 1, rng.choice(trip.open), rng.choice((10, 14, 24))))
    return lines


def _check(trip: Trip, lines: list[str]) -> Probe:
    return Probe(call="spesen.pruefung:pruefe", args=(_report(lines), trip.text(lines)))


def _cli(trip: Trip, lines: list[str]) -> Probe:
    return Probe(
        cli="spesen.cli:main",
        argv=("pruefen", "abrechnung.csv", "--kurse", "kurse.csv"),
        files={"abrechnung.csv": _report(lines), "kurse.csv": trip.text(lines)},
    )


def _euro(rng: random.Random, trip: Trip, day: datetime.date, currency: str = "") -> Probe:
    code = currency or rng.choice(sorted(CURRENCIES))
    cents = rng.randint(1_000, 90_000) * (100 if code == "JPY" else 1)
    near = [(day + datetime.timedelta(days=n)).isoformat() for n in range(-6, 6)]
    rates = {code: {at: rate for at, rate in trip.rates[code].items() if at in near}}
    return Probe(call="spesen.kurse:in_euro", args=(cents, code, day.isoformat(), rates))


def _rate(land: str, hours: int) -> Probe:
    return Probe(call="spesen.tagegeld:tagessatz", args=(land, hours))


def _typo(rng: random.Random, trip: Trip) -> str:
    """A receipt whose amount was mistyped (three decimals): the check stops with an error."""
    amount = f"{rng.randint(1, 99)},{rng.randint(100, 999)}"
    return f"B9;{rng.choice(trip.open):%d.%m.%Y};taxi;{amount};EUR;DE;;Taxi 24"


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    trip = Trip(rng)
    return [
        Probe(call="spesen.betraege:parse_betrag", args=(_de(rng.randint(1, 9_999_999)),)),
        Probe(call="spesen.betraege:format_betrag", args=(rng.randint(-999_999, 9_999_999),)),
        _euro(rng, trip, rng.choice(trip.open)),
        _rate(rng.choice(sorted(PER_DIEM)), rng.randint(9, 23)),
        _rate(rng.choice(sorted(PER_DIEM)), rng.randint(0, 7)),
        _check(trip, _ordinary(rng, trip, 3)),
        _cli(trip, _ordinary(rng, trip, 4)),
        _cli(trip, [*_ordinary(rng, trip, 2), _typo(rng, trip)]),
    ]


def _weekday_rate(rng: random.Random, typed: str = "") -> Probe:
    trip = Trip(rng)
    probe = _euro(rng, trip, trip.open[-1], typed.strip().upper())
    if not typed:
        return probe
    return Probe(call=probe.call, args=(probe.args[0], typed, *probe.args[2:]))


def _unknown(rng: random.Random) -> Probe:
    trip = Trip(rng)
    day = rng.choice(trip.open).isoformat()
    return Probe(
        call="spesen.kurse:in_euro", args=(rng.randint(100, 9_999), "SEK", day, trip.rates)
    )


def _ordinary_check(rng: random.Random) -> Probe:
    trip = Trip(rng)
    return _check(trip, _ordinary(rng, trip, 3))


def _weekend_example(rng: random.Random) -> Probe:
    trip = Trip(rng)
    return _euro(rng, trip, rng.choice(trip.closed))


def _weekend_cases(rng: random.Random) -> list[Probe]:
    trip = Trip(rng)
    saturday = _receipt(rng, 4, rng.choice(trip.closed), "USD")
    holiday = _receipt(rng, 1, trip.holiday, "CHF")
    before = trip.open[0] - datetime.timedelta(days=rng.randint(1, 2))
    return [
        _euro(rng, trip, before, rng.choice(("USD", "CHF"))),
        _euro(rng, trip, rng.choice(trip.closed), "GBP"),
        _euro(rng, trip, trip.holiday),
        _euro(rng, trip, rng.choice(trip.closed), "JPY"),
        _check(trip, [*_ordinary(rng, trip, 2), saturday]),
        _cli(trip, [holiday, *_ordinary(rng, trip, 2)[1:]]),
    ]


WEEKEND_RATE = Change(
    id="weekend-rate",
    kind="bug",
    undo=(
        Replace(
            KURSE,
            "gerundet.\n\n"
            "    Ohne Kurs an dem Tag (Wochenende, Feiertag) gilt der letzte Kurs davor.\n"
            '    """',
            'gerundet."""',
        ),
        Replace(
            KURSE,
            "    frueher = [tag for tag in kurse[waehrung] if tag <= iso_datum]\n"
            "    if not frueher:\n"
            '        raise ValueError(f"kein Kurs für {waehrung} am {iso_datum} oder davor")\n'
            "    kurs = Decimal(str(kurse[waehrung][max(frueher)]))\n",
            "    # die EZB veröffentlicht für jeden Tag einen Kurs\n"
            "    kurs = Decimal(str(kurse[waehrung][iso_datum]))\n",
        ),
    ),
    report=Report(
        title="Report with receipts from the weekend cannot be checked",
        complaint="My expense report from my last business trip isn't checked at all, the tool "
        "stops with a KeyError. The only difference from usual: a few receipts are from the "
        "weekend or a public holiday.",
        expected="Receipts from weekends and public holidays are converted like any other.",
        request="in_euro must use the last ECB rate before a day that has none (weekend, public "
        "holiday; Saturday and Sunday take Friday's); with no earlier rate at all, a ValueError.",
        translations={
            "de": Report(
                title="Abrechnung mit Belegen vom Wochenende lässt sich nicht prüfen",
                complaint="Meine Abrechnung von der letzten Dienstreise wird nicht geprüft, das "
                "Tool bricht mit einem KeyError ab. Der einzige Unterschied zu sonst: ein paar "
                "Belege sind vom Wochenende oder vom Feiertag.",
                expected="Belege vom Wochenende oder von Feiertagen werden wie alle anderen "
                "umgerechnet.",
                request="in_euro muss für Tage ohne EZB-Kurs (Wochenende, Feiertag) den letzten "
                "Kurs davor nehmen (Samstag und Sonntag: den vom Freitag); gibt es keinen "
                "früheren Kurs, ein ValueError.",
            )
        },
    ),
    example=_weekend_example,
    fail_to_pass=_weekend_cases,
    pass_to_pass=lambda rng: [_weekday_rate(rng), _weekday_rate(rng, " usd"), _unknown(rng)],
    known_bad={
        "next-rate": (
            Replace(
                KURSE,
                "    kurs = Decimal(str(kurse[waehrung][iso_datum]))\n",
                "    spaeter = [tag for tag in kurse[waehrung] if tag >= iso_datum]\n"
                "    kurs = Decimal(str(kurse[waehrung][min(spaeter)]))\n",
            ),
        ),
    },
)


def _eight_hours(rng: random.Random, cli: bool = False) -> Probe:
    trip = Trip(rng)
    lines = [*_ordinary(rng, trip, 2), _per_diem(rng, 7, rng.choice(trip.open), 8)]
    return _cli(trip, lines) if cli else _check(trip, lines)


EIGHT_HOURS = Change(
    id="eight-hours",
    kind="bug",
    undo=(Replace(TAGEGELD, "    if stunden > 8:\n", "    if stunden >= 8:\n"),),
    report=Report(
        title="Per diem paid for exactly 8 hours",
        complaint="The payroll tax audit objected that we reimbursed the partial per diem for "
        "business trips of exactly eight hours. The tool waved those reports through.",
        expected="The partial per diem is only due for an absence of more than 8 hours.",
        request="tagessatz must give 0 for exactly 8 hours and the partial rate only above 8 "
        "hours; from 24 hours it stays the full rate.",
        translations={
            "de": Report(
                title="Tagegeld für genau 8 Stunden erstattet",
                complaint="Die Lohnsteuer-Außenprüfung hat beanstandet, dass wir für Dienstreisen "
                "von genau acht Stunden die kleine Pauschale erstattet haben. Das Tool hat die "
                "Abrechnungen durchgewunken.",
                expected="Die kleine Pauschale gibt es erst bei mehr als 8 Stunden Abwesenheit.",
                request="tagessatz muss für genau 8 Stunden 0 liefern und die Teilpauschale erst "
                "ab mehr als 8 Stunden; ab 24 Stunden bleibt es die volle Pauschale.",
            )
        },
    ),
    example=lambda rng: rng.choice((_rate(rng.choice(sorted(PER_DIEM)), 8), _eight_hours(rng))),
    fail_to_pass=lambda rng: [
        _rate(rng.choice(sorted(PER_DIEM)), 8),
        _rate(rng.choice(sorted(PER_DIEM)), 8),
        _eight_hours(rng),
        _eight_hours(rng, cli=True),
    ],
    pass_to_pass=lambda rng: [
        _rate(rng.choice(sorted(PER_DIEM)), 24),
        _rate(rng.choice(sorted(PER_DIEM)), 9),
        _rate(rng.choice(sorted(PER_DIEM)), 7),
    ],
    known_bad={
        "strict-at-24-too": (
            Replace(TAGEGELD, "    if stunden >= 24:\n", "    if stunden > 24:\n"),
            Replace(TAGEGELD, "    if stunden >= 8:\n", "    if stunden > 8:\n"),
        ),
    },
)


def _over_limit(rng: random.Random, trip: Trip, number: int) -> str:
    """A hotel bill in a foreign currency whose amount sits on the other side of the limit
    (180 euros) than its euro value."""
    day = rng.choice(trip.open)
    if rng.random() < 0.5:
        code, euros = "GBP", rng.randint(185, 205)
    else:
        code, euros = rng.choice(("JPY", "CZK", "PLN")), rng.randint(60, 170)
    rate = float(trip.rates[code][day.isoformat()])
    merchant = rng.choice(MERCHANTS["hotel"])
    return _line(number, day, "hotel", round(euros * rate * 100), code, merchant=merchant)


def _at_the_limit(rng: random.Random) -> Probe:
    """A hotel bill of exactly the limit with two other receipts, all in euros."""
    trip = Trip(rng)
    hotel = _line(9, rng.choice(trip.open), "hotel", 18_000, "EUR", merchant="Motel One")
    receipts = [_receipt(rng, n, rng.choice(trip.open), "EUR") for n in (1, 2)]
    return _check(trip, [*receipts, hotel])


def _limit_example(rng: random.Random) -> Probe:
    trip = Trip(rng)
    return _check(trip, [_over_limit(rng, trip, 1)])


def _limit_cases(rng: random.Random) -> list[Probe]:
    trip = Trip(rng)
    return [
        _check(trip, [_over_limit(rng, trip, 1), *_ordinary(rng, trip, 2)[1:]]),
        _check(trip, [*_ordinary(rng, trip, 1), _over_limit(rng, trip, 5)]),
        _cli(trip, [_over_limit(rng, trip, 1), _over_limit(rng, trip, 2)]),
    ]


FOREIGN_LIMIT = Change(
    id="limit-in-euros",
    kind="bug",
    undo=(
        Replace(
            PRUEFUNG,
            '    if beleg["eur"] > grenze:\n',
            '    if beleg["betrag"] > grenze:  # Beträge sind hier schon in Euro\n',
        ),
    ),
    report=Report(
        title="Hotel in Tokyo rejected, hotel in London not",
        complaint="My hotel in Tokyo, about 120 euros, was rejected for being over the approval "
        "limit, while my colleague's London hotel at over 200 euros went through.",
        expected="Approval limits apply to the amount in euros.",
        request="The approval limit check in pruefe must compare the amount converted to euros "
        "(at the rate of the receipt's date) with the limit, not the amount in the receipt's "
        "currency.",
        translations={
            "de": Report(
                title="Hotel in Tokio abgelehnt, Hotel in London nicht",
                complaint="Mein Hotel in Tokio für umgerechnet 120 Euro wurde wegen der "
                "Freigabegrenze abgelehnt, das Hotel meines Kollegen in London für über 200 Euro "
                "ging durch.",
                expected="Die Freigabegrenzen gelten für den Betrag in Euro.",
                request="Die Prüfung der Freigabegrenze in pruefe muss den in Euro umgerechneten "
                "Betrag (Kurs des Belegdatums) mit der Grenze vergleichen, nicht den Betrag in "
                "der Belegwährung.",
            )
        },
    ),
    example=_limit_example,
    fail_to_pass=_limit_cases,
    pass_to_pass=lambda rng: [_ordinary_check(rng), _at_the_limit(rng)],
    known_bad={
        "file-rates-only": (
            Replace(
                PRUEFUNG,
                '    if beleg["betrag"] > grenze:  # Beträge sind hier schon in Euro\n',
                '    if in_euro(beleg["betrag"], beleg["waehrung"], beleg["datum"], '
                "standard_kurse()) > grenze:\n",
            ),
        ),
    },
)


def _twice(rng: random.Random) -> tuple[str, list[str]]:
    """A report with one receipt handed in twice (the merchant written differently, maybe)
    and one taxi fare that is the same on another day."""
    trip = Trip(rng)
    first, second = rng.sample(trip.open, 2)
    code = rng.choice(("EUR", "GBP", "USD"))
    fare = rng.randint(1_500, 4_500)
    again = rng.choice(("Addison Lee", "ADDISON LEE LTD", "Addison Lee London"))
    lines = [
        _line(1, first, "taxi", fare, code, merchant="Addison Lee"),
        _line(2, second, "taxi", fare, code, merchant="Addison Lee"),
        _receipt(rng, 3, rng.choice(trip.open)),
        _line(4, first, "taxi", fare, code, merchant=again),
        _per_diem(rng, 5, second, rng.choice((8, 14, 24))),
        _line(6, second, "hotel", rng.randint(18_001, 30_000), "EUR", merchant="Marriott"),
    ]
    rng.shuffle(lines)
    return trip.text(lines), lines


def _twice_check(rng: random.Random) -> Probe:
    rates, lines = _twice(rng)
    return Probe(call="spesen.pruefung:pruefe", args=(_report(lines), rates))


def _twice_cli(rng: random.Random) -> Probe:
    rates, lines = _twice(rng)
    return Probe(
        cli="spesen.cli:main",
        argv=("pruefen", "abrechnung.csv", "--kurse", "kurse.csv"),
        files={"abrechnung.csv": _report(lines), "kurse.csv": rates},
    )


DUPLICATES = Change(
    id="duplicate-receipts",
    kind="feature",
    undo=(
        Replace(PRUEFUNG, "    gesehen = {}\n", ""),
        Replace(
            PRUEFUNG, "grund = _grund(beleg, grenzen, gesehen)", "grund = _grund(beleg, grenzen)"
        ),
        Replace(PRUEFUNG, "def _grund(beleg, grenzen, gesehen):", "def _grund(beleg, grenzen):"),
        Replace(
            PRUEFUNG,
            '    schluessel = (beleg["datum"], beleg["betrag"], beleg["waehrung"])\n'
            "    if schluessel in gesehen:\n"
            '        return f"doppelt eingereicht (wie {gesehen[schluessel]})"\n'
            '    gesehen[schluessel] = beleg["beleg"]\n',
            "",
        ),
        Replace("README.md", "- Derselbe Beleg darf nicht zweimal eingereicht werden.\n", ""),
        Replace(TESTS, '["B4", "B5"]', '["B4"]'),
    ),
    report=Report(
        title="Catch receipts handed in twice",
        complaint="A colleague claimed the same taxi receipt twice, once as a photo and once as a "
        "PDF. Nobody noticed until internal audit did.",
        expected="A receipt that is already in the report is rejected.",
        request="pruefe should reject a receipt that already appears earlier in the report, with "
        "the reason `doppelt eingereicht (wie B2)` (B2: the first one); the first is checked as "
        "usual.",
        translations={
            "de": Report(
                title="Doppelt eingereichte Belege erkennen",
                complaint="Ein Kollege hat dieselbe Taxiquittung zweimal abgerechnet, einmal als "
                "Foto und einmal als PDF. Aufgefallen ist es erst der Revision.",
                expected="Ein Beleg, der schon einmal in der Abrechnung steht, wird abgelehnt.",
                request="pruefe soll einen Beleg ablehnen, der in der Abrechnung schon einmal "
                "vorkommt, mit dem Grund `doppelt eingereicht (wie B2)` (B2: der erste); der "
                "erste wird normal geprüft.",
            )
        },
    ),
    example=_twice_check,
    fail_to_pass=lambda rng: [_twice_check(rng), _twice_check(rng), _twice_cli(rng)],
    known_bad={
        "ignores-the-date": (
            Replace(PRUEFUNG, "    erstattung = 0\n", "    erstattung = 0\n    gesehen = {}\n"),
            Replace(
                PRUEFUNG,
                "grund = _grund(beleg, grenzen)",
                "grund = _grund(beleg, grenzen, gesehen)",
            ),
            Replace(
                PRUEFUNG, "def _grund(beleg, grenzen):", "def _grund(beleg, grenzen, gesehen):"
            ),
            Replace(
                PRUEFUNG,
                '({format_betrag(grenze)})"\n    return None\n',
                '({format_betrag(grenze)})"\n'
                '    schluessel = (beleg["betrag"], beleg["waehrung"])\n'
                "    if schluessel in gesehen:\n"
                '        return f"doppelt eingereicht (wie {gesehen[schluessel]})"\n'
                '    gesehen[schluessel] = beleg["beleg"]\n    return None\n',
            ),
        ),
    },
    readings={
        "same-merchant": (
            Replace(
                PRUEFUNG,
                '    schluessel = (beleg["datum"], beleg["betrag"], beleg["waehrung"])\n',
                '    schluessel = (beleg["datum"], beleg["betrag"], beleg["waehrung"], '
                'beleg["haendler"])\n',
            ),
        ),
    },
)


def _json(rng: random.Random, clean: bool = False) -> Probe:
    trip = Trip(rng)
    lines = _ordinary(rng, trip, rng.randint(2, 4))
    if not clean:
        lines.append(_over_limit(rng, trip, 8))
        lines.append(_line(9, rng.choice(trip.open), "taxi", 9_950, "EUR", merchant="Taxi 24"))
    return Probe(
        cli="spesen.cli:main",
        argv=("pruefen", "abrechnung.csv", "--kurse", "kurse.csv", "--json"),
        files={"abrechnung.csv": _report(lines), "kurse.csv": trip.text(lines)},
    )


JSON_OUTPUT = Change(
    id="json-output",
    kind="feature",
    undo=(
        Replace(CLI, " [--kurse DATEI] [--json]``", " [--kurse DATEI]``"),
        Replace(CLI, "import json\n", ""),
        Replace(
            CLI,
            '    check.add_argument("--json", action="store_true", help="Ergebnis als JSON '
            'ausgeben")\n',
            "",
        ),
        Replace(
            CLI,
            "    if args.json:\n"
            '        abgelehnt = [{"beleg": beleg, "grund": grund} for beleg, grund in '
            'ergebnis["abgelehnt"]]\n'
            '        daten = {"abgelehnt": abgelehnt, "erstattung_cent": ergebnis["erstattung"]}\n'
            "        print(json.dumps(daten, ensure_ascii=False))\n"
            '        return 1 if ergebnis["abgelehnt"] else 0\n',
            "",
        ),
        Replace("README.md", "    python -m spesen.cli pruefen abrechnung.csv --json\n", ""),
        Replace(
            "README.md",
            " Mit `--json` kommt dasselbe als eine Zeile JSON\nfür die Buchhaltungssoftware.",
            "",
        ),
    ),
    report=Report(
        title="JSON output for the accounting system",
        complaint="The new accounting system is supposed to pick up the check results "
        "automatically, but it can't read the text the tool prints.",
        expected="The check can print its result as JSON.",
        request="`spesen pruefen` gets a `--json` flag that prints one line of JSON instead of "
        'the text: `{"abgelehnt": [{"beleg": "B4", "grund": "..."}], "erstattung_cent": '
        "23650}`, in that order, reasons exactly as in the text and not escaped (UTF-8); the "
        "exit code stays the same.",
        translations={
            "de": Report(
                title="JSON-Ausgabe für die Buchhaltungssoftware",
                complaint="Die neue Buchhaltungssoftware soll die Prüfergebnisse automatisch "
                "übernehmen, kann aber den Text nicht lesen, den das Tool ausgibt.",
                expected="Die Prüfung kann ihr Ergebnis als JSON ausgeben.",
                request="`spesen pruefen` bekommt einen Schalter `--json`, der statt des Textes "
                'eine Zeile JSON ausgibt: `{"abgelehnt": [{"beleg": "B4", "grund": "..."}], '
                '"erstattung_cent": 23650}`, in dieser Reihenfolge, die Gründe genau wie im '
                "Text und nicht escaped (UTF-8); der Exit-Code bleibt, wie er ist.",
            )
        },
    ),
    example=_json,
    fail_to_pass=lambda rng: [_json(rng), _json(rng), _json(rng, clean=True)],
    known_bad={
        "python-repr": (
            Replace(
                CLI,
                "        return 2\n",
                "        return 2\n"
                '    if "--json" in (argv or []):\n'
                "        print(ergebnis)\n"
                '        return 1 if ergebnis["abgelehnt"] else 0\n',
            ),
            Replace(
                CLI,
                '    check.add_argument("--kurse", ',
                '    check.add_argument("--json", action="store_true")\n'
                '    check.add_argument("--kurse", ',
            ),
        ),
        "escaped-umlauts": (
            Replace(
                CLI,
                "        return 2\n",
                "        return 2\n"
                "    if args.json:\n"
                "        import json\n\n"
                '        abgelehnt = [{"beleg": b, "grund": g} for b, g in ergebnis["abgelehnt"]]\n'
                '        print(json.dumps({"abgelehnt": abgelehnt, "erstattung_cent": '
                'ergebnis["erstattung"]}))\n'
                '        return 1 if ergebnis["abgelehnt"] else 0\n',
            ),
            Replace(
                CLI,
                '    check.add_argument("--kurse", ',
                '    check.add_argument("--json", action="store_true")\n'
                '    check.add_argument("--kurse", ',
            ),
        ),
    },
)


TEMPLATE = ProjectTemplate(
    id="expense-validator",
    title="the expense report validator",
    project="expense_validator",
    cli="spesen.cli:main",
    locale="de-DE",
    changes=(WEEKEND_RATE, EIGHT_HOURS, FOREIGN_LIMIT, DUPLICATES, JSON_OUTPUT),
    pass_to_pass=_pass_to_pass,
    titles={"de": "die Reisekostenprüfung"},
    tags=("finance", "travel", "currencies"),
)
