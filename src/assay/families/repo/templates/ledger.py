"""The CSV-to-ledger reconciler: a bank statement matched against the ledger's cash entries."""

from __future__ import annotations

import datetime
import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

MONEY = "reconcile/money.py"
MATCHING = "reconcile/matching.py"
PAYEES = ("ACME LTD", "BRITISH GAS", "STAPLES", "HMRC VAT", "NORTHWIND", "ROYAL MAIL", "TESCO")
Line = dict[str, object]


def _pounds(pence: int, style: str = "minus") -> str:
    pounds, rest = divmod(abs(pence), 100)
    text = f"{pounds:,}.{rest:02d}"
    if pence >= 0:
        return f"£{text}" if style == "sign" else text
    return f"{text} DR" if style == "dr" else f"-{text}"


def _day(rng: random.Random) -> datetime.date:
    return datetime.date(2024, rng.randint(1, 11), rng.randint(1, 28))


def _books(
    rng: random.Random, pairs: int, gap: int | None = None, amount: int | None = None
) -> tuple[list[Line], list[Line]]:
    """``pairs`` statement lines with their ledger entries (``gap`` days apart, or 0 to 2),
    plus one stray on each side, each side in its own shuffled order."""
    statement: list[Line] = []
    ledger: list[Line] = []
    for number in range(pairs + 1):
        pence = amount or rng.choice((1, -1)) * rng.randint(100, 500_000)
        day = _day(rng)
        shift = datetime.timedelta(days=gap if gap is not None else rng.randint(0, 2))
        statement.append(
            {"date": day.isoformat(), "description": rng.choice(PAYEES), "amount": pence}
        )
        booked = day + shift * rng.choice((1, -1))
        ledger.append({"ref": f"SI-{1000 + number}", "date": booked.isoformat(), "amount": pence})
    statement.append({"date": _day(rng).isoformat(), "description": "INTEREST", "amount": 17})
    ledger.pop()  # one statement line and one ledger entry without a partner
    ledger.append({"ref": "JN-0042", "date": _day(rng).isoformat(), "amount": -99_999})
    rng.shuffle(statement)
    rng.shuffle(ledger)
    for number, line in enumerate(statement, 1):
        line["id"] = f"B{number}"
    return statement, ledger


def _twins(rng: random.Random, pence: int) -> tuple[list[Line], list[Line]]:
    """Two statement lines of one amount a day apart, and two ledger entries of it: the first
    line's match is also the second line's closest entry; one more entry of another amount."""
    day = _day(rng)
    second = day + datetime.timedelta(days=1)
    later = day + datetime.timedelta(days=rng.randint(2, 3))
    statement: list[Line] = [
        {"id": "B1", "date": day.isoformat(), "description": "RENT", "amount": pence},
        {"id": "B2", "date": second.isoformat(), "description": "RENT", "amount": pence},
        {"id": "B3", "date": _day(rng).isoformat(), "description": "INTEREST", "amount": 17},
    ]
    ledger: list[Line] = [
        {"ref": f"PI-{rng.randint(100, 499)}", "date": day.isoformat(), "amount": pence},
        {"ref": f"PI-{rng.randint(500, 999)}", "date": later.isoformat(), "amount": pence},
        {"ref": "JN-0007", "date": second.isoformat(), "amount": pence + rng.randint(1, 99)},
    ]
    rng.shuffle(ledger)
    return statement, ledger


def _leftovers(rng: random.Random) -> tuple[list[Line], list[Line]]:
    """Two statement lines and two ledger entries, none matching, each side in the file in
    neither date nor amount order, and in the same order by date as by amount: every
    reasonable way to sort them agrees on this one."""
    day = _day(rng)
    first, second, third = (day + datetime.timedelta(days=d) for d in rng.sample(range(5, 40), 3))
    early, late = sorted((second, third))
    small, big = sorted(rng.sample(range(100, 50_000), 2))
    low, high = sorted(rng.sample(range(50_001, 99_999), 2))
    statement: list[Line] = [
        {"id": "B1", "date": first.isoformat(), "description": rng.choice(PAYEES), "amount": big},
        {"id": "B2", "date": day.isoformat(), "description": rng.choice(PAYEES), "amount": small},
    ]
    ledger: list[Line] = [
        {"ref": f"SI-{rng.randint(2000, 2999)}", "date": late.isoformat(), "amount": -low},
        {"ref": f"SI-{rng.randint(1000, 1999)}", "date": early.isoformat(), "amount": -high},
    ]
    return statement, ledger


def _reconcile(books: tuple[list[Line], list[Line]], days: int = 3) -> Probe:
    return Probe(call="reconcile.matching:reconcile", args=(books[0], books[1], days))


def _match(books: tuple[list[Line], list[Line]], style: str = "minus", *extra: str) -> Probe:
    statement = "Date,Description,Amount\n" + "".join(
        f"{datetime.date.fromisoformat(str(line['date'])):%d/%m/%Y},{line['description']},"
        f'"{_pounds(int(str(line["amount"])), style)}"\n'
        for line in books[0]
    )
    ledger = "ref,date,amount\n" + "".join(
        f"{entry['ref']},{entry['date']},{int(str(entry['amount'])) / 100:.2f}\n"
        for entry in books[1]
    )
    return Probe(
        cli="reconcile.cli:main",
        argv=("match", "statement.csv", "ledger.csv", "--report", "report.json", *extra),
        files={"statement.csv": statement, "ledger.csv": ledger},
    )


def _money(text: str) -> Probe:
    return Probe(call="reconcile.money:parse_money", args=(text,))


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    pence = rng.randint(100, 9_999_999)
    return [
        _money(_pounds(pence, "sign")),
        _money(_pounds(-pence)),
        _money(f"({_pounds(pence)})"),
        _money(f"{_pounds(pence)} CR"),
        _money(f"{_pounds(rng.randint(100, 99_999))}CR"),
        Probe(call="reconcile.money:show_money", args=(rng.randint(-9_999_999, 9_999_999),)),
        _reconcile(_books(rng, 3)),
        _match(_books(rng, 2)),
    ]


DEBIT_SUFFIX = Change(
    id="debit-suffix",
    kind="bug",
    undo=(
        Replace(
            MONEY,
            '    if cleaned.endswith("DR"):\n        sign = -1\n'
            "        cleaned = cleaned[:-2].strip()\n"
            '    elif cleaned.endswith("CR"):\n        cleaned = cleaned[:-2].strip()\n',
            '    if cleaned.endswith(("DR", "CR")):\n        cleaned = cleaned[:-2].strip()\n',
        ),
    ),
    report=Report(
        title="Direct debits never match",
        complaint="Since the bank changed its export, none of our direct debits reconcile any "
        "more; they all show up as unmatched on both sides.",
        expected="Amounts marked DR on the statement are money going out, negative like the "
        "ledger's payments.",
        request="parse_money must read a `DR` suffix as a negative amount (`84.10 DR` is -8410) "
        "and keep `CR` positive.",
        translations={
            "fr": Report(
                title="Les prélèvements ne sont jamais rapprochés",
                complaint="Depuis que la banque a changé son export, aucun de nos prélèvements ne "
                "se rapproche plus : ils apparaissent tous non rapprochés des deux côtés.",
                expected="Les montants marqués DR sur le relevé sont des sorties d'argent, "
                "négatives comme les paiements du grand livre.",
                request="parse_money doit lire un suffixe `DR` comme un montant négatif (`84.10 "
                "DR` donne -8410) et garder `CR` positif.",
            )
        },
    ),
    example=lambda rng: _money(_pounds(-rng.randint(100, 99_999), "dr")),
    fail_to_pass=lambda rng: [
        _money(_pounds(-rng.randint(100_000, 9_999_999), "dr")),
        _money(f"£{_pounds(-rng.randint(100, 99_999), 'dr')}"),
        _money(_pounds(-rng.randint(100, 99_999), "dr").replace(" ", "")),
        _match(_books(rng, 3, amount=-rng.randint(100, 99_999)), "dr"),
    ],
    known_bad={
        "debits-and-credits-negative": (
            Replace(
                MONEY,
                '    if cleaned.endswith(("DR", "CR")):\n',
                '    if cleaned.endswith(("DR", "CR")):\n        sign = -1\n',
            ),
        ),
    },
)

INCLUSIVE_WINDOW = Change(
    id="inclusive-window",
    kind="bug",
    undo=(
        Replace(
            MATCHING,
            'days_apart(entry["date"], line["date"]) <= days  # inclusive',
            'days_apart(entry["date"], line["date"]) < days  # inclusive',
        ),
    ),
    report=Report(
        title="Payments booked exactly three days apart are not matched",
        complaint="Our month-end run left a dozen payments unmatched that are obviously the "
        "same money, each exactly three days between bank and ledger.",
        expected="The matching window includes its last day, as the README says.",
        request="reconcile must match entries at most `days` days apart, both ends included: "
        "with the default of 3, a payment 3 days apart matches, 4 days apart does not.",
        translations={
            "fr": Report(
                title="Les paiements saisis à exactement trois jours d'écart ne sont pas "
                "rapprochés",
                complaint="Notre clôture de fin de mois a laissé une douzaine de paiements non "
                "rapprochés qui sont clairement les mêmes, chacun avec exactement trois jours "
                "entre la banque et le grand livre.",
                expected="La fenêtre de rapprochement inclut son dernier jour, comme le dit le "
                "README.",
                request="reconcile doit rapprocher les écritures distantes d'au plus `days` "
                "jours, bornes incluses : avec la valeur par défaut de 3, un paiement à 3 jours "
                "est rapproché, à 4 jours non.",
            )
        },
    ),
    example=lambda rng: _reconcile(_books(rng, 1, gap=3)),
    fail_to_pass=lambda rng: [
        _reconcile(_books(rng, 2, gap=3)),
        _reconcile(_books(rng, 2, gap=5), 5),
        _match(_books(rng, 2, gap=3)),
    ],
    pass_to_pass=lambda rng: [
        _reconcile(_books(rng, 2, gap=4)),
        _reconcile(_books(rng, 1, gap=6), 5),
    ],
    known_bad={
        "window-one-day-wider": (
            Replace(
                MATCHING,
                'days_apart(entry["date"], line["date"]) < days  # inclusive',
                'days_apart(entry["date"], line["date"]) < days + 2  # inclusive',
            ),
        ),
    },
)

ONE_ENTRY_ONCE = Change(
    id="entry-matched-twice",
    kind="bug",
    undo=(
        Replace(MATCHING, "            for entry in free\n", "            for entry in ledger\n"),
        Replace(
            MATCHING,
            "        free.remove(best)\n",
            "        if best in free:\n            free.remove(best)\n",
        ),
    ),
    report=Report(
        title="Two rent payments matched to one invoice",
        complaint="We pay the same rent twice a month and the reconciliation ticks both bank "
        "lines off against the same ledger entry, leaving the other one open forever.",
        expected="Each ledger entry is matched to at most one bank line.",
        request="reconcile must not match a ledger entry that an earlier statement line already "
        "matched; the next closest entry of the same amount is used instead.",
        translations={
            "fr": Report(
                title="Deux loyers rapprochés d'une seule facture",
                complaint="Nous payons le même loyer deux fois par mois et le rapprochement coche "
                "les deux lignes bancaires contre la même écriture, laissant l'autre ouverte pour "
                "toujours.",
                expected="Chaque écriture du grand livre est rapprochée d'au plus une ligne "
                "bancaire.",
                request="reconcile ne doit pas rapprocher une écriture déjà rapprochée par une "
                "ligne précédente du relevé ; l'écriture suivante la plus proche du même montant "
                "est utilisée à la place.",
            )
        },
    ),
    example=lambda rng: _reconcile(_twins(rng, -rng.randint(50_000, 150_000))),
    fail_to_pass=lambda rng: [
        _reconcile(_twins(rng, -rng.randint(50_000, 150_000))),
        _reconcile(_twins(rng, rng.randint(100, 9_999))),
        _match(_twins(rng, -rng.randint(50_000, 150_000))),
    ],
    known_bad={
        "forgets-the-closest": (
            Replace(
                MATCHING,
                "        if best in free:\n            free.remove(best)\n",
                "        if best in free:\n            free.remove(best)\n        else:\n"
                "            unmatched.append(line)\n            continue\n",
            ),
        ),
    },
)

SORTED_LEFTOVERS = Change(
    id="sorted-leftovers",
    kind="feature",
    undo=(
        Replace(
            MATCHING,
            '        "unmatched_bank": [line["id"] for line in _by_date(unmatched)],\n'
            '        "unmatched_ledger": [entry["ref"] for entry in _by_date(free)],\n',
            '        "unmatched_bank": [line["id"] for line in unmatched],\n'
            '        "unmatched_ledger": [entry["ref"] for entry in free],\n',
        ),
        Replace(
            MATCHING,
            '\n\ndef _by_date(items):\n    return sorted(items, key=lambda item: item["date"])\n',
            "",
        ),
        Replace(MATCHING, "left unmatched, in date order (ties in file order).", "left unmatched."),
    ),
    report=Report(
        title="Sort the unmatched lists",
        complaint="The leftovers come out in whatever order the files happen to be in, and "
        "going through them against the bank's PDF takes forever.",
        expected="The unmatched bank lines and ledger entries come out sorted, so they can be "
        "checked off against the statement.",
        request="Sort the unmatched bank lines and the unmatched ledger entries in reconcile's "
        "result (keep the order of equal items as in the files).",
        translations={
            "fr": Report(
                title="Trier les listes non rapprochées",
                complaint="Les restes sortent dans l'ordre des fichiers, et les pointer avec le "
                "PDF de la banque prend une éternité.",
                expected="Les lignes bancaires et les écritures non rapprochées sortent triées, "
                "pour pouvoir les pointer avec le relevé.",
                request="Triez les lignes bancaires et les écritures non rapprochées dans le "
                "résultat de reconcile (en gardant l'ordre des fichiers pour les éléments égaux).",
            )
        },
    ),
    example=lambda rng: _reconcile(_leftovers(rng)),
    fail_to_pass=lambda rng: [
        _reconcile(_books(rng, 0)),
        _reconcile(_books(rng, 1, gap=9)),
        _reconcile(_books(rng, 2, gap=8)),
    ],
    known_bad={
        "sorts-bank-lines-only": (
            Replace(
                MATCHING,
                '        "unmatched_bank": [line["id"] for line in unmatched],\n',
                '        "unmatched_bank": [\n'
                '            line["id"] for line in sorted(unmatched, key=lambda i: i["date"])\n'
                "        ],\n",
            ),
        ),
    },
    readings={
        "by-amount": (
            Replace(
                MATCHING,
                '    return sorted(items, key=lambda item: item["date"])\n',
                '    return sorted(items, key=lambda item: item["amount"])\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="ledger-reconciler",
    title="the bank-to-ledger reconciler",
    project="ledger_reconciler",
    cli="reconcile.cli:main",
    locale="en-GB",
    changes=(DEBIT_SUFFIX, INCLUSIVE_WINDOW, ONE_ENTRY_ONCE, SORTED_LEFTOVERS),
    pass_to_pass=_pass_to_pass,
    titles={"fr": "le rapprochement banque-grand livre"},
    tags=("finance", "reconciliation", "matching"),
)
