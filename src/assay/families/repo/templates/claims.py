"""The claims-triage rules engine: insurance claims routed by an INI file of rules (fr-FR)."""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

AMOUNTS = "triage/montants.py"
RULES = "triage/regles.py"
ENGINE = "triage/moteur.py"
ENGINE_TESTS = "tests/test_moteur.py"
CATEGORIES = ("auto", "habitation", "corporel", "voyage")
NARROW = "\u202f"
LEGACY = {"urgent": 1, "high": 2, "normal": 3}
Claim = dict[str, object]


@dataclass(frozen=True)
class Setup:
    """One claims department's rules: the auto band cut, the water-damage threshold, fraud."""

    auto_cut: int
    home_min: int
    fraud_min: int
    recent_days: int
    home_queue: str
    home_priority: str
    medical_queue: str
    medical_priority: str

    @classmethod
    def draw(cls, rng: random.Random) -> Setup:
        return cls(
            auto_cut=rng.choice((800, 1_000, 1_200, 1_500, 2_000, 2_500)) * 100,
            home_min=rng.choice((2_000, 3_000, 4_500, 5_000, 8_000)) * 100,
            fraud_min=rng.choice((30_000, 40_000, 50_000, 75_000)) * 100,
            recent_days=rng.choice((30, 45, 60, 90)),
            home_queue=rng.choice(("expert-habitation", "degats-eaux", "habitation-lyon")),
            home_priority=rng.choice(("high", "urgent")),
            medical_queue=rng.choice(("medical", "corporel-idf", "medecin-conseil")),
            medical_priority=rng.choice(("urgent", "high")),
        )


def _fr(cents: int, blank: str = " ", sign: str = "") -> str:
    units, fraction = divmod(abs(cents), 100)
    text = f"{units:,}".replace(",", blank) + f",{fraction:02d}"
    text = f"-{text}" if cents < 0 else text
    return f"{text} {sign}" if sign else text


def _priority(name: str, *, legacy: bool) -> str:
    return f"prio = {LEGACY[name]}" if legacy else f"priority = {name}"


def _ini(setup: Setup, *, legacy: bool = False, recent: bool = True, both: bool = False) -> str:
    """The rules file; ``legacy`` writes the pre-3.0 keys, ``both`` a half-migrated rule."""
    home_min = f"seuil = {_fr(setup.home_min)}" if legacy else f"min_amount = {_fr(setup.home_min)}"
    home_priority = _priority(setup.home_priority, legacy=legacy)
    medical = _priority(setup.medical_priority, legacy=legacy)
    if both:
        medical = f"priority = {setup.medical_priority}\nprio = 3"
    fraud = f"[fraude]\nseuil = {_fr(setup.fraud_min)}\n"
    if recent:
        fraud += f"recent_policy_days = {setup.recent_days}\n"
    return (
        f"[regle petits-auto]\ncategorie = auto\nmax_amount = {_fr(setup.auto_cut)}\n"
        "queue = fast-track\npriority = normal\n\n"
        f"[regle expert-auto]\ncategorie = auto\nmin_amount = {_fr(setup.auto_cut)}\n"
        "queue = expert-auto\npriority = high\n\n"
        f"[regle degat-des-eaux]\ncategorie = habitation\n{home_min}\n"
        f"queue = {setup.home_queue}\n{home_priority}\n\n"
        f"[regle corporel]\ncategorie = corporel\nqueue = {setup.medical_queue}\n{medical}\n\n"
        f"{fraud}"
    )


def _config(setup: Setup) -> dict[str, object]:
    """What load_rules gives for ``_ini(setup)``, for calls into the engine."""

    def rule(
        name: str, category: str, band: tuple[int, int | None], queue: str, prio: str
    ) -> Claim:
        low, high = band
        keys = ("name", "category", "min", "max", "queue", "priority")
        return dict(zip(keys, (name, category, low, high, queue, prio), strict=True))

    return {
        "rules": [
            rule("petits-auto", "auto", (0, setup.auto_cut), "fast-track", "normal"),
            rule("expert-auto", "auto", (setup.auto_cut, None), "expert-auto", "high"),
            rule(
                "degat-des-eaux",
                "habitation",
                (setup.home_min, None),
                setup.home_queue,
                setup.home_priority,
            ),
            rule("corporel", "corporel", (0, None), setup.medical_queue, setup.medical_priority),
        ],
        "fraud": {"threshold": setup.fraud_min, "recent_days": setup.recent_days},
    }


def _claim(
    rng: random.Random, category: str, amount: int, days: int | None = None, number: int = 1
) -> Claim:
    start = datetime.date(rng.randint(2012, 2022), rng.randint(1, 12), rng.randint(1, 28))
    if days is None:
        days = rng.randint(400, 3_000)
    incident = start + datetime.timedelta(days=days)
    return {
        "id": f"S-{incident:%y}-{rng.randint(1000, 9999)}{number}",
        "category": category,
        "amount": amount,
        "policy_start": start.isoformat(),
        "incident": incident.isoformat(),
    }


def _ordinary(rng: random.Random, setup: Setup, number: int = 1) -> Claim:
    """A claim well inside a band, long after the policy started, below the fraud threshold."""
    category = rng.choice(CATEGORIES)
    amount = rng.randint(1_000, setup.fraud_min - 1)
    if category == "auto":
        cut = setup.auto_cut
        amount = rng.choice((rng.randint(1_000, cut - 100), rng.randint(cut + 100, cut * 4)))
    return _claim(rng, category, amount, number=number)


def _route(claim: Claim, setup: Setup) -> Probe:
    return Probe(call="triage.moteur:route", args=(claim, _config(setup)))


def _load(text: str) -> Probe:
    return Probe(call="triage.regles:load_rules", args=(text,))


def _csv(claims: list[Claim], blank: str = " ") -> str:
    lines = ["numero;categorie;montant;debut_contrat;date_sinistre"]
    for claim in claims:
        start = datetime.date.fromisoformat(str(claim["policy_start"]))
        incident = datetime.date.fromisoformat(str(claim["incident"]))
        amount = _fr(int(str(claim["amount"])), blank)
        lines.append(
            f"{claim['id']};{claim['category']};{amount};{start:%d/%m/%Y};{incident:%d/%m/%Y}"
        )
    return "\n".join(lines) + "\n"


def _cli(rules: str, claims: list[Claim], *extra: str, blank: str = " ") -> Probe:
    return Probe(
        cli="triage.cli:main",
        argv=("route", "regles.ini", "sinistres.csv", *extra),
        files={"regles.ini": rules, "sinistres.csv": _csv(claims, blank)},
    )


def _amount(text: str) -> Probe:
    return Probe(call="triage.montants:parse_amount", args=(text,))


def _big(rng: random.Random) -> int:
    return rng.randint(1_000, 999_999) * 100 + rng.choice((0, rng.randint(1, 99)))


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    setup = Setup.draw(rng)
    ordinary = [_ordinary(rng, setup, number) for number in range(rng.randint(2, 4))]
    return [
        _amount(f"{rng.randint(1, 999)},{rng.randint(10, 99)}"),
        _amount(_fr(_big(rng), "\u00a0", "€")),
        _amount(f"{rng.randint(1_000, 99_999)}.{rng.randint(1, 99)}"),
        Probe(call="triage.montants:format_amount", args=(rng.randint(-99_999_999, 99_999_999),)),
        Probe(
            call="triage.sinistres:parse_date",
            args=(f"{rng.randint(1, 28):02d}/0{rng.randint(1, 9)}/2024",),
        ),
        _route(_ordinary(rng, setup), setup),
        _route(_claim(rng, "voyage", rng.randint(100, 99_999)), setup),
        _cli(_ini(setup), ordinary),
        _cli(
            _ini(setup), [*ordinary, _claim(rng, "corporel", setup.fraud_min + 100)], "--fraud-only"
        ),
    ]


NARROW_SPACE = Change(
    id="narrow-no-break-space",
    kind="bug",
    undo=(
        Replace(
            AMOUNTS,
            "# the brokers' spreadsheets group thousands with a blank: a space, a no-break space, "
            "or the\n# narrow no-break space LibreOffice writes in French locales\n"
            'GROUPING = (" ", "\\u00a0", "\\u202f")\n',
            "# the brokers' spreadsheets group thousands with a space or a no-break space\n"
            'GROUPING = (" ", "\\u00a0")\n',
        ),
    ),
    report=Report(
        title="Claims from the Lyon brokers are rejected: « montant invalide »",
        complaint="Since the Lyon brokers switched to LibreOffice, every claim above 999 euros "
        "in their exports is refused with 'montant invalide'. The amounts look perfectly normal "
        "when you open the file.",
        expected="An amount like 12 480,50 € is read whatever blank the spreadsheet put between "
        "the thousands.",
        request="parse_amount must also accept the narrow no-break space (U+202F) as a thousands "
        "separator, as it does spaces and no-break spaces, and keep reading the old portal's "
        "decimal dots (`3250.50`).",
    ),
    example=lambda rng: _amount(_fr(_big(rng), NARROW)),
    fail_to_pass=lambda rng: [
        _amount(_fr(_big(rng), NARROW, "€")),
        _amount(_fr(-_big(rng), NARROW)),
        _cli(
            _ini(setup := Setup.draw(rng)),
            [_claim(rng, "habitation", setup.home_min + _big(rng)), _ordinary(rng, setup, 2)],
            blank=NARROW,
        ),
    ],
    pass_to_pass=lambda rng: [
        _amount(f"{rng.randint(1_000, 999_999)}.{rng.randint(10, 99)}"),
        _amount(f"{rng.randint(1_000, 999_999)}.{rng.randint(1, 9)}"),
    ],
    known_bad={
        "normalises-to-float-format": (
            Replace(
                AMOUNTS,
                '    if "," in cleaned:\n'
                '        units, _, fraction = cleaned.partition(",")\n'
                "    else:\n"
                '        units, _, fraction = cleaned.partition(".")  # the old portal wrote '
                "decimal dots\n",
                '    cleaned = "".join(cleaned.split()).replace(".", "").replace(",", ".")\n'
                '    units, _, fraction = cleaned.partition(".")\n',
            ),
        ),
    },
)


def _legacy_text(rng: random.Random) -> str:
    return _ini(Setup.draw(rng), legacy=True)


LEGACY_PRIO = Change(
    id="legacy-prio-key",
    kind="bug",
    undo=(
        Replace(
            RULES,
            '    elif "prio" in section:  # rule files from before 3.0\n'
            '        value = LEGACY_PRIO.get(section["prio"].strip(), "")\n',
            "",
        ),
        Replace(
            ENGINE_TESTS,
            "    def test_legacy_prio(self):\n"
            '        self.assertEqual(route(claim("corporel", 100), self.config)["priority"], '
            '"urgent")\n\n',
            "",
        ),
    ),
    report=Report(
        title="Injury and water damage claims lost their priority",
        complaint="Since last week's update the bodily injury and water damage claims all "
        "arrive as 'normal' priority, so the medical team no longer sees them first. Nobody "
        "touched the rules file.",
        expected="Old rules files keep working: a rule's numeric prio still sets its priority.",
        request="load_rules must read the legacy `prio` key (1 urgent, 2 high, 3 normal) when a "
        "rule has no `priority`; when a rule has both, `priority` wins.",
    ),
    example=lambda rng: _load(_legacy_text(rng)),
    fail_to_pass=lambda rng: [
        _load(_legacy_text(rng)),
        _cli(
            _legacy_text(rng),
            [_claim(rng, "corporel", rng.randint(100, 2_000_000), number=n) for n in range(2)],
        ),
    ],
    pass_to_pass=lambda rng: [
        _load(_ini(Setup.draw(rng), both=True)),
        _cli(_ini(setup := Setup.draw(rng), both=True), [_claim(rng, "corporel", setup.home_min)]),
    ],
    known_bad={
        "prio-overrides-priority": (
            Replace(
                RULES,
                '    if "priority" in section:\n'
                '        value = section["priority"].strip().lower()\n',
                '    if "prio" in section:\n'
                '        value = LEGACY_PRIO.get(section["prio"].strip(), "")\n'
                '    elif "priority" in section:\n'
                '        value = section["priority"].strip().lower()\n',
            ),
        ),
        "raw-prio-value": (
            Replace(
                RULES,
                '        value = section["priority"].strip().lower()\n',
                '        value = section["priority"].strip().lower()\n'
                '    elif "prio" in section:\n'
                '        value = section["prio"].strip()\n',
            ),
        ),
    },
)


def _at_cut(rng: random.Random) -> Probe:
    """A claim of exactly a band's minimum amount."""
    setup = Setup.draw(rng)
    if rng.random() < 0.5:
        return _route(_claim(rng, "auto", setup.auto_cut), setup)
    return _route(_claim(rng, "habitation", setup.home_min), setup)


THRESHOLD = Change(
    id="threshold-boundary",
    kind="bug",
    undo=(
        Replace(
            ENGINE,
            "    # min_amount is inclusive, max_amount exclusive: bands never overlap\n"
            '    if claim["amount"] < rule["min"]:\n',
            "    # a claim at exactly min_amount stays in the band below (underwriting guide, "
            "4.2)\n"
            '    if claim["amount"] <= rule["min"]:\n',
        ),
        Replace(
            ENGINE_TESTS,
            "    def test_threshold_goes_to_the_upper_band(self):\n"
            '        self.assertEqual(route(claim("auto", 150000), self.config)["queue"], '
            '"expert-auto")\n\n',
            "",
        ),
    ),
    report=Report(
        title="Claims of exactly the threshold end up in the general queue",
        complaint="A car claim for exactly 1 500,00 € landed in the general queue yesterday and "
        "sat there for a week. Anything a cent above or below goes where it should.",
        expected="A claim of exactly a rule's minimum amount belongs to that rule, as the README "
        "says.",
        request="In the rules, min_amount must be inclusive and max_amount stay exclusive, so "
        "that a claim at a band's boundary goes to the upper band.",
    ),
    example=_at_cut,
    fail_to_pass=lambda rng: [
        _at_cut(rng),
        _at_cut(rng),
        _cli(
            _ini(setup := Setup.draw(rng)),
            [
                _claim(rng, "auto", setup.auto_cut),
                _claim(rng, "habitation", setup.home_min, None, 2),
            ],
        ),
    ],
    pass_to_pass=lambda rng: [
        _route(_claim(rng, "auto", (setup := Setup.draw(rng)).auto_cut - 1), setup),
        _route(_claim(rng, "auto", (setup := Setup.draw(rng)).auto_cut + 1), setup),
        _route(_claim(rng, "habitation", (setup := Setup.draw(rng)).home_min - 1), setup),
    ],
    known_bad={
        "both-bounds-inclusive": (
            Replace(
                ENGINE,
                '    if claim["amount"] <= rule["min"]:\n',
                '    if claim["amount"] < rule["min"]:\n',
            ),
            Replace(
                ENGINE,
                '    return rule["max"] is None or claim["amount"] < rule["max"]\n',
                '    return rule["max"] is None or claim["amount"] <= rule["max"]\n',
            ),
        ),
    },
)


def _recent(rng: random.Random, setup: Setup, number: int = 1) -> Claim:
    amount = rng.randint(5_000, min(setup.fraud_min, setup.home_min) - 100)
    category = rng.choice(("auto", "habitation", "voyage"))
    return _claim(rng, category, amount, rng.randint(0, setup.recent_days - 1), number)


def _recent_probe(rng: random.Random) -> Probe:
    setup = Setup.draw(rng)
    return _route(_recent(rng, setup), setup)


def _recent_fail_to_pass(rng: random.Random) -> list[Probe]:
    setup = Setup.draw(rng)
    small = rng.randint(5_000, 150_000)
    return [
        _recent_probe(rng),
        _route(_claim(rng, "auto", small, 0), setup),  # the day the policy started
        _route(_claim(rng, "habitation", small, setup.recent_days - 1), setup),
        _load(_ini(Setup.draw(rng))),
        _load(_ini(Setup.draw(rng), recent=False)),  # the default
        _load(_ini(Setup.draw(rng), legacy=True)),
        _cli(
            _ini(setup),
            [_recent(rng, setup), _ordinary(rng, setup, 2), _recent(rng, setup, 3)],
            "--fraud-only",
        ),
    ]


def _recent_pass_to_pass(rng: random.Random) -> list[Probe]:
    setup = Setup.draw(rng)
    return [
        _route(_ordinary(rng, setup), setup),
        _route(_claim(rng, "auto", 20_000, -rng.randint(1, 200)), setup),
        _route(_claim(rng, "voyage", setup.fraud_min + rng.randint(1, 9_999)), setup),
        _route(_claim(rng, "voyage", setup.fraud_min), setup),  # exactly the threshold
        _route(_claim(rng, "auto", 20_000, setup.recent_days), setup),
        _route(_claim(rng, "auto", 20_000, setup.recent_days + rng.randint(1, 30)), setup),
    ]


RECENT_POLICY = Change(
    id="recent-policy-fraud",
    kind="feature",
    undo=(
        Replace(
            ENGINE,
            '    """Large claims, and claims right after the policy started, go to the fraud '
            'unit."""\n'
            '    if claim["amount"] >= fraud["threshold"]:\n'
            "        return True\n"
            '    return 0 <= days_insured(claim) < fraud["recent_days"]\n',
            '    """Large claims go to the fraud unit."""\n'
            '    return claim["amount"] >= fraud["threshold"]\n',
        ),
        Replace(RULES, "DEFAULT_RECENT_DAYS = 30\n", ""),
        Replace(
            RULES,
            '            "recent_days": int(fraud.get("recent_policy_days", '
            "DEFAULT_RECENT_DAYS)),\n",
            "",
        ),
        Replace("data/regles.ini", "recent_policy_days = 30\n", ""),
        Replace(
            "README.md",
            " or when the\nincident happened less than `recent_policy_days` days after the policy "
            "started",
            "",
        ),
        Replace(
            ENGINE_TESTS,
            "    def test_recent_policy_is_flagged(self):\n"
            '        routed = route(claim("auto", 100, "2024-02-20", "2024-03-01"), self.config)\n'
            '        self.assertTrue(routed["fraud"])\n',
            "",
        ),
    ),
    report=Report(
        title="Flag claims right after the policy starts",
        complaint="The fraud unit keeps finding people who insure a car on Monday and crash it "
        "on Friday. The triage never flags these unless the amount is huge.",
        expected="Claims that happen shortly after the policy started should go to the fraud "
        "unit too.",
        request="Add a `recent_policy_days` setting to the `[fraude]` section (default 30, "
        "available in load_rules' fraud settings as `recent_days`) and flag a claim whose "
        "incident is within that many days of the policy start.",
    ),
    example=_recent_probe,
    fail_to_pass=_recent_fail_to_pass,
    pass_to_pass=_recent_pass_to_pass,
    known_bad={
        "flags-incidents-before-the-policy": (
            Replace(
                ENGINE,
                '    return claim["amount"] >= fraud["threshold"]\n',
                '    if claim["amount"] >= fraud["threshold"]:\n'
                "        return True\n"
                '    return days_insured(claim) < fraud.get("recent_days", 30)\n',
            ),
        ),
    },
    readings={
        "boundary-day-included": (
            Replace(
                ENGINE,
                '    return 0 <= days_insured(claim) < fraud["recent_days"]\n',
                '    return 0 <= days_insured(claim) <= fraud["recent_days"]\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="claims-triage",
    title="the claims triage rules engine",
    project="claims_triage",
    cli="triage.cli:main",
    locale="fr-FR",
    changes=(NARROW_SPACE, LEGACY_PRIO, THRESHOLD, RECENT_POLICY),
    pass_to_pass=_pass_to_pass,
    tags=("insurance", "rules", "configuration"),
)
