"""The invoice importer: ERP exports in German number and date formats, totals per customer."""

from __future__ import annotations

import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

AMOUNTS = "invoicing/amounts.py"
IMPORTER = "invoicing/importer.py"
TOTALS = "invoicing/totals.py"
HEADER = "invoice_no;customer;date;amount\n"
CUSTOMERS = (
    "Bäckerei Huber",
    "Kanzlei Vogt",
    "Müller & Söhne",
    "Praxis Dr. Weiß",
    "Autohaus Köhler",
    "Gärtnerei Brandt",
    "Café Sonnenschein",
    "Schreinerei Lutz",
)


def _de(cents: int) -> str:
    units, fraction = divmod(abs(cents), 100)
    text = f"{units:,}".replace(",", ".") + f",{fraction:02d}"
    return f"-{text}" if cents < 0 else text


def _amount(text: str) -> Probe:
    return Probe(call="invoicing.amounts:parse_amount", args=(text,))


def _big(rng: random.Random) -> int:
    return rng.randint(1_000, 9_999_999) * 100 + rng.randint(1, 99)


def _export(rng: random.Random, lines: int, amount: object = None, date: object = None) -> str:
    rows = []
    for number in range(lines):
        customer = rng.choice(CUSTOMERS)
        day, month = rng.randint(1, 28), rng.randint(1, 12)
        shown_date = date if isinstance(date, str) else f"{day:02d}.{month:02d}.2024"
        shown = amount if isinstance(amount, str) else _de(rng.randint(100, 99_999))
        rows.append(f"R-2024-{rng.randint(100, 999)}{number};{customer};{shown_date};{shown}\n")
    return HEADER + "".join(rows)


def _summary(export: str, *extra: str) -> Probe:
    return Probe(
        cli="invoicing.cli:main",
        argv=("summary", "export.csv", *extra),
        files={"export.csv": export},
    )


def _load(data: bytes) -> Probe:
    return Probe(call="invoicing.importer:load_export", args=(data,))


def _vat(net: int, rate: str) -> Probe:
    return Probe(call="invoicing.totals:vat_cents", args=(net, rate))


def _half_cent_net(rng: random.Random, sign: int) -> int:
    """A net amount whose VAT at 7% and at 19% ends in exactly half a cent (it ends in 50)."""
    return sign * (rng.randint(1, 20_000) * 100 + 50)


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _amount(f"{rng.randint(1, 999)},{rng.randint(10, 99)}"),
        _amount(f"{rng.randint(1, 99)},{rng.randint(1, 9)}"),
        _amount(f"-{rng.randint(1, 99)},{rng.randint(10, 99)} €"),
        _amount(f"{rng.randint(1, 99)} {rng.randint(100, 999)},{rng.randint(10, 99)}"),
        Probe(call="invoicing.amounts:format_amount", args=(rng.randint(-9_999_999, 9_999_999),)),
        Probe(call="invoicing.importer:parse_date", args=(f"{rng.randint(1, 28):02d}.03.2023",)),
        _vat(rng.randint(1, 500) * 100, rng.choice(("19", "7"))),
        _summary(_export(rng, 4)),
        _summary(_export(rng, 3), "--rate", "7", "--out", "totals.csv"),
    ]


THOUSANDS = Change(
    id="thousands-separator",
    kind="bug",
    undo=(
        Replace(
            AMOUNTS,
            '    # thousands separators: dots and blanks\n    cleaned = cleaned.replace(".", "")'
            '.replace(" ", "")\n',
            "    # thousands separators were already removed by strip_currency\n"
            '    cleaned = cleaned.replace(" ", "")\n',
        ),
    ),
    report=Report(
        title="Import fails on amounts of 1.000 € and more",
        complaint="Since the upgrade the March import stops with an error as soon as an invoice "
        "is over a thousand euros. Small invoices go through fine.",
        expected="Amounts with thousands separators are read like any other amount.",
        request="parse_amount must accept dots as thousands separators (`1.234,50` is 123450 "
        "cents) while keeping everything it accepts today working.",
        translations={
            "de": Report(
                title="Import bricht bei Beträgen ab 1.000 € ab",
                complaint="Seit dem Update bricht der März-Import mit einem Fehler ab, sobald "
                "eine Rechnung über tausend Euro liegt. Kleine Rechnungen gehen durch.",
                expected="Beträge mit Tausenderpunkten werden wie alle anderen gelesen.",
                request="parse_amount muss Punkte als Tausendertrennzeichen akzeptieren "
                "(`1.234,50` sind 123450 Cent); alles, was heute funktioniert, muss weiter "
                "funktionieren.",
            )
        },
    ),
    example=lambda rng: _amount(_de(_big(rng))),
    fail_to_pass=lambda rng: [
        _amount(_de(_big(rng))),
        _amount(f"{_de(_big(rng))} €"),
        _amount(f"-{_de(_big(rng))}"),
        _summary(_export(rng, 3, amount=_de(_big(rng)))),
    ],
    known_bad={
        "strips-every-separator": (
            Replace(
                AMOUNTS,
                '    cleaned = cleaned.replace(" ", "")\n',
                '    cleaned = cleaned.replace(" ", "").replace(".", "").replace(",", "")\n'
                '    cleaned = cleaned[:-2] + "," + cleaned[-2:]\n',
            ),
        ),
    },
)

NEGATIVES = Change(
    id="accounting-negatives",
    kind="feature",
    undo=(
        Replace(
            AMOUNTS,
            "\n\n    A leading minus and accounting parentheses, ``(12,50)``, both mean a negative "
            "amount.\n",
            "\n\n    A leading minus means a negative amount.\n",
        ),
        Replace(
            AMOUNTS,
            '    if cleaned.startswith("(") and cleaned.endswith(")"):\n        negative = True\n'
            "        cleaned = cleaned[1:-1].strip()\n",
            "",
        ),
        Replace(
            "tests/test_amounts.py",
            '    def test_parentheses(self):\n        self.assertEqual(parse_amount("(45,00)"), '
            "-4500)\n\n",
            "",
        ),
    ),
    report=Report(
        title="Support credit notes written in parentheses",
        complaint="Our new bookkeeper exports credit notes the accounting way, in brackets like "
        "(45,00), and the import refuses the whole file.",
        expected="An amount in parentheses is read as a negative amount.",
        request="parse_amount should read `(12,50)` as -1250 cents, currency signs and "
        "thousands separators inside the parentheses included.",
        translations={
            "de": Report(
                title="Gutschriften in Klammern unterstützen",
                complaint="Unsere neue Buchhalterin exportiert Gutschriften buchhalterisch in "
                "Klammern, etwa (45,00), und der Import lehnt die ganze Datei ab.",
                expected="Ein Betrag in Klammern wird als negativer Betrag gelesen.",
                request="parse_amount soll `(12,50)` als -1250 Cent lesen, auch mit "
                "Währungszeichen und Tausenderpunkten in den Klammern.",
            )
        },
    ),
    example=lambda rng: _amount(f"({rng.randint(1, 99)},{rng.randint(10, 99)})"),
    fail_to_pass=lambda rng: [
        # cents not ending in 0: "(310,10)" read as "310,1" is the same amount, so a fix that
        # cut one character too many off the closing parenthesis passed
        _amount(f"({rng.randint(100, 999)},{rng.randint(1, 9)}{rng.randint(1, 9)})"),
        _amount(f"({_de(_big(rng))} €)"),
        _amount(f"( {rng.randint(1, 9)},5 )"),
        _summary(_export(rng, 2, amount=f"({rng.randint(1, 99)},00)")),
    ],
    pass_to_pass=lambda rng: [
        _amount(f"({rng.randint(1, 99)},{rng.randint(10, 99)}"),
        _amount(f"{rng.randint(1, 99)},{rng.randint(10, 99)})"),
    ],
    known_bad={
        "reads-parentheses-as-positive": (
            Replace(
                AMOUNTS,
                '    if cleaned.startswith("-"):\n',
                '    cleaned = cleaned.strip("()").strip()\n    if cleaned.startswith("-"):\n',
            ),
        ),
    },
)

CREDIT_VAT = Change(
    id="credit-note-vat",
    kind="bug",
    undo=(
        Replace(
            TOTALS,
            "    exact = Decimal(net_cents) * RATES[rate] / 100\n"
            "    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))\n",
            "    # legacy_round rounds half up, like the tax office\n"
            "    return legacy_round(net_cents * float(RATES[rate]) / 100)\n",
        ),
        Replace(
            TOTALS,
            "from decimal import ROUND_HALF_UP, Decimal\n",
            "from decimal import Decimal\n\nfrom invoicing._compat import legacy_round\n",
        ),
    ),
    report=Report(
        title="VAT on credit notes is a cent off",
        complaint="Accounting says the VAT on some credit notes differs by one cent from what "
        "the tax consultant computes. Normal invoices are right.",
        expected="VAT on a negative net amount is rounded half up in amount, away from zero, "
        "exactly as for positive amounts.",
        request="vat_cents must round half a cent away from zero for negative nets too "
        "(-1150 cents at 7% is -81), and stay exact (no floats).",
        translations={
            "de": Report(
                title="Umsatzsteuer auf Gutschriften um einen Cent daneben",
                complaint="Die Buchhaltung sagt, bei manchen Gutschriften weicht die Umsatzsteuer "
                "um einen Cent von der Rechnung des Steuerberaters ab. Normale Rechnungen "
                "stimmen.",
                expected="Die Umsatzsteuer auf negative Nettobeträge wird wie bei positiven "
                "kaufmännisch gerundet, also halbe Cent vom Nullpunkt weg.",
                request="vat_cents muss auch bei negativen Nettobeträgen halbe Cent von null weg "
                "runden (-1150 Cent zu 7 % ergibt -81) und exakt bleiben (keine Floats).",
            )
        },
    ),
    example=lambda rng: _vat(_half_cent_net(rng, -1), "7"),
    fail_to_pass=lambda rng: [
        _vat(_half_cent_net(rng, -1), "7"),
        _vat(_half_cent_net(rng, -1), "19"),
        _vat(_half_cent_net(rng, -1), "19"),
    ],
    pass_to_pass=lambda rng: [
        _vat(_half_cent_net(rng, 1), "7"),
        _vat(_half_cent_net(rng, 1), "19"),
        _vat(-rng.randint(1, 300) * 100, "19"),
    ],
    known_bad={
        "bankers-rounding": (
            Replace(
                TOTALS,
                "    return legacy_round(net_cents * float(RATES[rate]) / 100)\n",
                "    return round(net_cents * float(RATES[rate]) / 100)\n",
            ),
        ),
    },
)

BOM = Change(
    id="utf8-bom",
    kind="bug",
    undo=(
        Replace(
            IMPORTER,
            '        return data.decode("utf-8-sig")\n',
            '        return data.decode("utf-8")\n',
        ),
    ),
    report=Report(
        title="Export saved from Excel cannot be imported",
        complaint="When I open the export in Excel and save it again, the importer says a "
        "column is missing, although all four columns are clearly there.",
        expected="Exports with a UTF-8 byte order mark import like any other.",
        request="load_export must ignore a UTF-8 byte order mark at the start of the export.",
        translations={
            "de": Report(
                title="Mit Excel gespeicherter Export lässt sich nicht importieren",
                complaint="Wenn ich den Export in Excel öffne und wieder speichere, meldet der "
                "Import eine fehlende Spalte, obwohl alle vier Spalten eindeutig da sind.",
                expected="Exporte mit UTF-8-BOM werden wie alle anderen importiert.",
                request="load_export muss ein UTF-8-Byte-Order-Mark am Anfang des Exports "
                "ignorieren.",
            )
        },
    ),
    example=lambda rng: _load(("\ufeff" + _export(rng, 1)).encode()),
    fail_to_pass=lambda rng: [
        _load(("\ufeff" + _export(rng, 3)).encode()),
        _load(("\ufeff" + _export(rng, 2)).encode()),
        _summary("\ufeff" + _export(rng, 3)),
    ],
    pass_to_pass=lambda rng: [_load(_export(rng, 2).encode("cp1252"))],
    known_bad={
        "drops-cp1252-fallback": (
            Replace(
                IMPORTER,
                "    try:\n"
                '        return data.decode("utf-8")\n'
                "    except UnicodeDecodeError:\n"
                '        return data.decode("cp1252")\n',
                '    return data.decode("utf-8-sig")\n',
            ),
        ),
    },
)

CP1252 = Change(
    id="cp1252-fallback",
    kind="bug",
    undo=(
        Replace(
            IMPORTER,
            "    try:\n"
            '        return data.decode("utf-8-sig")\n'
            "    except UnicodeDecodeError:\n"
            '        return data.decode("cp1252")\n',
            '    return data.decode("utf-8-sig")\n',
        ),
    ),
    report=Report(
        title="UnicodeDecodeError on exports from the old ERP",
        complaint="The branch office still runs the old ERP and its exports crash the import "
        "whenever a customer has an umlaut in the name.",
        expected="Exports in the old ERP's Windows encoding (cp1252) are read correctly, "
        "umlauts included; UTF-8 exports stay as they are.",
        request="load_export must fall back to cp1252 when the export is not valid UTF-8.",
        translations={
            "de": Report(
                title="UnicodeDecodeError bei Exporten aus dem alten ERP",
                complaint="Die Filiale nutzt noch das alte ERP, und dessen Exporte lassen den "
                "Import abstürzen, sobald ein Kunde einen Umlaut im Namen hat.",
                expected="Exporte in der Windows-Kodierung des alten ERP (cp1252) werden samt "
                "Umlauten richtig gelesen; UTF-8-Exporte bleiben, wie sie sind.",
                request="load_export muss auf cp1252 zurückfallen, wenn der Export kein gültiges "
                "UTF-8 ist.",
            )
        },
    ),
    example=lambda rng: _load(_export(rng, 2).encode("cp1252")),
    fail_to_pass=lambda rng: [
        _load(_export(rng, 3).encode("cp1252")),
        _load(_export(rng, 4).encode("cp1252")),
    ],
    pass_to_pass=lambda rng: [
        _load(_export(rng, 3).encode("utf-8")),
        _load(("\ufeff" + _export(rng, 2)).encode()),
    ],
    known_bad={
        "drops-undecodable-bytes": (
            Replace(
                IMPORTER,
                '    return data.decode("utf-8-sig")\n',
                '    return data.decode("utf-8-sig", errors="ignore")\n',
            ),
        ),
        "always-cp1252": (
            Replace(
                IMPORTER,
                '    return data.decode("utf-8-sig")\n',
                '    return data.decode("cp1252")\n',
            ),
        ),
    },
)

SHORT_YEARS = Change(
    id="two-digit-years",
    kind="feature",
    undo=(
        Replace(
            IMPORTER,
            "``2024-03-31``; two-digit years are 20xx.",
            "``2024-03-31``.",
        ),
        Replace(IMPORTER, '    if len(year) == 2:\n        year = "20" + year\n', ""),
    ),
    report=Report(
        title="Dates with two-digit years come out as year 24",
        complaint="The dates in the totals from the new cash register exports say 0024 "
        "instead of 2024.",
        expected="A two-digit year means a year in the 2000s.",
        request="parse_date must read a two-digit year `yy` as 20yy (`03.04.24` is "
        "`2024-04-03`); four-digit years stay as they are.",
        translations={
            "de": Report(
                title="Datumsangaben mit zweistelligem Jahr landen im Jahr 24",
                complaint="In den Summen aus den Exporten der neuen Kasse steht beim Datum 0024 "
                "statt 2024.",
                expected="Ein zweistelliges Jahr bedeutet ein Jahr in den 2000ern.",
                request="parse_date muss ein zweistelliges Jahr `jj` als 20jj lesen (`03.04.24` "
                "ist `2024-04-03`); vierstellige Jahre bleiben, wie sie sind.",
            )
        },
    ),
    example=lambda rng: Probe(
        call="invoicing.importer:parse_date", args=(f"{rng.randint(1, 28):02d}.04.24",)
    ),
    fail_to_pass=lambda rng: [
        Probe(call="invoicing.importer:parse_date", args=(f"{rng.randint(1, 28):02d}.11.23",)),
        Probe(
            call="invoicing.importer:parse_date",
            args=(f"{rng.randint(1, 9)}.1.{rng.randint(10, 29)}",),
        ),
        _load(_export(rng, 2, date=f"{rng.randint(1, 28):02d}.0{rng.randint(1, 9)}.25").encode()),
    ],
    pass_to_pass=lambda rng: [
        Probe(call="invoicing.importer:parse_date", args=(f"{rng.randint(1, 28):02d}.06.1999",)),
    ],
    known_bad={
        "every-year-in-the-2000s": (
            Replace(
                IMPORTER,
                '    day, month, year = text.strip().split(".")\n',
                '    day, month, year = text.strip().split(".")\n    year = "20" + year[-2:]\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="invoice-importer",
    title="the invoice importer",
    project="invoice_importer",
    cli="invoicing.cli:main",
    locale="de-DE",
    changes=(THOUSANDS, NEGATIVES, CREDIT_VAT, BOM, CP1252, SHORT_YEARS),
    pass_to_pass=_pass_to_pass,
    titles={"de": "der Rechnungsimport"},
    tags=("finance", "encodings", "rounding"),
)
