"""The VAT return generator: sales and purchase journals to the quarter's UStVA boxes."""

from __future__ import annotations

import random

from assay.families.repo.templates._edits import put_back
from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

NUMBERS = "vatreturn/numbers.py"
RATES = "vatreturn/rates.py"
REPORT = "vatreturn/report.py"
CLI = "vatreturn/cli.py"
README = "README.md"
HEADER = "Datum;Beleg;Land;USt-IdNr;Steuerschl;Netto\n"
CUSTOMERS = {
    "DE": ("DE811234567", "DE129273398", "DE267405871"),
    "AT": ("ATU13585627", "ATU57451829"),
    "FR": ("FR40303265045",),
    "NL": ("NL810433941B01",),
    "PL": ("PL5261040828",),
}
ABROAD = ("CH", "US", "NO", "GB")
Line = dict[str, object]


def _de(cents: int, trailing: bool = False) -> str:
    units, fraction = divmod(abs(cents), 100)
    text = f"{units:,}".replace(",", ".") + f",{fraction:02d}"
    if cents >= 0:
        return text
    return f"{text}-" if trailing else f"-{text}"


def _net(rng: random.Random) -> int:
    return rng.randint(1_00, 25_000_00) if rng.random() < 0.7 else rng.randint(1, 99_99)


def _day(rng: random.Random, quarter: int, year: int = 2024) -> str:
    month = 3 * (quarter - 1) + rng.randint(1, 3)
    return f"{year}-{month:02d}-{rng.randint(1, 28):02d}"


def _line(
    rng: random.Random, kind: str, quarter: int = 1, net: int | None = None, code: str = ""
) -> Line:
    """A sales line: ``b2b`` or ``b2c`` at home, ``eu-b2b``, ``eu-b2c``, or ``export``."""
    if kind in ("b2b", "b2c"):
        country = "DE"
    elif kind == "export":
        country = rng.choice(ABROAD)
    else:
        country = rng.choice([land for land in CUSTOMERS if land != "DE"])
    vat_id = rng.choice(CUSTOMERS[country]) if kind in ("b2b", "eu-b2b") else ""
    return {
        "date": _day(rng, quarter),
        "document": f"AR-24{rng.randint(100, 999)}",
        "country": country,
        "vat_id": vat_id,
        "code": code or rng.choice(("S", "S", "R")),
        "net": _net(rng) if net is None else net,
    }


def _text(lines: list[Line], trailing: bool = False) -> str:
    rows = []
    for line in lines:
        year, month, day = str(line["date"]).split("-")
        net = _de(int(str(line["net"])), trailing)
        fields = [line["document"], line["country"], line["vat_id"], line["code"], net]
        rows.append(f"{day}.{month}.{year};" + ";".join(str(field) for field in fields) + "\n")
    return HEADER + "".join(rows)


def _purchases(rng: random.Random, count: int, quarter: int = 1) -> list[Line]:
    lines = []
    for _ in range(count):
        line = _line(rng, rng.choice(("b2b", "eu-b2b")), quarter)
        line["document"] = f"ER-{rng.randint(1000, 9999)}"
        line["code"] = "RC" if line["country"] != "DE" else rng.choice(("S", "R"))
        lines.append(line)
    return lines


def _summary(
    sales: list[Line], purchases: list[Line], quarter: int = 1, *extra: str, trailing: bool = False
) -> Probe:
    return Probe(
        cli="vatreturn.cli:main",
        argv=("summary", "sales.csv", "purchases.csv", "--quarter", f"2024-Q{quarter}", *extra),
        files={"sales.csv": _text(sales, trailing), "purchases.csv": _text(purchases, trailing)},
    )


def _mixed(rng: random.Random, count: int, quarter: int = 1) -> list[Line]:
    kinds = ("b2b", "b2c", "eu-b2b", "eu-b2c", "export")
    return [_line(rng, rng.choice(kinds), quarter) for _ in range(count)]


def _call(function: str, *args: object) -> Probe:
    module = {"parse_amount": "numbers", "format_amount": "numbers", "rate_for": "rates"}
    module |= {"quarter_of": "rates", "sales_box": "report", "tax_cents": "report"}
    module |= {"summarise": "report"}
    return Probe(call=f"vatreturn.{module[function]}:{function}", args=args)


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    quarter = rng.randint(1, 4)
    return [
        _call("parse_amount", _de(rng.randint(1, 99_999_99))),
        _call("parse_amount", _de(-rng.randint(1, 99_999))),
        _call("format_amount", rng.randint(-99_999_99, 99_999_99)),
        _call("rate_for", rng.choice("SRZ"), f"2020-{rng.randint(7, 12):02d}-15"),
        _call("rate_for", rng.choice("SR"), f"202{rng.randint(1, 4)}-0{rng.randint(1, 9)}-02"),
        _call("sales_box", _line(rng, "eu-b2b")),
        _call("sales_box", _line(rng, "b2c")),
        _call("sales_box", _line(rng, "export")),
        _call("tax_cents", rng.randint(-999_999, 999_999), rng.choice((19, 7, 16, 5))),
        _call(
            "summarise", _mixed(rng, 4, quarter), _purchases(rng, 2, quarter), f"2024-Q{quarter}"
        ),
        _call("summarise", _half_cents(rng, 3), [], "2024-Q1", "total"),
        _summary(_mixed(rng, 5, quarter), _purchases(rng, 2, quarter), quarter),
        Probe(
            cli="vatreturn.cli:main",
            argv=("summary", "sales.csv", "purchases.csv"),
            files={"sales.csv": _text(_mixed(rng, 2)), "purchases.csv": _text([])},
        ),
    ]


REVERSE_CHARGE = Change(
    id="domestic-reverse-charge",
    kind="bug",
    undo=(
        Replace(
            REPORT,
            '    if country != HOME and country in EU and line["vat_id"]:\n'
            '        return "41"  # reverse charge: the EU business customer owes the tax\n',
            '    if line["vat_id"]:\n'
            '        return "41"  # reverse charge: a business customer owes the tax\n',
        ),
        Replace(REPORT, "from vatreturn.rates import EU, HOME,", "from vatreturn.rates import EU,"),
    ),
    report=Report(
        title="German business customers end up as tax-free EU supplies",
        complaint="Our tax adviser called: the Q2 return shows almost no VAT on domestic sales "
        "and a huge amount of intra-community supplies. We sell mostly to German companies.",
        expected="Sales to German customers are taxed at home whether or not the journal has "
        "their VAT ID; only business customers in another EU country go into box 41.",
        request="sales_box must put a line into box 41 only when the customer is in another EU "
        "member state and has a VAT ID; German customers with a DE VAT ID go into 81 or 86 "
        "by tax code, customers outside the EU stay in 43.",
        translations={
            "de": Report(
                title=(
                    "Deutsche Geschäftskunden landen als steuerfreie innergemeinschaftliche "
                    "Lieferungen"
                ),
                complaint=(
                    "Unser Steuerberater hat angerufen: In der Voranmeldung fürs zweite "
                    "Quartal steht kaum Umsatzsteuer auf Inlandsumsätze, dafür riesige "
                    "innergemeinschaftliche Lieferungen. Wir verkaufen fast nur an deutsche "
                    "Firmen."
                ),
                expected=(
                    "Umsätze an deutsche Kunden werden im Inland versteuert, ob die USt-IdNr. "
                    "im Journal steht oder nicht; in Kennzahl 41 kommen nur Geschäftskunden "
                    "in einem anderen EU-Land."
                ),
                request=(
                    "sales_box darf eine Zeile nur dann in Kennzahl 41 einordnen, wenn der "
                    "Kunde in einem anderen EU-Mitgliedstaat sitzt und eine USt-IdNr. hat; "
                    "deutsche Kunden mit DE-USt-IdNr. gehören je nach Steuerschlüssel in 81 "
                    "oder 86, Kunden außerhalb der EU bleiben in 43."
                ),
            )
        },
    ),
    example=lambda rng: _call("sales_box", _line(rng, "b2b")),
    fail_to_pass=lambda rng: [
        _call("sales_box", _line(rng, "b2b", code="S")),
        _call("sales_box", _line(rng, "b2b", code="R")),
        _call("sales_box", {**_line(rng, "export"), "vat_id": f"CHE-{rng.randint(100, 999)}"}),
        _summary([_line(rng, "b2b"), *_mixed(rng, 3)], _purchases(rng, 1)),
    ],
    pass_to_pass=lambda rng: [
        _call("sales_box", _line(rng, "eu-b2c")),
        _call("sales_box", _line(rng, "eu-b2c")),
        _call("sales_box", _line(rng, "export")),
        _call("sales_box", _line(rng, "b2c")),
    ],
    known_bad={
        "drops-the-vat-id-check": (
            Replace(REPORT, '    if line["vat_id"]:\n', "    if country in EU - {'DE'}:\n"),
        ),
    },
)

TRAILING_MINUS = Change(
    id="trailing-minus",
    kind="feature",
    undo=(
        Replace(
            NUMBERS,
            '    """``1.234,56`` as integer cents. SAP writes negatives with a trailing minus: '
            '``45,00-``."""\n',
            '    """``1.234,56`` as integer cents."""\n',
        ),
        Replace(
            NUMBERS,
            '    if cleaned.endswith("-"):\n        negative = True\n'
            "        cleaned = cleaned[:-1].strip()\n",
            "",
        ),
        Replace(
            "tests/test_numbers.py",
            '    def test_trailing_minus(self):\n        self.assertEqual(parse_amount("150,00-"), '
            "-15000)\n\n",
            "",
        ),
        Replace(
            README,
            "German number formats (`1.234,56`; SAP writes negatives with a trailing minus, "
            "`45,00-`).",
            "German number formats (`1.234,56`).",
        ),
        Replace("data/sales.csv", ";150,00-\n", ";-150,00\n"),
    ),
    report=Report(
        title="Credit notes from SAP stop the VAT return",
        complaint="Since accounting moved to SAP, the quarterly run aborts with 'not an amount' "
        "as soon as there is a credit note in the journal. SAP shows them as 45,00- .",
        expected="Amounts with the minus at the end are read as negative amounts, like those "
        "with the minus in front.",
        request="parse_amount must read a trailing minus as a negative amount (`1.234,56-` is "
        "-123456 cents), also with a currency code or sign; a leading minus keeps working.",
        translations={
            "de": Report(
                title="Gutschriften aus SAP brechen die Voranmeldung ab",
                complaint=(
                    "Seit die Buchhaltung auf SAP umgestellt hat, bricht der Quartalslauf mit "
                    "'not an amount' ab, sobald eine Gutschrift im Journal steht. SAP "
                    "schreibt die als 45,00- ."
                ),
                expected=(
                    "Beträge mit nachgestelltem Minus werden als negative Beträge gelesen, "
                    "genau wie die mit Minus vorne."
                ),
                request=(
                    "parse_amount muss ein nachgestelltes Minus als negativen Betrag lesen "
                    "(`1.234,56-` sind -123456 Cent), auch mit Währungscode oder -zeichen; "
                    "ein vorangestelltes Minus funktioniert weiter."
                ),
            )
        },
    ),
    example=lambda rng: _call("parse_amount", _de(-rng.randint(100, 99_999), trailing=True)),
    fail_to_pass=lambda rng: [
        _call("parse_amount", _de(-rng.randint(100_000, 99_999_999), trailing=True)),
        _call("parse_amount", _de(-rng.randint(1, 99), trailing=True)),
        _call("parse_amount", f"{_de(-rng.randint(100, 999_999), trailing=True)} EUR"),
        _summary(
            [*_mixed(rng, 2), _line(rng, "b2c", net=-rng.randint(100, 9_999))], [], 1, trailing=True
        ),
    ],
    pass_to_pass=lambda rng: [
        _call("parse_amount", _de(-rng.randint(100, 999_999))),
        _call("parse_amount", f"{_de(rng.randint(100, 999_999))} €"),
        _call("parse_amount", f"{rng.randint(1, 99)}-{rng.randint(10, 99)}"),
    ],
    known_bad={
        "drops-the-sign": (
            Replace(
                NUMBERS,
                '.replace("€", "").strip()\n',
                '.replace("€", "").strip().rstrip("-")\n',
            ),
        ),
    },
)

_TOTAL_ROUNDING = (
    Replace(
        REPORT,
        'def summarise(sales, purchases, quarter, rounding="line"):\n',
        "def summarise(sales, purchases, quarter):\n",
    ),
    Replace(
        REPORT,
        "    ``rounding`` is ``line`` (each line's tax rounded, then added up) or ``total`` (the "
        "tax of\n    each box and rate computed on its total).\n",
        "    Each line's tax is rounded, then added up.\n",
    ),
    Replace(
        REPORT,
        '    if rounding not in ("line", "total"):\n'
        '        raise ValueError(f"rounding must be line or total, not {rounding!r}")\n',
        "",
    ),
    Replace(
        REPORT,
        '_tax(nets, rate if box not in ("41", "43") else 0, rounding)\n',
        '_tax(nets, rate if box not in ("41", "43") else 0)\n',
    ),
    Replace(
        REPORT,
        "def _tax(nets, rate, rounding):\n"
        '    if rounding == "total":\n'
        "        return tax_cents(sum(nets), rate)\n"
        "    return sum(tax_cents(net, rate) for net in nets)\n",
        "def _tax(nets, rate):\n    return sum(tax_cents(net, rate) for net in nets)\n",
    ),
    Replace(
        CLI,
        '    summary.add_argument("--rounding", choices=("line", "total"), default="line")\n',
        "",
    ),
    Replace(
        CLI,
        "summarise(_read(args.sales), _read(args.purchases), args.quarter, args.rounding)",
        "summarise(_read(args.sales), _read(args.purchases), args.quarter)",
    ),
    Replace(CLI, "2024-Q1 [--rounding line]``", "2024-Q1``"),
    Replace(
        README,
        "    python -m vatreturn.cli summary data/sales.csv data/purchases.csv --quarter 2024-Q1"
        " --rounding total\n",
        "",
    ),
    Replace(
        README,
        "Tax is rounded half up per journal line unless `--rounding total` asks for\n"
        "it per rate on the quarter's total.",
        "Tax is rounded half up per journal line.",
    ),
    Replace(
        "tests/test_report.py",
        "    def test_total_rounding(self):\n"
        "        lines = [line(net=150), line(net=150)]\n"
        '        self.assertEqual(summarise(lines, [], "2024-Q1")["81"]["tax"], 58)\n'
        '        self.assertEqual(summarise(lines, [], "2024-Q1", "total")["81"]["tax"], 57)\n\n',
        "",
    ),
)


def _half_cents(rng: random.Random, count: int, quarter: int = 1) -> list[Line]:
    """Standard-rate lines whose tax each ends in half a cent (their nets end in 50 cents),
    an odd number of them: the total's tax ends in half a cent too, on an even cent below."""
    lines = [
        _line(rng, "b2c", quarter, rng.randint(1, 9_999) * 100 + 50, "S") for _ in range(count)
    ]
    total = sum(int(str(line["net"])) for line in lines)
    if (total // 100) % 2 == 0:
        lines[0]["net"] = int(str(lines[0]["net"])) + 100
    return lines


TOTAL_ROUNDING = Change(
    id="rounding-per-total",
    kind="feature",
    undo=_TOTAL_ROUNDING,
    report=Report(
        title="Option to compute the VAT on the total instead of per line",
        complaint="Our figures differ from the tax adviser's by a few cents every quarter. "
        "She computes the VAT on the quarter's total per rate, we add up the VAT of every line.",
        expected="With `--rounding total` (or `rounding='total'` in summarise) the tax is computed "
        "on the total per box and rate, rounded half up once, as the adviser does; per line "
        "stays the default.",
        request="Add `--rounding line|total` (default `line`) to `vatreturn summary` and a "
        "`rounding` parameter to `summarise(sales, purchases, quarter, rounding='line')`: with "
        "`total`, each box's tax per rate is computed on the sum of its nets and rounded half up "
        "(away from zero). Anything else raises ValueError.",
        translations={
            "de": Report(
                title="Option: Umsatzsteuer auf die Summe statt pro Zeile rechnen",
                complaint=(
                    "Unsere Zahlen weichen jedes Quartal um ein paar Cent von denen der "
                    "Steuerberaterin ab. Sie rechnet die Steuer auf die Quartalssumme je "
                    "Steuersatz, wir addieren die Steuer jeder einzelnen Zeile."
                ),
                expected=(
                    "Mit `--rounding total` (bzw. `rounding='total'` in summarise) wird die "
                    "Steuer auf die Summe je Kennzahl und Steuersatz gerechnet und einmal "
                    "kaufmännisch gerundet, wie bei der Steuerberaterin; pro Zeile bleibt der "
                    "Standard."
                ),
                request=(
                    "`vatreturn summary` bekommt `--rounding line|total` (Standard `line`) "
                    "und `summarise(sales, purchases, quarter, rounding='line')` einen "
                    "Parameter `rounding`: bei `total` wird die Steuer jeder Kennzahl je "
                    "Steuersatz auf die Summe ihrer Nettobeträge gerechnet und kaufmännisch "
                    "(halbe Cent vom Nullpunkt weg) gerundet. Jeder andere Wert löst "
                    "ValueError aus."
                ),
            )
        },
    ),
    example=lambda rng: _summary(_half_cents(rng, 2), [], 1, "--rounding", "total"),
    fail_to_pass=lambda rng: [
        _summary(_half_cents(rng, 3), [], 1, "--rounding", "total"),
        _summary(
            [*_half_cents(rng, 5, 2), *_mixed(rng, 3, 2)],
            _purchases(rng, 2, 2),
            2,
            "--rounding",
            "total",
        ),
        _call("summarise", _half_cents(rng, 3), [], "2024-Q1", "total"),
        _call("summarise", _half_cents(rng, 1), [], "2024-Q1", "line"),
        _summary(_half_cents(rng, 3), [], 1, "--rounding", "line"),
        _call("summarise", _mixed(rng, 2), [], "2024-Q1", rng.choice(("sum", "Total", "lines"))),
    ],
    pass_to_pass=lambda rng: [
        _summary(_half_cents(rng, 3), [], 1),
        _call("summarise", _half_cents(rng, 3), [], "2024-Q1"),
    ],
    known_bad={
        "float-round-on-the-total": (
            *put_back(_TOTAL_ROUNDING),
            Replace(
                REPORT,
                "        return tax_cents(sum(nets), rate)\n",
                "        return round(sum(nets) * rate / 100)\n",
            ),
        ),
    },
)

WHOLE_EUROS = Change(
    id="whole-euro-bases",
    kind="feature",
    undo=(
        Replace(
            NUMBERS,
            "\n\ndef format_euros(cents):\n"
            '    """Integer cents as whole euros, ``1.234``: the form wants its bases without '
            'cents, the\n    cents simply dropped (the tax office\'s rule, never rounded up)."""\n'
            '    sign = "-" if cents < 0 else ""\n'
            '    return sign + f"{abs(cents) // 100:,}".replace(",", ".")\n',
            "",
        ),
        Replace(
            CLI,
            "from vatreturn.numbers import format_amount, format_euros\n",
            "from vatreturn.numbers import format_amount\n",
        ),
        Replace(
            CLI,
            '    """The summary as the form shows it: bases in whole euros, taxes with cents."""\n',
            '    """The summary as the form shows it."""\n',
        ),
        Replace(CLI, "{format_euros(amounts['base'])}", "{format_amount(amounts['base'])}"),
        Replace(
            "tests/test_numbers.py",
            "    def test_whole_euros(self):\n"
            '        self.assertEqual(format_euros(123499), "1.234")\n\n',
            "",
        ),
        Replace(
            "tests/test_numbers.py",
            "import format_amount, format_euros, parse_amount,",
            "import format_amount, parse_amount,",
        ),
    ),
    report=Report(
        title="ELSTER wants the bases in whole euros",
        complaint="Typing the summary into ELSTER, the form refuses our bases (Bemessungs"
        "grundlage) because they have cents. We have to fix every number by hand.",
        expected="The summary shows the bases in whole euros, the way the form takes them; the "
        "tax amounts keep their cents.",
        request="In the output of `vatreturn summary`, print each box's base in whole euros "
        "(`12.345` instead of `12.345,67`, thousands still grouped with dots); the tax column "
        "stays as it is.",
        translations={
            "de": Report(
                title="Bemessungsgrundlagen für ELSTER in vollen Euro",
                complaint=(
                    "Beim Übertragen der Zusammenfassung in ELSTER lehnt das Formular unsere "
                    "Bemessungsgrundlagen ab, weil sie Cent enthalten. Wir korrigieren jede "
                    "Zahl von Hand."
                ),
                expected=(
                    "Die Zusammenfassung zeigt die Bemessungsgrundlagen in vollen Euro, so "
                    "wie das Formular sie nimmt; die Steuerbeträge behalten ihre Cent."
                ),
                request=(
                    "In der Ausgabe von `vatreturn summary` die Bemessungsgrundlage jeder "
                    "Kennzahl in vollen Euro drucken (`12.345` statt `12.345,67`, Tausender "
                    "weiter mit Punkt); die Steuerspalte bleibt wie sie ist."
                ),
            )
        },
    ),
    example=lambda rng: _summary(_mixed(rng, 3), _purchases(rng, 1)),
    fail_to_pass=lambda rng: [
        _summary(_mixed(rng, 6, 2), _purchases(rng, 2, 2), 2),
        _summary(_mixed(rng, 4, 3), _purchases(rng, 3, 3), 3),
        _summary([_line(rng, "b2c", net=rng.randint(1, 99) * 100 + rng.randint(50, 99))], [], 1),
        _summary([_line(rng, "b2c", net=-rng.randint(1_000, 999_999), code="S")], [], 1),
    ],
    readings={
        "rounded": (
            Replace(
                NUMBERS,
                '    return sign + f"{abs(cents) // 100:,}"',
                '    return sign + f"{(abs(cents) + 50) // 100:,}"',
            ),
            Replace(
                "tests/test_numbers.py",
                'format_euros(123499), "1.234"',
                'format_euros(123499), "1.235"',
            ),
        ),
    },
    known_bad={
        "drops-the-tax-cents-too": (
            Replace(
                CLI,
                "{format_amount(amounts['base'])};{format_amount(amounts['tax'])}",
                "{format_amount(amounts['base'])[:-3]};{format_amount(amounts['tax'])[:-3]}",
            ),
        ),
    },
)


def _december(rng: random.Random) -> str:
    return f"{rng.randint(2021, 2025)}-12-{rng.randint(1, 31):02d}"


QUARTERS = Change(
    id="quarter-of-month",
    kind="bug",
    undo=(
        Replace(
            RATES,
            '    return f"{year}-Q{(int(month) - 1) // 3 + 1}"\n',
            '    return f"{year}-Q{int(month) // 3 + 1}"\n',
        ),
        Replace(
            "tests/test_report.py",
            '        self.assertEqual(quarter_of("2024-03-31"), "2024-Q1")\n',
            '        self.assertEqual(quarter_of("2024-02-29"), "2024-Q1")\n',
        ),
    ),
    report=Report(
        title="December sales missing from the Q4 return",
        complaint="The Q4 return has nothing from December, and our adviser says March seems "
        "to be in the second quarter now. The totals don't match the journals at all.",
        expected="Every month belongs to its calendar quarter: January to March is Q1, ..., "
        "October to December is Q4.",
        request="quarter_of must give the calendar quarter (`2024-03-31` is `2024-Q1`, "
        "`2024-12-01` is `2024-Q4`) so that summarise picks every line of the quarter.",
        translations={
            "de": Report(
                title="Dezember-Umsätze fehlen in der Voranmeldung fürs vierte Quartal",
                complaint=(
                    "In der Q4-Voranmeldung fehlt der ganze Dezember, und der Steuerberater "
                    "meint, der März stehe jetzt im zweiten Quartal. Die Summen passen "
                    "überhaupt nicht zu den Journalen."
                ),
                expected=(
                    "Jeder Monat gehört zu seinem Kalenderquartal: Januar bis März ist Q1, "
                    "..., Oktober bis Dezember Q4."
                ),
                request=(
                    "quarter_of muss das Kalenderquartal liefern (`2024-03-31` ist `2024-Q1`, "
                    "`2024-12-01` ist `2024-Q4`), damit summarise jede Zeile des Quartals "
                    "erfasst."
                ),
            )
        },
    ),
    example=lambda rng: _call("quarter_of", _december(rng)),
    fail_to_pass=lambda rng: [
        _call("quarter_of", _december(rng)),
        _call("quarter_of", f"{rng.randint(2020, 2025)}-03-{rng.randint(1, 31):02d}"),
        _call("quarter_of", f"{rng.randint(2020, 2025)}-0{rng.choice((6, 9))}-15"),
        _summary(
            [{**line, "date": f"2024-03-{rng.randint(1, 31):02d}"} for line in _mixed(rng, 3)],
            [],
            1,
        ),
    ],
    pass_to_pass=lambda rng: [
        _call("quarter_of", f"{rng.randint(2020, 2025)}-0{rng.choice((1, 4, 7))}-10"),
        _call("quarter_of", f"{rng.randint(2020, 2025)}-{rng.choice((2, 5, 8, 11)):02d}-28"),
    ],
    known_bad={
        "caps-at-q4": (
            Replace(
                RATES,
                '    return f"{year}-Q{int(month) // 3 + 1}"\n',
                '    return f"{year}-Q{min(int(month) // 3 + 1, 4)}"\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="vat-return",
    title="the quarterly VAT return generator",
    project="vat_return",
    cli="vatreturn.cli:main",
    locale="de-DE",
    changes=(REVERSE_CHARGE, TRAILING_MINUS, TOTAL_ROUNDING, WHOLE_EUROS, QUARTERS),
    pass_to_pass=_pass_to_pass,
    tags=("finance", "tax", "rounding"),
    titles={"de": "das Programm für die Umsatzsteuer-Voranmeldung"},
)
