"""The reorder planner: raw-material stock in pounds and kilograms, supplier terms, a CSV for
purchasing."""

from __future__ import annotations

import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

UNITS = "reorder/units.py"
SUPPLIERS = "reorder/suppliers.py"
PLANNING = "reorder/planning.py"
PLAN = "reorder/plan.py"
EXPORT = "reorder/export.py"
CLI = "reorder/cli.py"
TESTS = "tests/test_planning.py"
MATERIALS = (
    "Cane sugar, granulated",
    "Cocoa powder 22/24",
    "Rolled oats",
    "Citric acid anhydrous",
    "Corn starch",
    "Whey powder",
    "Dextrose monohydrate",
    "Salt, fine flake",
    "Soy lecithin",
    "Wheat flour, bread",
)
VENDORS = (
    "Midwest Sweeteners",
    "Great Lakes Ingredients",
    "Prairie Mills",
    "Coastal Chemical Supply",
    "Heartland Dairy Co-op",
)
PACKS = (25, 50, 55, 1000, 2000)
Terms = dict[str, int]


def _terms(rng: random.Random, lead: int | None = None, pack: int | None = None) -> Terms:
    size = pack or rng.choice(PACKS)
    return {
        "lead_time_days": lead or rng.randint(2, 21),
        "moq": size * rng.randint(1, 3),
        "pack_size": size,
    }


def _files(
    rng: random.Random,
    count: int,
    unit: str | None = None,
    legacy: bool = False,
    low: float = 0.8,
) -> tuple[str, str]:
    """A stock export of ``count`` items, most (``low``) at or below their reorder point, and
    the supplier file for them (the old ERP's with ``legacy``)."""
    stock = ["sku,description,on_hand,on_order,unit,daily_usage"]
    old = ["sku,supplier,leadtime_wks,min_qty,pack_size"]
    new = ["sku,supplier,lead_time_days,moq,pack_size"]
    for number, material in enumerate(rng.sample(MATERIALS, count)):
        sku = f"RM-{1001 + number + 10 * rng.randint(0, 80)}"
        weeks = rng.randint(1, 4)
        terms = _terms(rng, weeks * 7 if legacy else None)
        usage = rng.randint(5, 400)
        point = usage * (terms["lead_time_days"] + 5)
        share = rng.uniform(0.05, 0.98) if rng.random() < low else rng.uniform(1.1, 2.0)
        available = int(point * share)
        on_order = rng.choice((0, 0, available // 3))
        shown = f"{available - on_order:,}"
        measure = unit or rng.choice(("lb", "lb", "kg"))
        stock.append(f'{sku},"{material}","{shown}",{on_order},{measure},{usage}')
        vendor = rng.choice(VENDORS)
        old.append(f"{sku},{vendor},{weeks},{terms['moq']},{terms['pack_size']}")
        new.append(f"{sku},{vendor},{terms['lead_time_days']},{terms['moq']},{terms['pack_size']}")
    suppliers = old if legacy else new
    return "\n".join(stock) + "\n", "\n".join(suppliers) + "\n"


def _plan(files: tuple[str, str], *extra: int) -> Probe:
    return Probe(call="reorder.plan:plan_files", args=(files[0], [files[1]], *extra))


def _cli(files: tuple[str, str], *extra: str) -> Probe:
    return Probe(
        cli="reorder.cli:main",
        argv=("plan", "stock.csv", "suppliers.csv", *extra),
        files={"stock.csv": files[0], "suppliers.csv": files[1]},
    )


def _order(available: int, usage: int, terms: Terms, *extra: int) -> Probe:
    return Probe(call="reorder.planning:order_quantity", args=(available, usage, terms, *extra))


def _short(rng: random.Random, terms: Terms) -> Probe:
    """An item below its reorder point: whether its need is whole packs is left to chance."""
    usage = rng.randint(5, 400)
    point = usage * (terms["lead_time_days"] + 5)
    return _order(rng.randint(0, point), usage, terms)


def _minimum_order(rng: random.Random) -> Probe:
    """An item just below its reorder point whose supplier's minimum is more than it needs."""
    usage = rng.randint(5, 40)
    terms = _terms(rng, rng.randint(3, 10), rng.choice((25, 50)))
    terms["moq"] = terms["pack_size"] * rng.randint(40, 60)
    point = usage * (terms["lead_time_days"] + 5)
    return _order(point - rng.randint(0, usage), usage, terms)


def _at_the_limit(rng: random.Random) -> tuple[str, str]:
    """Files whose first item has exactly its usage over the lead time in stock (in pounds)."""
    stock, suppliers = _files(rng, 3)
    usage, lead = rng.randint(5, 400), rng.randint(2, 21)
    pack = rng.choice(PACKS)
    stock += f'RM-9001,"Sea salt, coarse","{usage * lead:,}",0,lb,{usage}\n'
    suppliers += f"RM-9001,{rng.choice(VENDORS)},{lead},{pack},{pack}\n"
    return stock, suppliers


def _whole_packs(rng: random.Random) -> Probe:
    """An item whose need is exactly a whole number of packs (above the minimum order)."""
    usage = rng.randint(10, 60)
    terms = _terms(rng, rng.randint(5, 20), rng.choice((25, 50)))
    terms["moq"] = terms["pack_size"]
    target = usage * (terms["lead_time_days"] + 5 + 14)
    packs = -(-usage * 14 // terms["pack_size"]) + rng.choice((0, 1))
    return _order(target - packs * terms["pack_size"], usage, terms)


def _pounds(quantity: str, unit: str) -> Probe:
    return Probe(call="reorder.units:to_pounds", args=(quantity, unit))


def _orphan(rng: random.Random) -> tuple[str, str]:
    """Files where one item of the stock export has no supplier: the plan stops with an error."""
    stock, suppliers = _files(rng, 3)
    return stock, "\n".join(suppliers.splitlines()[:-1]) + "\n"


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _pounds(f"{rng.randint(1, 99_999):,}.{rng.randint(0, 9)}", rng.choice(("lb", "LBS"))),
        _whole_packs(rng),
        _order(rng.randint(20_000, 40_000), rng.randint(5, 400), _terms(rng, 14)),
        _plan(_files(rng, 3, "lb")),
        _cli(_files(rng, 4, "lb")),
        _cli(_files(rng, 3, "lb"), "--safety-days", str(rng.randint(2, 10)), "--out", "po.csv"),
        _cli(_orphan(rng)),
    ]


PACK_ROUNDING = Change(
    id="pack-rounding",
    kind="bug",
    undo=(
        Replace(
            PLANNING,
            '    packs = math.ceil(need / terms["pack_size"])\n',
            '    packs = int(need // terms["pack_size"])\n',
        ),
        Replace(
            TESTS,
            "    def test_whole_packs(self):\n"
            "        # 120 + 140 - 100 = 160 lb needed: four 50 lb bags\n"
            "        self.assertEqual(order_quantity(100, 10, terms(7, 0, 50)), 200)\n\n",
            "",
        ),
    ),
    report=Report(
        title="Purchase orders come up short",
        complaint="We ran out of cocoa powder two days before the truck came, although the "
        "planner said we had ordered enough. Going through the numbers, every order is a bit "
        "less than what the planner itself says we need.",
        expected="Orders cover the whole need, rounded up to full packs.",
        request="order_quantity must round the quantity needed *up* to whole packs (160 lb "
        "in 50 lb bags is 200 lb, 4 bags); a need that is already whole packs stays as it is.",
        translations={
            "de": Report(
                title="Bestellungen fallen zu knapp aus",
                complaint="Uns ist zwei Tage vor der Lieferung das Kakaopulver ausgegangen, "
                "obwohl der Planer sagte, wir hätten genug bestellt. Beim Nachrechnen ist jede "
                "Bestellung etwas kleiner als der Bedarf, den der Planer selbst ausweist.",
                expected="Bestellungen decken den ganzen Bedarf, auf volle Gebinde aufgerundet.",
                request="order_quantity muss die benötigte Menge auf ganze Gebinde *auf*runden "
                "(160 lb in 50-lb-Säcken sind 200 lb, 4 Säcke); ein Bedarf, der schon volle "
                "Gebinde ergibt, bleibt, wie er ist.",
            )
        },
    ),
    example=lambda rng: _short(rng, _terms(rng, pack=rng.choice((25, 50, 55)))),
    fail_to_pass=lambda rng: [
        _short(rng, _terms(rng, pack=rng.choice((25, 50, 55)))),
        _short(rng, _terms(rng, pack=rng.choice((1000, 2000)))),
        _short(rng, _terms(rng)),
        _plan(_files(rng, 4)),
        _cli(_files(rng, 5)),
    ],
    pass_to_pass=lambda rng: [_whole_packs(rng), _whole_packs(rng), _minimum_order(rng)],
    known_bad={
        "always-one-more-pack": (
            Replace(
                PLANNING,
                '    packs = int(need // terms["pack_size"])\n',
                '    packs = int(need // terms["pack_size"]) + 1\n',
            ),
        ),
    },
)

LEGACY_LEAD_TIME = Change(
    id="legacy-lead-time",
    kind="bug",
    undo=(
        Replace(
            SUPPLIERS,
            '            lead = int(row["leadtime_wks"]) * 7\n',
            '            lead = int(row["leadtime_wks"])  # the old ERP exports days, not weeks\n',
        ),
    ),
    report=Report(
        title="Citric acid reordered far too late",
        complaint="Coastal Chemical still sends us their terms in the old ERP format. Their "
        "lead time is three weeks, but the planner behaves as if they delivered in three days "
        "and only orders when it's already too late.",
        expected="Lead times from old-format supplier files count in weeks, as the column says.",
        request="read_suppliers must read `leadtime_wks` in old-format supplier files as weeks "
        "(3 is 21 days); `lead_time_days` in current files stays in days.",
        translations={
            "de": Report(
                title="Zitronensäure viel zu spät nachbestellt",
                complaint="Coastal Chemical schickt uns die Konditionen immer noch im Format des "
                "alten ERP. Ihre Lieferzeit ist drei Wochen, aber der Planer tut so, als "
                "lieferten sie in drei Tagen, und bestellt erst, wenn es schon zu spät ist.",
                expected="Lieferzeiten aus Lieferantendateien im alten Format zählen in Wochen, "
                "wie die Spalte sagt.",
                request="read_suppliers muss `leadtime_wks` in Lieferantendateien im alten Format "
                "als Wochen lesen (3 sind 21 Tage); `lead_time_days` in aktuellen Dateien bleibt "
                "in Tagen.",
            )
        },
    ),
    example=lambda rng: Probe(
        call="reorder.suppliers:read_suppliers", args=(_files(rng, 1, legacy=True)[1],)
    ),
    fail_to_pass=lambda rng: [
        Probe(call="reorder.suppliers:read_suppliers", args=(_files(rng, 3, legacy=True)[1],)),
        _plan(_files(rng, 4, legacy=True)),
        _cli(_files(rng, 3, legacy=True)),
    ],
    pass_to_pass=lambda rng: [
        Probe(call="reorder.suppliers:read_suppliers", args=(_files(rng, 3)[1],)),
        _plan(_files(rng, 3)),
    ],
    known_bad={
        "weeks-everywhere": (
            Replace(
                SUPPLIERS,
                '        if (row.get("lead_time_days") or "").strip():\n'
                '            lead = int(row["lead_time_days"])\n'
                "        else:\n"
                '            lead = int(row["leadtime_wks"])  '
                "# the old ERP exports days, not weeks\n",
                '        lead = int(row.get("lead_time_days") or row["leadtime_wks"]) * 7\n',
            ),
        ),
    },
)

KILOGRAMS = Change(
    id="kilograms-to-pounds",
    kind="bug",
    undo=(
        Replace(
            UNITS,
            "        value = value * LB_PER_KG\n",
            "        value = value / LB_PER_KG  # LB_PER_KG: kilograms in a pound\n",
        ),
        Replace(
            "tests/test_planning.py",
            "\n    def test_kilos(self):\n"
            '        self.assertEqual(to_pounds("100", "kg"), 220.46)\n',
            "",
        ),
    ),
    report=Report(
        title="Sugar and starch silos show a fraction of what's in them",
        complaint="The planner wants us to order a truckload of sugar every week although the "
        "silo is half full. It only happens for what the silo scales count, which are in "
        "kilograms.",
        expected="Stock counted in kilograms is converted to pounds correctly before planning.",
        request="to_pounds must convert kilograms to pounds (1 kg = 2.20462262 lb, rounded to "
        "a hundredth of a pound: 100 kg is 220.46 lb); pounds stay as they are.",
        translations={
            "de": Report(
                title="Zucker- und Stärkesilos zeigen nur einen Bruchteil des Bestands",
                complaint="Der Planer will jede Woche einen Lastwagen Zucker bestellen, obwohl "
                "das Silo halb voll ist. Das passiert nur bei dem, was die Silowaagen zählen, und "
                "die zählen in Kilogramm.",
                expected="Bestände in Kilogramm werden vor der Planung richtig in Pfund "
                "umgerechnet.",
                request="to_pounds muss Kilogramm in Pfund umrechnen (1 kg = 2.20462262 lb, auf "
                "eine Hundertstel Pfund gerundet: 100 kg sind 220.46 lb); Pfund bleiben, wie sie "
                "sind.",
            )
        },
    ),
    example=lambda rng: _pounds(f"{rng.randint(1_000, 30_000):,}", "kg"),
    fail_to_pass=lambda rng: [
        _pounds(f"{rng.randint(1_000, 30_000):,}.{rng.randint(1, 9)}", "kg"),
        _pounds(str(rng.randint(1_000, 9_999)), rng.choice(("KG", "kgs"))),
        _plan(_files(rng, 3, "kg")),
        _cli(_files(rng, 4, "kg")),
    ],
    pass_to_pass=lambda rng: [_pounds(str(rng.randint(1_000, 9_999)), "lb")],
    known_bad={
        "uses-deprecated-kg-to-lb": (
            Replace(
                UNITS,
                "        value = value / LB_PER_KG  # LB_PER_KG: kilograms in a pound\n",
                "        value = Decimal(str(kg_to_lb(value)))\n",
            ),
        ),
    },
)

URGENT = Change(
    id="urgent-lines",
    kind="feature",
    undo=(
        Replace(
            PLANNING,
            "\n\ndef is_urgent(available, daily_usage, lead_time_days):\n"
            '    """Whether the plant runs out before an order placed today arrives."""\n'
            "    return Decimal(str(available)) < Decimal(str(daily_usage)) * lead_time_days\n",
            "",
        ),
        Replace(
            PLAN,
            "from reorder.planning import is_urgent, order_quantity\n",
            "from reorder.planning import order_quantity\n",
        ),
        Replace(
            PLAN,
            '                "urgent": is_urgent(\n'
            '                    item["available"], item["daily_usage"], terms["lead_time_days"]\n'
            "                ),\n",
            "",
        ),
        Replace(EXPORT, '"Packs", "Urgent"]', '"Packs"]'),
        Replace(EXPORT, '                "YES" if line["urgent"] else "",\n', ""),
        Replace(
            CLI,
            '        urgent = sum(1 for line in lines if line["urgent"])\n'
            '        print(f"{len(lines)} lines ({urgent} urgent) written to {args.out}")\n',
            '        print(f"{len(lines)} lines written to {args.out}")\n',
        ),
        Replace(
            "README.md",
            " Lines that cannot wait\nfor the next weekly run are marked urgent: without them "
            "the plant runs out before the delivery\narrives.",
            "",
        ),
        Replace("tests/test_plan.py", '        self.assertTrue(line["urgent"])\n', ""),
        Replace("tests/test_plan.py", '"Acme,RM-1,Salt,250,5,YES"', '"Acme,RM-1,Salt,250,5"'),
    ),
    report=Report(
        title="Flag the urgent orders",
        complaint="The buyers go through forty lines every Monday and have no idea which ones "
        "have to be phoned in today and which can wait for the usual email order.",
        expected="The purchasing CSV says which lines are urgent.",
        request="Mark urgent lines: each plan line gets an `urgent` flag (True/False), the "
        "purchasing CSV an `Urgent` column at the end (`YES` or empty), and the summary printed "
        "with `--out` counts them: `12 lines (3 urgent) written to po.csv`.",
        translations={
            "de": Report(
                title="Dringende Bestellungen markieren",
                complaint="Die Einkäufer gehen jeden Montag vierzig Zeilen durch und wissen "
                "nicht, welche sie heute noch telefonisch bestellen müssen und welche mit der "
                "üblichen E-Mail-Bestellung warten können.",
                expected="Die Einkaufs-CSV zeigt, welche Zeilen dringend sind.",
                request="Dringende Zeilen markieren: jede Planzeile bekommt ein Feld `urgent` "
                "(True/False), die Einkaufs-CSV am Ende eine Spalte `Urgent` (`YES` oder leer), "
                "und die Zusammenfassung bei `--out` zählt sie: `12 lines (3 urgent) written to "
                "po.csv`.",
            )
        },
    ),
    example=lambda rng: _plan(_files(rng, 4, low=1.0)),
    fail_to_pass=lambda rng: [
        _plan(_files(rng, 5, low=1.0)),
        _plan(_files(rng, 5, legacy=True)),
        _cli(_files(rng, 6)),
        _cli(_files(rng, 5), "--out", "po.csv"),
        _plan(_at_the_limit(rng)),
    ],
    known_bad={
        "everything-urgent": (
            Replace(
                PLAN,
                '                "packs": quantity // terms["pack_size"],\n',
                '                "packs": quantity // terms["pack_size"],\n'
                '                "urgent": True,  # below the reorder point\n',
            ),
            Replace(EXPORT, '"Packs"]', '"Packs", "Urgent"]'),
            Replace(
                EXPORT,
                '                line["packs"],\n',
                '                line["packs"],\n'
                '                "YES" if line["urgent"] else "",\n',
            ),
        ),
    },
    readings={
        "below-safety-stock": (
            Replace(
                PLAN,
                'item["daily_usage"], terms["lead_time_days"]\n',
                'item["daily_usage"], safety_days\n',
            ),
        ),
    },
)


def _for_supplier(rng: random.Random, typed: str, *extra: str) -> Probe:
    """The command line for one supplier of the files, the name typed as ``typed`` says."""
    files = _files(rng, rng.randint(4, 6), low=1.0)
    vendor = files[1].splitlines()[rng.randint(1, 2)].split(",")[1]
    shown = {"exact": vendor, "lower": vendor.lower(), "upper": f" {vendor.upper()}"}[typed]
    return _cli(files, "--supplier", shown, *extra)


SUPPLIER_FILTER = Change(
    id="supplier-filter",
    kind="feature",
    undo=(
        Replace(
            CLI,
            '    plan.add_argument("--supplier", help="only this supplier\'s lines (any '
            'capitalisation)")\n',
            "",
        ),
        Replace(
            CLI,
            "    if args.supplier:\n"
            "        wanted = args.supplier.strip().casefold()\n"
            '        lines = [line for line in lines if line["supplier"].casefold() == wanted]\n',
            "",
        ),
        Replace(
            "README.md",
            "    python -m reorder.cli plan data/stock.csv data/supp*.csv "
            '--supplier "prairie mills"\n',
            "",
        ),
    ),
    report=Report(
        title="One purchase list per supplier",
        complaint="Each buyer looks after their own suppliers and has to delete everybody "
        "else's lines from the CSV every Monday before placing the orders.",
        expected="The planner can produce the lines of one supplier only.",
        request="`reorder plan` gets a `--supplier NAME` option that keeps only the lines of "
        "that supplier, whatever the capitalisation and surrounding spaces of NAME; with "
        "`--out` the summary counts only those lines.",
        translations={
            "de": Report(
                title="Eine Bestellliste pro Lieferant",
                complaint="Jeder Einkäufer betreut seine eigenen Lieferanten und muss jeden "
                "Montag erst alle fremden Zeilen aus der CSV löschen, bevor er bestellen kann.",
                expected="Der Planer kann die Zeilen eines einzelnen Lieferanten ausgeben.",
                request="`reorder plan` bekommt eine Option `--supplier NAME`, die nur die "
                "Zeilen dieses Lieferanten behält, egal wie NAME geschrieben ist (Groß- und "
                "Kleinschreibung, Leerzeichen am Rand); mit `--out` zählt die Zusammenfassung "
                "nur diese Zeilen.",
            )
        },
    ),
    example=lambda rng: _for_supplier(rng, "exact"),
    fail_to_pass=lambda rng: [
        _for_supplier(rng, "exact"),
        _for_supplier(rng, "lower"),
        _for_supplier(rng, "upper", "--out", "po.csv"),
    ],
    known_bad={
        "exact-name-only": (
            Replace(
                CLI,
                "    text = purchasing_csv(lines)\n",
                "    if args.supplier:\n"
                '        lines = [line for line in lines if line["supplier"] == args.supplier]\n'
                "    text = purchasing_csv(lines)\n",
            ),
            Replace(
                CLI,
                '    plan.add_argument("--out", ',
                '    plan.add_argument("--supplier")\n    plan.add_argument("--out", ',
            ),
        ),
    },
)


TEMPLATE = ProjectTemplate(
    id="reorder-planner",
    title="the inventory reorder planner",
    project="reorder_planner",
    cli="reorder.cli:main",
    locale="en-US",
    changes=(PACK_ROUNDING, LEGACY_LEAD_TIME, KILOGRAMS, URGENT, SUPPLIER_FILTER),
    pass_to_pass=_pass_to_pass,
    titles={"de": "der Nachbestellplaner"},
    tags=("inventory", "purchasing", "units"),
)
