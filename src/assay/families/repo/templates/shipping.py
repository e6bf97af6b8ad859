"""The shipping rate calculator: UK zones by postcode, weight bands, volumetric weight."""

from __future__ import annotations

import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

ZONES = "shiprate/zones.py"
WEIGHTS = "shiprate/weights.py"
RATES = "shiprate/rates.py"
CLI = "shiprate/cli.py"
TESTS = "tests/test_rates.py"
REMOTE = ("BT", "HS", "IV", "KW", "PA", "PH", "ZE")
MAINLAND = ("B", "M", "SW", "EC", "LS", "G", "CF", "EH", "NE", "BS", "L", "OX")
LIMITS = {"parcelline": (1000, 2000, 5000, 10000, 20000, 30000), "swiftpost": (500, 2000, 5000)}
SMALL = "10x10x10"


def _postcode(rng: random.Random, areas: tuple[str, ...], case: str = "upper") -> str:
    letters = "".join(rng.choice("ABDEFGHJLNPQRSTUWXYZ") for _ in range(2))
    code = f"{rng.choice(areas)}{rng.randint(1, 20)} {rng.randint(1, 9)}{letters}"
    if case == "lower":
        return code.lower()
    if case == "mixed":
        return code[0] + code[1:].lower()
    return code


def _box(rng: random.Random, low: int = 25, high: int = 60) -> str:
    return "x".join(str(rng.randint(low, high)) for _ in range(3))


def _zone(postcode: str) -> Probe:
    return Probe(call="shiprate.zones:zone_for", args=(postcode,))


def _quote(postcode: str, grams: int, box: str, carrier: str = "parcelline") -> Probe:
    return Probe(call="shiprate.rates:quote", args=(postcode, grams, box, carrier))


def _chargeable(grams: int, box: str, divisor: int = 5000) -> Probe:
    length, width, height = (int(side) for side in box.split("x"))
    return Probe(
        call="shiprate.weights:chargeable_grams", args=(grams, length, width, height, divisor)
    )


def _cli(*argv: str) -> Probe:
    return Probe(cli="shiprate.cli:main", argv=("quote", *argv))


def _batch(orders: list[tuple[str, int, str]], *extra: str) -> Probe:
    lines = ["order_id,postcode,weight_g,dimensions"]
    lines += [f"WS-{10200 + n},{pc},{grams},{box}" for n, (pc, grams, box) in enumerate(orders)]
    return Probe(
        cli="shiprate.cli:main",
        argv=(*extra, "batch", "orders.csv"),
        files={"orders.csv": "\n".join(lines) + "\n"},
    )


def _order(rng: random.Random) -> tuple[str, int, str]:
    areas = rng.choice((REMOTE, MAINLAND))
    return _postcode(rng, areas), rng.randint(100, 18_000), _box(rng, 10, 45)


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _zone(_postcode(rng, REMOTE)),
        _zone(_postcode(rng, MAINLAND)),
        _zone(_postcode(rng, MAINLAND, "lower")),
        _chargeable(rng.randint(20_000, 25_000), _box(rng, 10, 20)),
        Probe(call="shiprate.weights:parse_dimensions", args=(_box(rng).upper(),)),
        Probe(call="shiprate.rates:show", args=(rng.randint(0, 99_999),)),
        _quote(_postcode(rng, MAINLAND), rng.randint(12_100, 19_900), _box(rng, 10, 20)),
        _cli(_postcode(rng, MAINLAND), str(rng.randint(5_100, 9_900)), _box(rng, 10, 20)),
        _batch([_order(rng) for _ in range(3)]),
    ]


POSTCODE_CASE = Change(
    id="lowercase-postcode",
    kind="bug",
    undo=(
        Replace(
            ZONES,
            '    outward = postcode.strip().upper().split()[0] if postcode.strip() else ""\n',
            '    outward = postcode.strip().split()[0] if postcode.strip() else ""\n',
        ),
    ),
    report=Report(
        title="Belfast orders charged mainland postage",
        complaint="ParcelLine billed us the Northern Ireland rate for a pile of orders that the "
        "checkout quoted at mainland prices. Looking at them, the customers had typed their "
        "postcodes in small letters.",
        expected="A postcode is recognised however the customer capitalised it.",
        request="zone_for (and so quote and the command line) must treat postcodes case-"
        "insensitively: `bt7 1nn` and `Hs1 2ab` are in the same zones as `BT7 1NN` and `HS1 2AB`.",
        translations={
            "fr": Report(
                title="Colis pour Belfast facturés au tarif métropole",
                complaint="ParcelLine nous a facturé le tarif Irlande du Nord pour tout un tas de "
                "commandes que le site avait chiffrées au tarif métropole. En regardant de plus "
                "près, les clients avaient tapé leur code postal en minuscules.",
                expected="Un code postal est reconnu quelle que soit la casse saisie par le "
                "client.",
                request="zone_for (et donc quote et la ligne de commande) doit ignorer la casse "
                "des codes postaux : `bt7 1nn` et `Hs1 2ab` sont dans les mêmes zones que `BT7 "
                "1NN` et `HS1 2AB`.",
            )
        },
    ),
    example=lambda rng: _zone(_postcode(rng, REMOTE, "lower")),
    fail_to_pass=lambda rng: [
        _zone(_postcode(rng, REMOTE, "lower")),
        _zone(_postcode(rng, REMOTE, "mixed")),
        _quote(_postcode(rng, REMOTE, "lower"), rng.randint(100, 9_000), _box(rng, 10, 30)),
        _cli(_postcode(rng, REMOTE, "mixed"), str(rng.randint(100, 4_000)), _box(rng, 10, 20)),
        _batch([_order(rng), (_postcode(rng, REMOTE, "lower"), 900, "20x20x10")]),
    ],
    pass_to_pass=lambda rng: [_zone(_postcode(rng, MAINLAND, "mixed"))],
    known_bad={
        "upper-in-command-line-only": (
            Replace(
                CLI,
                "result = quote(args.postcode, ",
                "result = quote(args.postcode.upper(), ",
            ),
        ),
    },
)

BAND_LIMIT = Change(
    id="band-limit",
    kind="bug",
    undo=(
        Replace(RATES, "        if grams <= limit:\n", "        if grams < limit:\n"),
        Replace(TESTS, '        self.assertEqual(band_price(bands, "mainland", 2000), 495)\n', ""),
    ),
    report=Report(
        title="A 2 kg parcel is charged as 5 kg",
        complaint="A customer complained that a parcel weighing exactly 2.000 kg was charged "
        "at the 5 kg price. The carrier's tariff says up to and including 2 kg.",
        expected="A parcel at exactly a band's limit is in that band, as the tariff says.",
        request="band_price must include each band's upper limit: 2000 g is in the 2 kg band, "
        "2001 g in the next; the heaviest band's limit itself is accepted too.",
        translations={
            "fr": Report(
                title="Un colis de 2 kg facturé comme un colis de 5 kg",
                complaint="Un client se plaint qu'un colis pesant exactement 2,000 kg lui a été "
                "facturé au prix des 5 kg. La grille du transporteur dit « jusqu'à 2 kg inclus ».",
                expected="Un colis pile à la limite d'une tranche est dans cette tranche, comme "
                "le dit la grille.",
                request="band_price doit inclure la limite haute de chaque tranche : 2000 g est "
                "dans la tranche 2 kg, 2001 g dans la suivante ; la limite de la tranche la plus "
                "lourde est acceptée aussi.",
            )
        },
    ),
    example=lambda rng: _quote(
        _postcode(rng, MAINLAND), rng.choice(LIMITS["parcelline"][:4]), SMALL
    ),
    fail_to_pass=lambda rng: [
        _quote(_postcode(rng, REMOTE), rng.choice(LIMITS["parcelline"][1:5]), SMALL),
        _quote(_postcode(rng, MAINLAND), rng.choice(LIMITS["swiftpost"]), SMALL, "swiftpost"),
        _quote(_postcode(rng, MAINLAND), 30_000, SMALL),
        _cli(_postcode(rng, REMOTE), str(rng.choice(LIMITS["parcelline"])), SMALL),
    ],
    pass_to_pass=lambda rng: [
        _quote(_postcode(rng, MAINLAND), rng.choice((2000, 5000)) + rng.randint(1, 999), SMALL),
        _quote(
            _postcode(rng, REMOTE),
            rng.choice((5000, 10000)) + rng.randint(100, 999),
            SMALL,
            "swiftpost",
        ),
        _quote(_postcode(rng, MAINLAND), rng.randint(30_001, 31_000), SMALL),
    ],
    known_bad={
        "whole-kilos": (
            Replace(
                RATES,
                "        if grams < limit:\n",
                "        if grams // 1000 * 1000 <= limit:\n",
            ),
        ),
    },
)

VOLUMETRIC = Change(
    id="volumetric-grams",
    kind="bug",
    undo=(
        Replace(
            WEIGHTS,
            "    return math.ceil(length * width * height * 1000 / divisor)\n",
            "    # the divisor is in cm3 per gram, so this is in grams already\n"
            "    return math.ceil(length * width * height / divisor)\n",
        ),
        Replace(
            TESTS,
            "    def test_volumetric(self):\n"
            "        self.assertEqual(volumetric_grams(40, 30, 20, 5000), 4800)\n\n",
            "",
        ),
        Replace(TESTS, "        self.assertEqual(chargeable_grams(1200, 40, 30, 20), 4800)\n", ""),
        Replace(
            TESTS,
            "from shiprate.weights import chargeable_grams, volumetric_grams\n",
            "from shiprate.weights import chargeable_grams\n",
        ),
    ),
    report=Report(
        title="Bulky parcels undercharged",
        complaint="Our carrier invoice for last month is several hundred pounds more than we "
        "charged customers. It's all the big light boxes (duvets, lampshades): we charge them "
        "as if they weighed what the scales say.",
        expected="Large light parcels are charged by volumetric weight when it is more than the "
        "actual weight.",
        request="volumetric_grams must give length * width * height (cm) / divisor in "
        "kilograms, expressed in grams and rounded up to the gram (40x30x20 at 5000 is 4800 "
        "g), so chargeable_grams and quotes use it.",
        translations={
            "fr": Report(
                title="Colis volumineux sous-facturés",
                complaint="La facture du transporteur du mois dernier dépasse de plusieurs "
                "centaines de livres ce que nous avons facturé aux clients. Ce sont tous les gros "
                "cartons légers (couettes, abat-jour) : on les facture au poids de la balance.",
                expected="Les colis grands et légers sont facturés au poids volumétrique quand il "
                "dépasse le poids réel.",
                request="volumetric_grams doit donner longueur * largeur * hauteur (cm) / "
                "diviseur en kilogrammes, exprimé en grammes et arrondi au gramme supérieur "
                "(40x30x20 à 5000 donne 4800 g), pour que chargeable_grams et les devis "
                "l'utilisent.",
            )
        },
    ),
    example=lambda rng: _chargeable(rng.randint(200, 1_500), _box(rng)),
    fail_to_pass=lambda rng: [
        _chargeable(rng.randint(200, 1_500), _box(rng)),
        _chargeable(rng.randint(200, 1_500), _box(rng), 6000),
        Probe(
            call="shiprate.weights:volumetric_grams",
            args=(rng.randint(11, 70), rng.randint(11, 50), rng.randint(11, 40), 5000),
        ),
        _quote(_postcode(rng, MAINLAND), rng.randint(300, 900), _box(rng, 30, 50)),
        _batch([_order(rng), (_postcode(rng, REMOTE), 700, _box(rng, 30, 45))]),
    ],
    pass_to_pass=lambda rng: [_chargeable(rng.randint(9_000, 12_000), _box(rng, 10, 25))],
    known_bad={
        "rounds-up-to-whole-kilos": (
            Replace(
                WEIGHTS,
                "    return math.ceil(length * width * height / divisor)\n",
                "    return math.ceil(length * width * height / divisor / 1000) * 1000\n",
            ),
        ),
    },
)

FUEL = Change(
    id="fuel-surcharge",
    kind="feature",
    undo=(
        Replace(RATES, '    fuel = _percent(base, settings["fuel_percent"])\n', ""),
        Replace(
            RATES,
            '        "fuel": fuel,\n        "total": base + remote + fuel,\n',
            '        "total": base + remote,\n',
        ),
        Replace(
            RATES,
            "\n\ndef _percent(pence, percent):\n"
            "    exact = Decimal(pence) * percent / 100\n"
            "    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))\n",
            "",
        ),
        Replace(RATES, "from decimal import ROUND_HALF_UP, Decimal\n\n", ""),
        Replace(CLI, '("base", "remote", "fuel", "total")', '("base", "remote", "total")'),
        Replace(
            "README.md",
            "pay the carrier's remote-area surcharge; the fuel surcharge is a percentage of the\n"
            "table price.",
            "pay the carrier's remote-area surcharge.",
        ),
        Replace(TESTS, '        self.assertEqual(result["fuel"], 34)\n', ""),
        Replace(TESTS, '"£4.29"', '"£3.95"'),
    ),
    report=Report(
        title="Add the fuel surcharge to quotes",
        complaint="Both carriers charge us a fuel surcharge on every parcel and checkout never "
        "shows it, so we pay it out of our margin. The percentages are already in the carriers "
        "file.",
        expected="Quotes include the carrier's fuel surcharge.",
        request="quote should add the carrier's fuel surcharge (`fuel_surcharge_percent` in "
        "carriers.ini) as its own `fuel` entry, in pence rounded half up, counted in the "
        "`total`; the quote command prints it as a `fuel` line before the total.",
        translations={
            "fr": Report(
                title="Ajouter la surcharge carburant aux devis",
                complaint="Les deux transporteurs nous facturent une surcharge carburant sur "
                "chaque colis et le site ne l'affiche jamais : on la paie sur notre marge. Les "
                "pourcentages sont déjà dans le fichier des transporteurs.",
                expected="Les devis comprennent la surcharge carburant du transporteur.",
                request="quote doit ajouter la surcharge carburant du transporteur "
                "(`fuel_surcharge_percent` dans carriers.ini) comme entrée `fuel` à part, en "
                "pence arrondis au plus proche (demi vers le haut), comptée dans le `total` ; la "
                "commande quote l'affiche sur une ligne `fuel` avant le total.",
            )
        },
    ),
    example=lambda rng: _quote(_postcode(rng, MAINLAND), rng.randint(100, 900), SMALL),
    fail_to_pass=lambda rng: [
        _quote(_postcode(rng, MAINLAND), rng.randint(100, 900), SMALL),
        _quote(_postcode(rng, REMOTE), rng.randint(1_100, 29_000), SMALL),
        _quote(_postcode(rng, MAINLAND), rng.randint(600, 24_000), SMALL, "swiftpost"),
        _cli(_postcode(rng, REMOTE), str(rng.randint(100, 9_000)), _box(rng, 10, 30)),
        _batch([_order(rng) for _ in range(3)]),
    ],
    known_bad={
        "truncates-pence": (
            Replace(
                RATES,
                '        "total": base + remote,\n',
                '        "fuel": int(base * settings["fuel_percent"] / 100),\n'
                '        "total": base + remote + int(base * settings["fuel_percent"] / 100),\n',
            ),
        ),
    },
    readings={
        "on-remote-surcharge-too": (
            Replace(
                RATES,
                '    fuel = _percent(base, settings["fuel_percent"])\n',
                '    fuel = _percent(base + remote, settings["fuel_percent"])\n',
            ),
        ),
    },
)


def _table(rng: random.Random, extra: str = "") -> str:
    """A carrier's rate table, with an ``extra`` column (notes, dates) if given."""
    head = "| max_kg | mainland | highlands | ni |" + (f" {extra} |" if extra else "")
    lines = [head, "|---|---|---|---|" + ("---|" if extra else "")]
    values = {"note": ("two-man", "", "excl. VAT", ""), "valid_from": ("01/03/2025", "")}
    for limit in (1, 3, 10, 30):
        prices = [rng.randint(250, 900) * limit**0.5 for _ in range(3)]
        cells = " | ".join(f"{price / 100:.2f}" for price in sorted(prices))
        note = f" {rng.choice(values.get(extra, ('n/a', '')))} |" if extra else ""
        lines.append(f"| {limit} | {cells} |{note}")
    return "\n".join(lines) + "\n"


def _own_carrier(rng: random.Random, extra: str = "", grams: int | None = None) -> Probe:
    config = (
        "[acme]\ntable = acme.table\nvolumetric_divisor = 5000\n"
        f"remote_surcharge = {rng.randint(2, 9)}.{rng.choice((0, 50, 95)):02d}\n"
        f"fuel_surcharge_percent = {rng.randint(0, 12)}\n"
    )
    areas = rng.choice((REMOTE, MAINLAND))
    return Probe(
        cli="shiprate.cli:main",
        argv=(
            "--config",
            "carriers.ini",
            "--carrier",
            "acme",
            "quote",
            _postcode(rng, areas),
            str(rng.randint(100, 29_000) if grams is None else grams),
            _box(rng, 10, 30),
        ),
        files={"carriers.ini": config, "acme.table": _table(rng, extra)},
    )


EXTRA_COLUMNS = Change(
    id="table-notes-column",
    kind="bug",
    undo=(
        Replace(
            "shiprate/carriers.py",
            '        limit = int(Decimal(row["max_kg"]) * 1000)\n'
            "        # tables may carry other columns (notes, valid-from dates): only zones are "
            "prices\n"
            "        bands.append((limit, {zone: pence(row[zone]) for zone in ZONES}))\n",
            '        limit = int(Decimal(row.pop("max_kg")) * 1000)\n'
            "        bands.append((limit, {zone: pence(price) for zone, price in row.items()}))\n",
        ),
        Replace("shiprate/carriers.py", "from shiprate.zones import ZONES\n", ""),
        Replace(ZONES, 'ZONES = ("mainland", "highlands", "ni")\n', ""),
    ),
    report=Report(
        title="SwiftPost quotes fail since the new tariff",
        complaint="Since we put in SwiftPost's new tariff table, every SwiftPost quote at "
        "checkout fails with a decimal error. ParcelLine still works. The only thing that "
        "looks different in their table is a column of notes on the right.",
        expected="Rate tables with extra columns (notes, dates) load; only the zone columns "
        "are prices.",
        request="load_carrier must read only the zone columns (`mainland`, `highlands`, `ni`) "
        "of a rate table and ignore any other column, whatever it is called and holds. The "
        "table parser is vendored: leave it as it is.",
        translations={
            "fr": Report(
                title="Les devis SwiftPost échouent depuis le nouveau tarif",
                complaint="Depuis qu'on a mis le nouveau tableau de tarifs de SwiftPost, chaque "
                "devis SwiftPost échoue au paiement avec une erreur de décimal. ParcelLine "
                "marche toujours. La seule différence visible dans leur tableau, c'est une "
                "colonne de remarques à droite.",
                expected="Les tableaux de tarifs avec des colonnes en plus (remarques, dates) se "
                "chargent ; seules les colonnes de zones sont des prix.",
                request="load_carrier ne doit lire que les colonnes de zones (`mainland`, "
                "`highlands`, `ni`) d'un tableau de tarifs et ignorer toute autre colonne, "
                "quels que soient son nom et son contenu. Le parseur de tableaux est vendorisé : "
                "n'y touchez pas.",
            )
        },
    ),
    example=lambda rng: _quote(
        _postcode(rng, MAINLAND), rng.randint(100, 24_000), SMALL, "swiftpost"
    ),
    fail_to_pass=lambda rng: [
        _quote(_postcode(rng, REMOTE), rng.randint(100, 24_000), _box(rng, 10, 40), "swiftpost"),
        _own_carrier(rng, "valid_from"),
        _own_carrier(rng, "note"),
        _batch([_order(rng) for _ in range(2)], "--carrier", "swiftpost"),
    ],
    pass_to_pass=lambda rng: [
        _own_carrier(rng),
        _own_carrier(rng),
        # A few grams past the 10 kg band (a box of at most 30 cm weighs less by volume): a
        # limit read a little off (max_kg times 1001) priced it in that band, and passed.
        _own_carrier(rng, grams=10_000 + rng.randint(1, 9)),
    ],
    known_bad={
        "skips-rows-with-notes": (
            Replace(
                "shiprate/carriers.py",
                '        limit = int(Decimal(row.pop("max_kg")) * 1000)\n'
                "        bands.append((limit, {zone: pence(price) for zone, price in "
                "row.items()}))\n",
                "        try:\n"
                '            limit = int(Decimal(row.pop("max_kg")) * 1000)\n'
                "            bands.append((limit, {zone: pence(price) for zone, price in "
                "row.items()}))\n"
                "        except ArithmeticError:\n"
                "            continue  # a row with notes in it\n",
            ),
        ),
        "drops-the-note-column": (
            Replace(
                "shiprate/carriers.py",
                '        limit = int(Decimal(row.pop("max_kg")) * 1000)\n',
                '        limit = int(Decimal(row.pop("max_kg")) * 1000)\n'
                '        row.pop("note", None)\n',
            ),
        ),
    },
)


TEMPLATE = ProjectTemplate(
    id="shipping-rates",
    title="the shipping rate calculator",
    project="shipping_rates",
    cli="shiprate.cli:main",
    locale="en-GB",
    changes=(POSTCODE_CASE, BAND_LIMIT, VOLUMETRIC, FUEL, EXTRA_COLUMNS),
    pass_to_pass=_pass_to_pass,
    titles={"fr": "le calculateur de frais de port"},
    tags=("logistics", "units", "configuration"),
)
