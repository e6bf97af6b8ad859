"""The billing proration module: mid-cycle plan changes, rounding modes, an invoice preview."""

from __future__ import annotations

import calendar
import datetime
import json
import random
from decimal import Decimal

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

CYCLES = "billing/cycles.py"
MONEY = "billing/money.py"
PRORATION = "billing/proration.py"
CLI = "billing/cli.py"
CYCLE_TESTS = "tests/test_cycles.py"
PRORATION_TESTS = "tests/test_proration.py"
PLAN_NAMES = ("Starter", "Team", "Growth", "Business", "Scale", "Enterprise")
LEAP_YEARS = (2020, 2024, 2028)
COMMON_YEARS = (2021, 2022, 2023, 2025, 2026, 2027)
Day = datetime.date


def _day(rng: random.Random, year: int | None = None) -> Day:
    return Day(year or rng.randint(2021, 2027), rng.randint(1, 12), rng.randint(1, 28))


def _price(rng: random.Random) -> int:
    return rng.choice(
        (rng.randint(5, 99) * 100, rng.randint(5, 99) * 100 - 1, rng.randint(500, 99_999))
    )


def _cycle(anchor: Day, on: Day) -> Probe:
    return Probe(call="billing.cycles:cycle_for", args=(anchor.isoformat(), on.isoformat()))


def _prorate(old: int, new: int, anchor: Day, on: Day, *rounding: str) -> Probe:
    return Probe(
        call="billing.proration:prorate",
        args=(old, new, anchor.isoformat(), on.isoformat(), *rounding),
    )


def _dollars(cents: int, rng: random.Random) -> str:
    dollars, rest = divmod(cents, 100)
    return rng.choice((f"{dollars}.{rest:02d}", f"${dollars:,}.{rest:02d}"))


def _preview(rng: random.Random, old: int, new: int, anchor: Day, on: Day, *extra: str) -> Probe:
    keys = sorted(rng.sample(PLAN_NAMES, 2), key=PLAN_NAMES.index)  # the dearer, the higher
    if old > new:
        keys.reverse()
    plans = {
        name.lower(): {"name": name, "price": _dollars(price, rng)}
        for name, price in zip(keys, (old, new), strict=True)
    }
    argv: tuple[str, ...] = (
        "preview",
        "--plans",
        "plans.json",
        "--from",
        keys[0].lower(),
        "--to",
        keys[1].lower(),
    )
    argv += ("--anchor", anchor.isoformat(), "--on", on.isoformat(), *extra)
    return Probe(cli="billing.cli:main", argv=argv, files={"plans.json": json.dumps(plans)})


def _mid_month(rng: random.Random) -> tuple[Day, Day]:
    """An anchor on the 1st to 28th and a day some weeks or months later."""
    anchor = _day(rng)
    return anchor, anchor + datetime.timedelta(days=rng.randint(1, 400))


def _upgrade(rng: random.Random) -> tuple[int, int]:
    old = _price(rng)
    return old, old + rng.randint(100, 20_000)


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        Probe(call="billing.money:format_usd", args=(rng.randint(-999_999, 999_999),)),
        Probe(call="billing.money:parse_usd", args=(_dollars(_price(rng), rng),)),
        Probe(
            call="billing.money:to_cents", args=(f"{rng.randint(0, 9_999)}.{rng.randint(0, 99)}",)
        ),
        _cycle(*_mid_month(rng)),
        _prorate(*_upgrade(rng), *_mid_month(rng)),
        _preview(rng, *_upgrade(rng), *_mid_month(rng)),
    ]


def _clamped(rng: random.Random) -> tuple[Day, Day]:
    """An anchor on the 29th to 31st and a day in a cycle that starts or ends on a clamped
    day: the month after a shorter month, before the anchor day."""
    anchor_day = rng.choice((29, 30, 31))
    while True:
        year, month = rng.randint(2021, 2027), rng.randint(1, 12)
        if calendar.monthrange(year, month)[1] < anchor_day:
            break
    following = Day(year + month // 12, month % 12 + 1, 1)
    on = following.replace(day=rng.randint(1, anchor_day - 1))
    anchor_month = rng.choice((1, 3, 5, 7, 8, 10, 12))
    return Day(rng.randint(2015, year - 1), anchor_month, anchor_day), on


def _clamp_probe(rng: random.Random) -> Probe:
    return _cycle(*_clamped(rng))


MONTH_END = Change(
    id="month-end-anchor",
    kind="bug",
    undo=(
        Replace(
            CYCLES,
            '    """The anchor ``day`` in that month: the 29th to 31st fall on a shorter month\'s '
            'last day."""\n'
            "    return datetime.date(year, month, min(day, month_length(year, month)))\n",
            '    """The anchor ``day`` in that month."""\n'
            "    # every month has the anchor day: signups after the 28th are moved to the 1st\n"
            "    return datetime.date(year, month, day)\n",
        ),
        Replace(
            CYCLE_TESTS,
            "    def test_end_of_month_anchor(self):\n"
            "        self.assertEqual(\n"
            '            cycle_for("2023-10-31", "2024-02-10"),\n'
            '            {"start": "2024-01-31", "end": "2024-02-29", "days": 29},\n'
            "        )\n\n"
            "    def test_leap_february(self):\n"
            '        self.assertEqual(cycle_for("2024-01-30", "2024-03-01")["start"], '
            '"2024-02-29")\n',
            "",
        ),
    ),
    report=Report(
        title="Invoice preview crashes for customers who signed up on the 31st",
        complaint="Support can't preview plan changes for some customers: the tool dies with "
        "'day is out of range for month'. It seems to be the ones who signed up at the end of a "
        "month.",
        expected="Subscriptions anchored on the 29th, 30th or 31st renew on the last day of "
        "shorter months and go back to their day in longer ones, as the README describes.",
        request="cycle_for (and prorate and the preview) must clamp an anchor day past a month's "
        "end to its last day, month by month from the anchor: an anchor on Jan 31 gives cycles "
        "starting Feb 29 (2024), Mar 31 and Apr 30, never Mar 29.",
    ),
    example=_clamp_probe,
    fail_to_pass=lambda rng: [
        _clamp_probe(rng),
        _clamp_probe(rng),
        _prorate(*_upgrade(rng), *_clamped(rng)),
        _preview(rng, *_upgrade(rng), *_clamped(rng)),
    ],
    pass_to_pass=lambda rng: [
        _cycle(
            Day(rng.randint(2015, 2020), 1, 31), Day(rng.randint(2021, 2027), 8, rng.randint(1, 30))
        ),
        _cycle(Day(rng.randint(2015, 2020), 3, 30), Day(rng.randint(2021, 2027), 7, 30)),
    ],
    known_bad={
        "anchor-drifts": (
            Replace(
                CYCLES,
                "    return datetime.date(year, month, day)\n",
                "    return datetime.date(year, month, min(day, month_length(year, month)))\n",
            ),
            Replace(
                CYCLES,
                "    end = anchored(*_shift(start.year, start.month, 1), anchor_day)\n",
                "    end = anchored(*_shift(start.year, start.month, 1), start.day)\n",
            ),
        ),
    },
)


def _leap(rng: random.Random) -> tuple[Day, Day]:
    """An anchor on the 29th to 31st and a day whose cycle touches a leap February's end."""
    year = rng.choice(LEAP_YEARS)
    anchor_day = rng.choice((29, 30, 31))
    anchor = Day(year - rng.randint(1, 4), rng.choice((1, 3, 5, 7, 8, 10, 12)), anchor_day)
    on = rng.choice((Day(year, 2, rng.randint(1, 29)), Day(year, 3, rng.randint(1, 28))))
    return anchor, on


def _common_february(rng: random.Random) -> tuple[Day, Day]:
    year = rng.choice(COMMON_YEARS)
    anchor = Day(year - rng.randint(1, 4), 1, rng.choice((29, 30, 31)))
    return anchor, Day(year, rng.choice((2, 3)), rng.randint(1, 28))


LEAP = Change(
    id="leap-february",
    kind="bug",
    undo=(
        Replace(
            CYCLES,
            "    return calendar.monthrange(year, month)[1]\n",
            "    return DAYS_IN_MONTH[month - 1]  # the same table calendar uses, without the "
            "import\n",
        ),
        Replace(
            CYCLES,
            "import calendar\nimport datetime\n",
            "import datetime\n\nfrom billing._legacy import DAYS_IN_MONTH\n",
        ),
        Replace(
            CYCLE_TESTS,
            "    def test_end_of_month_anchor(self):\n"
            "        self.assertEqual(\n"
            '            cycle_for("2023-10-31", "2024-02-10"),\n'
            '            {"start": "2024-01-31", "end": "2024-02-29", "days": 29},\n'
            "        )\n\n"
            "    def test_leap_february(self):\n"
            '        self.assertEqual(cycle_for("2024-01-30", "2024-03-01")["start"], '
            '"2024-02-29")\n',
            "    def test_end_of_month_anchor(self):\n"
            "        self.assertEqual(\n"
            '            cycle_for("2022-10-31", "2023-02-10"),\n'
            '            {"start": "2023-01-31", "end": "2023-02-28", "days": 28},\n'
            "        )\n",
        ),
    ),
    report=Report(
        title="February 2024 cycles are a day short",
        complaint="A customer on the annual-to-monthly migration complained that her February "
        "cycle ended on the 28th and the March invoice charged her for the 29th again. Our "
        "records say her subscription started on the 31st.",
        expected="In leap years, cycles anchored on the 29th to 31st run to February 29.",
        request="month_length must know leap years (February 2024 has 29 days), so that "
        "cycle_for, prorate and the preview use February 29 as the clamped anchor day.",
    ),
    example=lambda rng: _cycle(*_leap(rng)),
    fail_to_pass=lambda rng: [
        _cycle(*_leap(rng)),
        _cycle(*_leap(rng)),
        Probe(call="billing.cycles:month_length", args=(rng.choice(LEAP_YEARS), 2)),
        _prorate(*_upgrade(rng), *_leap(rng)),
        _preview(rng, *_upgrade(rng), *_leap(rng)),
    ],
    pass_to_pass=lambda rng: [
        _cycle(*_common_february(rng)),
        _cycle(*_common_february(rng)),
        Probe(call="billing.cycles:month_length", args=(rng.choice(COMMON_YEARS), 2)),
        Probe(call="billing.cycles:month_length", args=(rng.randint(2020, 2030), 4)),
    ],
    known_bad={
        "february-always-29": (
            Replace(
                CYCLES,
                "    return DAYS_IN_MONTH[month - 1]",
                "    return 29 if month == 2 else DAYS_IN_MONTH[month - 1]",
            ),
        ),
    },
)


def _half_cent(rng: random.Random) -> tuple[int, int, Day, Day]:
    """A price, a 30-day cycle and a day in it where the old plan's credit is exactly half a
    cent above an even number: banker's and half-up rounding differ."""
    while True:
        anchor = Day(rng.randint(2021, 2027), rng.choice((4, 6, 9, 11)), rng.randint(1, 28))
        remaining = rng.randint(1, 29)
        old = rng.randint(100, 30_000)
        exact = Decimal(old * remaining) / 30
        if exact % 2 == Decimal("0.5"):
            return (
                old,
                old + rng.randint(1, 9_999),
                anchor,
                anchor + datetime.timedelta(30 - remaining),
            )


def _half_up(rng: random.Random) -> Probe:
    return _prorate(*_half_cent(rng), "half-up")


ROUNDING = Change(
    id="half-up-ignored",
    kind="bug",
    undo=(
        Replace(
            PRORATION,
            '    """``days`` out of ``cycle_days`` of a monthly price, in cents."""\n'
            "    return to_cents(Decimal(price_cents) * days / cycle_days, rounding)\n",
            '    """``days`` out of ``cycle_days`` of a monthly price, in cents."""\n'
            "    # rounding is applied to the invoice total, by the invoicing service\n"
            "    return to_cents(Decimal(price_cents) * days / cycle_days)\n",
        ),
        Replace(
            PRORATION_TESTS,
            "    def test_half_up_mode(self):\n"
            '        result = prorate(1901, 4901, "2024-04-10", "2024-04-25", "half-up")\n'
            '        self.assertEqual((result["credit"], result["charge"]), (951, 2451))\n\n',
            "",
        ),
    ),
    report=Report(
        title="EU invoices a cent off with --rounding half-up",
        complaint="The EU entity's accountant says our proration credits are regularly one cent "
        "lower than hers. We do pass --rounding half-up for them.",
        expected="With half-up rounding, an exact half cent is rounded up on every prorated "
        "line; the default stays banker's rounding.",
        request="prorate (and the preview's --rounding) must round each prorated amount, credit "
        "and charge, with the requested mode: half-up rounds half a cent up, the default "
        "`bankers` to even.",
    ),
    example=_half_up,
    fail_to_pass=lambda rng: [
        _half_up(rng),
        _half_up(rng),
        _preview(rng, *_half_cent(rng), "--rounding", "half-up"),
    ],
    pass_to_pass=lambda rng: [
        _prorate(*_half_cent(rng), "bankers"),
        _prorate(*_half_cent(rng)),
        _preview(rng, *_half_cent(rng)),
    ],
    known_bad={
        "flips-the-default": (
            Replace(
                MONEY,
                'def to_cents(exact, rounding="bankers"):\n',
                'def to_cents(exact, rounding="half-up"):\n',
            ),
        ),
    },
)


def _downgrade(rng: random.Random) -> tuple[int, int, Day, Day]:
    new = _price(rng)
    anchor, on = _mid_month(rng)
    return new + rng.randint(500, 50_000), new, anchor, on


CREDIT = Change(
    id="downgrade-credit",
    kind="feature",
    undo=(
        Replace(
            PRORATION,
            '    ``{"cycle", "remaining", "credit", "charge", "due", "balance"}``: ``due`` is '
            "never negative;\n"
            "    what a downgrade leaves over is ``balance``, credited to the account.\n",
            '    ``{"cycle", "remaining", "credit", "charge", "due"}``.\n',
        ),
        Replace(
            PRORATION,
            '        "due": max(net, 0),\n        "balance": max(-net, 0),\n',
            '        "due": net,\n',
        ),
        Replace(
            CLI,
            '    if result["balance"]:\n'
            "        lines.append(f\"Account credit: {format_usd(result['balance'])}\")\n",
            "",
        ),
        Replace(
            PRORATION_TESTS,
            "    def test_downgrade_leaves_credit(self):\n"
            '        result = prorate(4900, 1900, "2024-04-10", "2024-04-25")\n'
            '        self.assertEqual((result["due"], result["balance"]), (0, 1500))\n\n',
            "",
        ),
        Replace(
            "README.md",
            "A downgrade that leaves money over shows an amount due of $0.00 and the rest as "
            "account credit.\n",
            "",
        ),
    ),
    report=Report(
        title="Negative amount due on downgrade previews",
        complaint="Customers who downgrade see 'Amount due: -$72.07' in the preview and write "
        "to support asking when we send them the money. We don't: it stays on their account.",
        expected="A downgrade should not show a negative amount due; what is left over should "
        "show up as credit on the account.",
        request="prorate must never return a negative `due`: the leftover of a downgrade goes "
        "into a new `balance` key (0 otherwise), and the preview shows it on a last line, "
        "`Account credit: ...`, only when there is some.",
    ),
    example=lambda rng: _preview(rng, *_downgrade(rng)),
    fail_to_pass=lambda rng: [
        _preview(rng, *_downgrade(rng)),
        _preview(rng, *_downgrade(rng), "--rounding", "half-up"),
        _prorate(*_downgrade(rng)),
        _prorate(*_upgrade(rng), *_mid_month(rng)),
    ],
    pass_to_pass=lambda rng: [
        _preview(rng, *_upgrade(rng), *_mid_month(rng)),
        _preview(rng, *_upgrade(rng), *_mid_month(rng), "--rounding", "half-up"),
    ],
    known_bad={
        "drops-the-leftover": (
            Replace(PRORATION, '        "due": net,\n', '        "due": max(net, 0),\n'),
        ),
    },
    readings={
        "credit-shown-negative": (
            Replace(
                CLI,
                "        lines.append(f\"Account credit: {format_usd(result['balance'])}\")\n",
                "        lines.append(f\"Account credit: {format_usd(-result['balance'])}\")\n",
            ),
        ),
    },
)


def _truncated(rng: random.Random) -> int:
    """A price in cents that ``int(dollars * 100)`` gets a cent wrong."""
    while True:
        cents = rng.randint(1, 99_999)
        dollars = float(f"{cents // 100}.{cents % 100:02d}")
        if int(dollars * 100) != cents:
            return cents


def _parse(cents: int, rng: random.Random) -> Probe:
    return Probe(call="billing.money:parse_usd", args=(_dollars(cents, rng),))


def _full_cycle(rng: random.Random, old: int, new: int) -> Probe:
    """A change on the first day of a cycle: the new plan's whole price is charged."""
    anchor = _day(rng)
    months = rng.randint(1, 14)
    on = Day(
        anchor.year + (anchor.month + months - 1) // 12,
        (anchor.month + months - 1) % 12 + 1,
        anchor.day,
    )
    return _preview(rng, old, new, anchor, on)


CENTS = Change(
    id="price-cent-lost",
    kind="bug",
    undo=(
        Replace(
            "billing/_legacy.py",
            "    return round(value * 100)\n",
            "    return int(value * 100)  # exact: prices have two decimals\n",
        ),
        Replace(
            PRORATION_TESTS,
            "\n    def test_no_cent_lost(self):\n"
            '        self.assertEqual(parse_usd("19.99"), 1999)\n',
            "",
        ),
    ),
    report=Report(
        title="Preview charges $19.98 for the $19.99 plan",
        complaint="A customer switching to the Starter plan on her renewal day was quoted "
        "$19.98 in the preview, and the plan costs $19.99. Some other prices are fine.",
        expected="Prices from the plans file are read to the exact cent.",
        request="parse_usd must read every price with two decimals exactly (`19.99` is 1999 "
        "cents, `$1,299.57` is 129957), whatever floating point makes of it; negative amounts "
        "(`-$4.50`) stay negative.",
    ),
    example=lambda rng: _parse(_truncated(rng), rng),
    fail_to_pass=lambda rng: [
        _parse(_truncated(rng), rng),
        _parse(_truncated(rng), rng),
        _full_cycle(rng, _price(rng), _truncated(rng)),
    ],
    pass_to_pass=lambda rng: [
        _parse(rng.randint(1, 9_999) * 100, rng),
        Probe(
            call="billing.money:parse_usd",
            args=(f"-${rng.randint(1, 999)}.{rng.choice(('00', '25', '50', '75'))}",),
        ),
        Probe(
            call="billing.money:parse_usd",
            args=(f"-{rng.randint(1, 999)}.{rng.choice(('25', '50', '75'))}",),
        ),
    ],
    known_bad={
        "adds-half-a-cent": (
            Replace(
                "billing/_legacy.py",
                "    return int(value * 100)  # exact: prices have two decimals\n",
                "    return int(value * 100 + 0.5)\n",
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="billing-proration",
    title="the billing proration module",
    project="billing_proration",
    cli="billing.cli:main",
    locale="en-US",
    changes=(MONTH_END, LEAP, ROUNDING, CREDIT, CENTS),
    pass_to_pass=_pass_to_pass,
    tags=("finance", "subscriptions", "rounding", "dates"),
)
