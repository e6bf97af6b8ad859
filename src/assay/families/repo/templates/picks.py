"""The warehouse pick-list generator: the day's orders to pick lists in walking order."""

from __future__ import annotations

import random
from dataclasses import dataclass

from assay.families.repo.templates._edits import put_back
from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

LOCATIONS = "picking/locations.py"
STOCK = "picking/stock.py"
PICKLIST = "picking/picklist.py"
CLI = "picking/cli.py"
README = "README.md"
SKUS = {
    "HX-2201": "Hex bolts M8, box of 50",
    "BR-0107": "Bracket 90 deg galvanised",
    "TP-5530": "PTFE tape 12 mm",
    "CB-7712": "Cable ties 300 mm black",
    "WS-0040": "Washers M10, box of 100",
    "GL-3318": "Nitrile gloves L",
    "NT-6605": "Nylon lock nuts M6",
    "PL-1290": "Wall plugs 8 mm",
    "SC-4417": "Wood screws 4x40",
    "DR-0912": "HSS drill bit 6 mm",
}
Line = dict[str, object]


@dataclass
class Floor:
    """A day on the warehouse floor: stock by location and the order lines."""

    stock: list[Line]
    lines: list[Line]


def _label(aisle: int, bin_: int, legacy: bool = False) -> str:
    return f"{aisle}-{bin_:02d}" if legacy else f"A{aisle:02d}-{bin_:02d}"


def _labels(rng: random.Random, count: int, crowded: bool = True) -> list[str]:
    """Distinct locations; ``crowded``: at least two bins in one odd and one even aisle."""
    spots: set[tuple[int, int]] = set()
    if crowded:
        odd, even = rng.choice((1, 3, 5, 7)), rng.choice((2, 4, 6, 8))
        spots |= {(odd, b) for b in rng.sample(range(1, 31), 2)}
        spots |= {(even, b) for b in rng.sample(range(1, 31), 2)}
        while len(spots) < count:
            spots.add((rng.randint(1, 8), rng.randint(1, 30)))
    else:
        spots = {(aisle, rng.randint(1, 30)) for aisle in rng.sample(range(1, 9), count)}
    labels = [_label(aisle, bin_) for aisle, bin_ in spots]
    rng.shuffle(labels)
    return labels


def _floor(
    rng: random.Random, skus: int = 4, orders: int = 3, split: bool = False, short: bool = False
) -> Floor:
    chosen = rng.sample(sorted(SKUS), skus + (1 if short else 0))
    places = iter(_labels(rng, 2 * len(chosen)))
    stock: list[Line] = []
    for sku in chosen:
        for _ in range(2 if split or rng.random() < 0.3 else 1):
            location = next(places)
            stock.append(
                {
                    "sku": sku,
                    "location": location,
                    "qty": rng.randint(2, 12),
                    "description": SKUS[sku],
                }
            )
    rng.shuffle(stock)
    numbers = sorted(rng.sample(range(20_400, 20_999), orders))
    lines: list[Line] = []
    for number in numbers:
        for sku in rng.sample(chosen[:skus], rng.randint(1, min(3, skus))):
            lines.append({"order": f"SO-{number}", "sku": sku, "qty": rng.randint(1, 6)})
    if short:
        sku = chosen[-1]
        there = sum(int(str(entry["qty"])) for entry in stock if entry["sku"] == sku)
        lines.append(
            {"order": f"SO-{numbers[-1] + 1}", "sku": sku, "qty": there + rng.randint(1, 9)}
        )
    return Floor(stock, lines)


def _csv_stock(floor: Floor) -> str:
    rows = ["sku,location,qty,description"]
    for entry in floor.stock:
        label = str(entry["location"])
        aisle, bin_ = int(label[1:3]), int(label[4:])
        shown = _label(aisle, bin_, legacy=aisle <= 2)
        rows.append(f'{entry["sku"]},{shown},{entry["qty"]},"{entry["description"]}"')
    return "\n".join(rows) + "\n"


def _csv_orders(floor: Floor) -> str:
    rows = ["order_no,sku,qty"]
    rows += [f"{line['order']},{line['sku']},{line['qty']}" for line in floor.lines]
    return "\n".join(rows) + "\n"


def _pick(floor: Floor, *extra: str) -> Probe:
    return Probe(
        cli="picking.cli:main",
        argv=("pick", "orders.csv", "--stock", "stock.csv", *extra),
        files={"orders.csv": _csv_orders(floor), "stock.csv": _csv_stock(floor)},
    )


def _call(function: str, *args: object) -> Probe:
    module = {"walk_order": "locations", "parse_location": "locations", "allocate": "stock"}
    module |= {"quantity": "stock", "read_stock": "stock"}
    module |= {"batch": "picklist", "render": "picklist", "route": "picklist"}
    return Probe(call=f"picking.{module[function]}:{function}", args=args)


def _allocate(floor: Floor) -> Probe:
    return _call("allocate", floor.lines, floor.stock)


def _picks(rng: random.Random, count: int, orders: int = 3) -> list[Line]:
    """Picks as allocate gives them: several orders, some at the same location and SKU, and
    one SKU picked at two locations."""
    places = _labels(rng, count)
    skus = rng.sample(sorted(SKUS), count)
    numbers = [f"SO-{n}" for n in sorted(rng.sample(range(20_400, 20_999), orders))]
    picks: list[Line] = []
    for order in numbers:
        for index in rng.sample(range(count), rng.randint(1, count)):
            picks.append(
                {
                    "order": order,
                    "sku": skus[index],
                    "location": places[index],
                    "qty": rng.randint(1, 9),
                }
            )
    picks.append({"order": numbers[0], "sku": skus[0], "location": places[1], "qty": 2})
    picks.append({"order": numbers[-1], "sku": skus[0], "location": places[0], "qty": 1})
    return picks


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _call("walk_order", _labels(rng, 5, crowded=False)),
        _call("parse_location", _label(rng.randint(1, 12), rng.randint(1, 40))),
        _call("parse_location", f"A{rng.randint(1, 9)}/{rng.randint(1, 9)}"),
        _allocate(_floor(rng, 3, 2)),
        _pick(_floor(rng, 4, 3)),
        Probe(
            cli="picking.cli:main",
            argv=("pick", "orders.csv"),
            files={"orders.csv": _csv_orders(_floor(rng, 2, 1))},
        ),
    ]


SERPENTINE = Change(
    id="serpentine-route",
    kind="bug",
    undo=(
        Replace(
            LOCATIONS,
            "    return aisle, bin_ if aisle % 2 else -bin_\n",
            "    return aisle, -bin_ if aisle % 2 else bin_\n",
        ),
        Replace(
            "tests/test_locations.py",
            "    def test_walk(self):\n"
            '        labels = ["A02-01", "A01-09", "A02-08", "A01-02", "A03-05"]\n'
            "        self.assertEqual(walk_order(labels), "
            '["A01-02", "A01-09", "A02-08", "A02-01", "A03-05"])\n\n',
            "",
        ),
    ),
    report=Report(
        title="Pick route starts at the wrong end of every aisle",
        complaint="The pickers say the new lists send them to the far end of aisle 1 first, "
        "then back to the front, and in aisle 2 the other way round. They walk every aisle "
        "twice and the morning wave is late.",
        expected="The route goes up the odd aisles with the bin numbers rising and back down "
        "the even aisles, as the comment and the README say.",
        request="walk_key / walk_order must order bins ascending in odd aisles and descending "
        "in even aisles (aisles ascending); allocate takes stock in that order, and the "
        "printed list follows it.",
    ),
    example=lambda rng: _call("walk_order", _labels(rng, 6)),
    fail_to_pass=lambda rng: [
        _call("walk_order", _labels(rng, 7)),
        _call("walk_order", _labels(rng, 9)),
        _allocate(_floor(rng, 3, 3, split=True)),
        _pick(_floor(rng, 4, 3, split=True)),
    ],
    pass_to_pass=lambda rng: [
        _call("walk_order", _labels(rng, 4, crowded=False)),
        _call("walk_order", _labels(rng, 6, crowded=False)),
    ],
    known_bad={
        "plain-ascending": (
            Replace(
                LOCATIONS,
                "    return aisle, -bin_ if aisle % 2 else bin_\n",
                "    return aisle, bin_\n",
            ),
        ),
    },
)

_CHECK = (
    '        available = sum(slot[1] for slot in slots.get(line["sku"], []))\n'
    "        if available < wanted:\n"
    "            # not enough for the whole line: it ships complete later\n"
    '            backorders.append({"order": line["order"], "sku": line["sku"], "qty": wanted})\n'
    "            continue\n"
)

PARTIAL = Change(
    id="partial-stock",
    kind="bug",
    undo=(
        Replace(STOCK, '        wanted = line["qty"]\n', '        wanted = line["qty"]\n' + _CHECK),
        Replace(
            STOCK,
            "    not in stock is backordered, the rest of a line picked.\n",
            "    not in stock is backordered.\n",
        ),
        Replace(
            "tests/test_picking.py",
            "    def test_partial(self):\n"
            '        result = allocate([{"order": "SO-1", "sku": "HX", "qty": 11}], STOCK)\n'
            '        self.assertEqual(sum(pick["qty"] for pick in result["picks"]), 9)\n'
            '        self.assertEqual(result["backorders"], [{"order": "SO-1", "sku": "HX", '
            '"qty": 2}])\n\n',
            "",
        ),
    ),
    report=Report(
        title="Whole order line backordered although most of it is on the shelf",
        complaint="A customer ordered 10 boxes of bolts, we had 8 on the shelf, and the pick "
        "list said nothing: the whole line went to backorder and the customer got nothing for "
        "two weeks. Customer service is not amused.",
        expected="What is on the shelves is picked; only the missing rest of the line is "
        "backordered, as the README says.",
        request="allocate must pick what stock there is for a line (from its locations in "
        "walking order) and backorder only the remaining quantity; a line with no stock at all "
        "is backordered whole, as before.",
    ),
    example=lambda rng: _allocate(_floor(rng, 1, 1, short=True)),
    fail_to_pass=lambda rng: [
        _allocate(_floor(rng, 3, 3, short=True)),
        _allocate(_floor(rng, 2, 2, split=True, short=True)),
        _pick(_floor(rng, 4, 4, short=True)),
    ],
    pass_to_pass=lambda rng: [
        _allocate(_floor(rng, 3, 2)),
        _call(
            "allocate",
            [{"order": "SO-20999", "sku": "GL-3318", "qty": rng.randint(1, 9)}],
            _floor(rng, 2, 1).stock,
        ),
    ],
    known_bad={
        "backorders-only-untouched-lines": (
            Replace(STOCK, _CHECK, ""),
            Replace(STOCK, "        if wanted > 0:\n", '        if wanted == line["qty"]:\n'),
        ),
    },
)

_BATCH = (
    Replace(
        PICKLIST,
        '\n\ndef batch(picks):\n    """Picks of several orders in one walk: picks of one SKU at '
        'one location merged, their\n    quantities added and their orders listed."""\n'
        "    merged = {}\n"
        "    for pick in picks:\n"
        '        key = (pick["location"], pick["sku"])\n'
        "        if key in merged:\n"
        '            merged[key]["qty"] += pick["qty"]\n'
        '            merged[key]["order"] += "," + pick["order"]\n'
        "        else:\n"
        "            merged[key] = dict(pick)\n"
        "    return list(merged.values())\n",
        "",
    ),
    Replace(
        PICKLIST,
        '    picked = {order for pick in picks for order in pick["order"].split(",")}\n',
        '    picked = {pick["order"] for pick in picks}\n',
    ),
    Replace(
        CLI, "from picking.picklist import batch, render\n", "from picking.picklist import render\n"
    ),
    Replace(
        CLI,
        '    pick.add_argument("--batch", action="store_true", '
        'help="pick all orders in one walk")\n',
        "",
    ),
    Replace(
        CLI,
        '    picks = batch(result["picks"]) if args.batch else result["picks"]\n',
        '    picks = result["picks"]\n',
    ),
    Replace(CLI, "STOCK [--batch] [--out FILE]``", "STOCK [--out FILE]``"),
    Replace(
        README,
        "    python -m picking.cli pick data/orders.csv --stock data/stock.csv --batch --out "
        "picklist.txt\n",
        "    python -m picking.cli pick data/orders.csv --stock data/stock.csv --out "
        "picklist.txt\n",
    ),
    Replace(
        README,
        "\n`--batch` picks several orders in one walk: lines for the same SKU at the same location "
        "are\nmerged into one pick, its quantity the sum, its orders listed.\n",
        "",
    ),
    Replace(
        "tests/test_picking.py",
        "    def test_batch(self):\n"
        "        picks = [\n"
        '            {"order": "SO-1", "sku": "HX", "location": "A01-02", "qty": 1},\n'
        '            {"order": "SO-2", "sku": "HX", "location": "A01-02", "qty": 2},\n'
        "        ]\n"
        "        self.assertEqual(\n"
        '            batch(picks), [{"order": "SO-1,SO-2", "sku": "HX", "location": "A01-02", '
        '"qty": 3}]\n'
        "        )\n\n",
        "",
    ),
    Replace(
        "tests/test_picking.py",
        "from picking.picklist import batch, render\n",
        "from picking.picklist import render\n",
    ),
)


BATCH = Change(
    id="batch-picking",
    kind="feature",
    undo=_BATCH,
    report=Report(
        title="Batch picking: several orders in one walk",
        complaint="In the afternoon we get lots of small orders for the same few items. The "
        "pickers walk the same aisle for every order, and the list has the same bin five times "
        "in a row. Could we get a --batch option that puts each item and bin on one line, with "
        "the total to take and the order numbers separated by commas?",
        expected="With `--batch`, picks of the same item at the same bin become one line: the "
        "quantities added up, the order numbers joined with commas in list order. The header "
        "still counts each order once.",
        request="Add `batch(picks)` to picking/picklist.py and a `--batch` flag to "
        "`picking pick`: picks of the same SKU at the same location are merged into one "
        "(quantities added, orders joined with commas in the order they come, first pick's "
        "position kept). The header's order count still counts each order once.",
    ),
    example=lambda rng: _pick(_floor(rng, 2, 3), "--batch"),
    fail_to_pass=lambda rng: [
        _pick(_floor(rng, 3, 4), "--batch"),
        _pick(_floor(rng, 3, 5, split=True), "--batch"),
        _call("batch", _picks(rng, 3)),
        _call("batch", _picks(rng, 4, 2)),
    ],
    pass_to_pass=lambda rng: [_pick(_floor(rng, 3, 4)), _pick(_floor(rng, 2, 3, short=True))],
    known_bad={
        "merges-by-sku-only": (
            *put_back(_BATCH),
            Replace(
                PICKLIST,
                '        key = (pick["location"], pick["sku"])\n',
                '        key = pick["sku"]\n',
            ),
        ),
        "counts-merged-orders-once": (
            *put_back(_BATCH),
            Replace(
                PICKLIST,
                '    picked = {order for pick in picks for order in pick["order"].split(",")}\n',
                '    picked = {pick["order"] for pick in picks}\n',
            ),
        ),
    },
)

TOTAL = Change(
    id="total-line",
    kind="feature",
    undo=(
        Replace(
            PICKLIST,
            '    total = sum(pick["qty"] for pick in picks)\n'
            '    lines += [rule(WIDTHS), row(("TOTAL", "", total), WIDTHS, right=(2,))]\n',
            "",
        ),
        Replace(
            PICKLIST,
            "in walking order and their total\n    quantity, then backorders.",
            "in walking order, then backorders.",
        ),
        Replace(
            "tests/test_picking.py",
            "\n    def test_total(self):\n"
            "        picks = [\n"
            '            {"order": "SO-1", "sku": "HX", "location": "A01-02", "qty": 3},\n'
            '            {"order": "SO-2", "sku": "BR", "location": "A02-07", "qty": 4},\n'
            "        ]\n"
            '        self.assertIn("\\nTOTAL" + " " * 20 + "7\\n", render(picks, [], {}))\n',
            "",
        ),
    ),
    report=Report(
        title="Total at the bottom of the pick list",
        complaint="The old paper lists had a total at the bottom, and the pickers used it to "
        "check their trolley before going to packing. The printed lists from the new system "
        "don't have it.",
        expected="The printed pick list ends its picks with a dashed line and a TOTAL line, the "
        "total in the Qty column, like the old lists did.",
        request="In render (and so in `picking pick`), after the last pick add a dashed rule "
        "like the one under the header and a line `TOTAL` with the total in the Qty column, "
        "aligned like the picks; backorders stay below it.",
    ),
    example=lambda rng: _pick(_floor(rng, 3, 2)),
    fail_to_pass=lambda rng: [
        _pick(_floor(rng, 4, 3, short=True)),
        _pick(_floor(rng, 3, 4), "--batch"),
        _call("render", _picks(rng, 3), [{"order": "SO-21000", "sku": "NT-6605", "qty": 4}], {}),
    ],
    readings={
        "lines": (
            Replace(
                PICKLIST,
                '    total = sum(pick["qty"] for pick in picks)\n',
                "    total = len(picks)\n",
            ),
            Replace("tests/test_picking.py", '" " * 20 + "7\\n"', '" " * 20 + "2\\n"'),
        ),
    },
    known_bad={
        "counts-backorders-too": (
            Replace(
                PICKLIST,
                "    if backorders:\n",
                '    total = sum(line["qty"] for line in [*picks, *backorders])\n'
                '    lines += [rule(WIDTHS), row(("TOTAL", "", total), WIDTHS, right=(2,))]\n'
                "    if backorders:\n",
            ),
        ),
    },
)


def _thousands(count: int) -> str:
    return f"{count:,}"


def _bulk(rng: random.Random, orders: int = 2) -> Floor:
    """A floor where pallets hold a thousand or more of an item."""
    floor = _floor(rng, 3, orders)
    for entry in rng.sample(floor.stock, 2):
        entry["qty"] = rng.randint(1_000, 250_000)
    return floor


def _bulk_stock(floor: Floor) -> str:
    rows = _csv_stock(floor).splitlines()
    for index, entry in enumerate(floor.stock, 1):
        head, _, rest = rows[index].partition(f",{entry['qty']},")
        rows[index] = f'{head},"{_thousands(int(str(entry["qty"])))}",{rest}'
    return "\n".join(rows) + "\n"


def _bulk_pick(floor: Floor) -> Probe:
    probe = _pick(floor)
    return Probe(
        cli=probe.cli, argv=probe.argv, files={**probe.files, "stock.csv": _bulk_stock(floor)}
    )


THOUSANDS = Change(
    id="thousands-in-quantities",
    kind="bug",
    undo=(
        Replace(
            STOCK,
            '    """A whole quantity; spreadsheets write thousands with commas (``1,200``)."""\n'
            '    return int(text.strip().replace(",", ""))\n',
            '    """A whole quantity."""\n    return int(text.strip())\n',
        ),
        Replace(
            "tests/test_picking.py",
            '\n    def test_thousands(self):\n        self.assertEqual(quantity("1,200"), 1200)\n',
            "",
        ),
        Replace("data/stock.csv", 'HX-2201,A04-02,"1,200",', "HX-2201,A04-02,1200,"),
    ),
    report=Report(
        title="Stock file from the new WMS export is rejected",
        complaint="Since stock comes out of the new warehouse system, the morning run stops "
        "with 'invalid literal for int()'. The file opens fine in Excel; the bolts pallet "
        "shows 1,200 boxes.",
        expected="Quantities with a comma as thousands separator (1,200) are read as whole "
        "numbers; a quantity that is not a whole number is still refused.",
        request="quantity() in picking/stock.py, and so read_stock / read_orders, must accept "
        "commas as thousands separators (`1,200` is 1200, `12,500` is 12500) and keep raising "
        "ValueError for anything else that is not a whole number (`1.5`, `12 boxes`).",
    ),
    example=lambda rng: _call("quantity", _thousands(rng.randint(1_000, 99_999))),
    fail_to_pass=lambda rng: [
        _call("quantity", _thousands(rng.randint(100_000, 9_999_999))),
        _call("quantity", f" {_thousands(rng.randint(1_000, 9_999))}"),
        _call("read_stock", _bulk_stock(_bulk(rng))),
        _bulk_pick(_bulk(rng, 3)),
    ],
    pass_to_pass=lambda rng: [
        _call("quantity", str(rng.randint(0, 999))),
        _call("quantity", f"{rng.randint(1, 99)}.{rng.randint(1, 9)}"),
        _call("quantity", f"{rng.randint(2, 40)} boxes"),
        _call("read_stock", _csv_stock(_floor(rng, 3, 1))),
    ],
    known_bad={
        "reads-a-decimal-comma": (
            Replace(
                STOCK,
                "    return int(text.strip())\n",
                '    return int(float(text.strip().replace(",", ".")))\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="pick-lists",
    title="the warehouse pick-list generator",
    project="pick_lists",
    cli="picking.cli:main",
    locale="en-GB",
    changes=(SERPENTINE, PARTIAL, BATCH, TOTAL, THOUSANDS),
    pass_to_pass=_pass_to_pass,
    tags=("logistics", "warehouse", "text-output"),
)
