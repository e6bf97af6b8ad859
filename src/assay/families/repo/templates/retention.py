"""The log retention tool: rotate, compress and prune logs by size and age (en-US)."""

from __future__ import annotations

import datetime
import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

NAMES = "logkeep/names.py"
SIZES = "logkeep/sizes.py"
CONFIG = "logkeep/config.py"
PLAN = "logkeep/plan.py"
CLI = "logkeep/cli.py"
BASES = ("builder.log", "api-gateway.log", "worker-3.log", "nginx-access.log", "payments.log")
Listing = dict[str, int]


def _today(rng: random.Random) -> datetime.date:
    return datetime.date(rng.randint(2023, 2025), rng.randint(1, 12), rng.randint(1, 28))


def _rotated(base: str, day: datetime.date, *, compact: bool = False, gz: bool = True) -> str:
    name = f"{base}-{day:%Y%m%d}" if compact else f"{base}.{day.isoformat()}"
    return f"{name}.gz" if gz else name


def _history(
    rng: random.Random, base: str, today: datetime.date, count: int, *, compact: bool = False
) -> Listing:
    """``count`` rotated files of ``base``, 1 to 90 days old, the newest maybe uncompressed."""
    ages = sorted(rng.sample(range(1, 91), count))
    return {
        _rotated(base, today - datetime.timedelta(days=age), compact=compact, gz=age != 1): (
            rng.randint(20, 900)
        )
        for age in ages
    }


def _conf(sections: dict[str, dict[str, str]]) -> str:
    return "".join(
        f"[{name}]\n" + "".join(f"{key} = {value}\n" for key, value in keys.items()) + "\n"
        for name, keys in sections.items()
    )


def _size_text(rng: random.Random, kilobytes: int) -> str:
    return rng.choice((f"{kilobytes}K", f"{kilobytes}k", f"{kilobytes}KB", f"{kilobytes} KiB"))


def _basic_conf(rng: random.Random, base: str, keep: int) -> str:
    return _conf(
        {
            "*": {"max_size": "10M", "keep_days": str(rng.choice((7, 14, 30)))},
            base: {"max_size": _size_text(rng, rng.randint(1, 3)), "keep_days": str(keep)},
        }
    )


def _run(conf: str, listing: Listing, today: datetime.date, *extra: str) -> Probe:
    files = {"rotate.conf": conf} | {f"logs/{name}": "x" * size for name, size in listing.items()}
    argv = ("--config", "rotate.conf", "--dir", "logs", "--today", today.isoformat(), *extra)
    return Probe(cli="logkeep.cli:main", argv=argv, files=files)


def _scene(rng: random.Random, *, compact: bool = False) -> tuple[str, Listing, datetime.date]:
    """A config for one log, the log (big or small) and its rotated files."""
    base, today = rng.choice(BASES), _today(rng)
    listing = {base: rng.choice((rng.randint(10, 900), rng.randint(4_000, 6_000)))}
    listing |= _history(rng, base, today, rng.randint(2, 5), compact=compact)
    return _basic_conf(rng, base, rng.choice((7, 10, 21, 45))), listing, today


def _parse(name: str) -> Probe:
    return Probe(call="logkeep.names:parse_rotated", args=(name,))


def _size(text: str) -> Probe:
    return Probe(call="logkeep.sizes:parse_size", args=(text,))


def _load(text: str) -> Probe:
    return Probe(call="logkeep.config:load_config", args=(text,))


def _plan(rng: random.Random) -> Probe:
    base, today = rng.choice(BASES), _today(rng)
    listing = {base: rng.randint(100, 5_000), **_history(rng, base, today, 4)}
    config = {
        base: {
            "max_size": rng.choice((1024, 2048, 4096)),
            "keep_days": rng.choice((7, 30)),
            "compress": rng.random() < 0.7,
        }
    }
    return Probe(call="logkeep.plan:plan", args=(listing, config, today.isoformat()))


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    base = rng.choice(BASES)
    return [
        _parse(_rotated(base, _today(rng), gz=rng.random() < 0.5)),
        _parse(base),
        _parse(f"{base}.{rng.randint(1, 9)}"),
        _size(str(rng.randint(1, 99_999))),
        _plan(rng),
        _run(*_scene(rng), "--dry-run"),
        _run(*_scene(rng), "--noop"),
        _run(*_scene(rng)),
    ]


def _compact_name(rng: random.Random, gz: bool) -> Probe:
    day = _today(rng) - datetime.timedelta(days=rng.randint(1, 400))
    return _parse(_rotated(rng.choice(BASES), day, compact=True, gz=gz))


def _compact_run(rng: random.Random, *extra: str) -> Probe:
    return _run(*_scene(rng, compact=True), *extra)


DATEEXT = Change(
    id="dateext-names",
    kind="bug",
    undo=(
        Replace(
            NAMES,
            "# what logrotate's dateext wrote before we replaced it; those files still sit on the "
            "hosts\n"
            'COMPACT = re.compile(r"^(?P<base>.+)-(?P<y>\\d{4})(?P<m>\\d{2})(?P<d>\\d{2})'
            '(?P<gz>\\.gz)?$")\n',
            "",
        ),
        Replace(
            NAMES,
            "    for pattern in (DASHED, COMPACT):\n"
            "        found = pattern.match(name)\n"
            "        if found is None:\n"
            "            continue\n"
            "        try:\n"
            '            day = datetime.date(int(found["y"]), int(found["m"]), int(found["d"]))\n'
            "        except ValueError:\n"
            "            return None\n"
            '        return {"base": found["base"], "date": day.isoformat(), "compressed": '
            'bool(found["gz"])}\n'
            "    return None\n",
            "    found = DASHED.match(name)\n"
            "    if found is None:\n"
            "        return None\n"
            "    try:\n"
            '        day = datetime.date(int(found["y"]), int(found["m"]), int(found["d"]))\n'
            "    except ValueError:\n"
            "        return None\n"
            '    return {"base": found["base"], "date": day.isoformat(), "compressed": '
            'bool(found["gz"])}\n',
        ),
        Replace(
            "tests/test_names.py",
            "    def test_dateext(self):\n"
            "        self.assertEqual(\n"
            '            parse_rotated("audit.log-20240102"),\n'
            '            {"base": "audit.log", "date": "2024-01-02", "compressed": False},\n'
            "        )\n\n",
            "",
        ),
    ),
    report=Report(
        title="Old logrotate files never get cleaned up",
        complaint="The disk on build-07 filled up again. There are hundreds of files like "
        "builder.log-20230412.gz from before we switched to logkeep, and it never deletes them, "
        "although the README says it does.",
        expected="Files rotated by the old logrotate setup are recognised, compressed and pruned "
        "like our own.",
        request="parse_rotated must also read logrotate's dateext names, `app.log-20240310` and "
        "`app.log-20240310.gz` (base `app.log`), and plan and the command line must treat them "
        "like `app.log.2024-03-10`.",
    ),
    example=lambda rng: _compact_name(rng, gz=True),
    fail_to_pass=lambda rng: [
        _compact_name(rng, gz=True),
        _compact_name(rng, gz=False),
        _compact_run(rng, "--dry-run"),
        _compact_run(rng),
    ],
    pass_to_pass=lambda rng: [
        _parse(f"{rng.choice(BASES)}.{_today(rng):%Y%m%d}"),
        _parse(f"{rng.choice(BASES)}-{rng.randint(2023, 2025)}1341.gz"),
    ],
    known_bad={
        "optional-dash": (
            Replace(
                NAMES,
                "    found = DASHED.match(name)\n",
                "    found = DASHED.match(name) or re.match(\n"
                '        r"^(?P<base>.+)-?(?P<y>\\d{4})(?P<m>\\d{2})(?P<d>\\d{2})(?P<gz>\\.gz)?$", '
                "name\n"
                "    )\n",
            ),
        ),
    },
)


def _units_scene(rng: random.Random) -> tuple[str, Listing, datetime.date]:
    """A log between ``n`` thousand and ``n`` KiB bytes, with ``max_size`` n K."""
    base, today = rng.choice(BASES), _today(rng)
    kilobytes = rng.randint(1, 4)
    listing = {base: rng.randint(kilobytes * 1000 + 1, kilobytes * 1024 - 1)}
    listing |= _history(rng, base, today, 2)
    conf = _conf({base: {"max_size": _size_text(rng, kilobytes), "keep_days": "400"}})
    return conf, listing, today


BINARY_UNITS = Change(
    id="binary-size-units",
    kind="bug",
    undo=(
        Replace(
            SIZES,
            'UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}\n',
            'UNITS = {"": 1, "K": 1000, "M": 1000**2, "G": 1000**3}\n',
        ),
        Replace(
            "tests/test_names.py",
            "    def test_units(self):\n"
            '        self.assertEqual(parse_size("64K"), 65536)\n'
            '        self.assertEqual(parse_size("10 MiB"), 10 * 1024 * 1024)\n\n',
            "",
        ),
    ),
    report=Report(
        title="Logs rotated before they reach max_size",
        complaint="We set max_size = 100M for the gateway log and logkeep rotates it at about "
        "95 MB, judging by ls -lh. Small, but the log shipper counts on the real size.",
        expected="Sizes in the config are counted in powers of 1024, as the README says.",
        request="parse_size must use binary units: `K` is 1024 bytes, `M` 1024², `G` 1024³, "
        "whatever the spelling (`64K`, `64KB`, `64 KiB`, lower case too); plain numbers stay "
        "bytes.",
    ),
    example=lambda rng: _size(f"{rng.randint(2, 999)}M"),
    fail_to_pass=lambda rng: [
        _size(_size_text(rng, rng.randint(1, 9_999))),
        _size(f"{rng.randint(2, 999)}{rng.choice(('M', 'MB', 'mib', ' MiB'))}"),
        _size(f"{rng.randint(1, 99)}{rng.choice(('G', 'GB', 'gib'))}"),
        _load(_conf({rng.choice(BASES): {"max_size": _size_text(rng, rng.randint(1, 512))}})),
        _run(*_units_scene(rng), "--dry-run"),
        _run(*_units_scene(rng)),
    ],
    pass_to_pass=lambda rng: [
        _size(str(rng.randint(1, 9_999_999))),
        _size(f"{rng.randint(1, 9_999)} B"),
    ],
    known_bad={
        "drops-plain-bytes": (
            Replace(
                SIZES,
                'UNITS = {"": 1, "K": 1000, "M": 1000**2, "G": 1000**3}\n',
                'UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}\n',
            ),
            Replace(
                SIZES,
                '    number = cleaned.rstrip("KMG")\n    unit = cleaned[len(number) :]\n',
                "    number, unit = cleaned[:-1], cleaned[-1:]\n",
            ),
        ),
    },
)


def _maxage_conf(
    rng: random.Random, base: str, maxage: int, *, both: bool = False, shadowed: bool = False
) -> str:
    """A section with ``maxage`` (and ``keep_days`` too if ``both``), under defaults that may
    set ``keep_days`` (always if ``shadowed``)."""
    defaults = {"max_size": "10M"}
    if shadowed or rng.random() < 0.6:
        defaults["keep_days"] = str(rng.choice((3, 7, 14)))
    section = {"max_size": _size_text(rng, rng.randint(1, 3)), "maxage": str(maxage)}
    if both:
        section["keep_days"] = str(maxage // 3)
    return _conf({"*": defaults, base: section})


def _maxage_scene(rng: random.Random, *, both: bool = False) -> tuple[str, Listing, datetime.date]:
    base, today = rng.choice(BASES), _today(rng)
    listing = {base: rng.randint(10, 3_000), **_history(rng, base, today, 5)}
    kept_longer = today - datetime.timedelta(days=rng.randint(15, 29))  # only maxage keeps it
    listing[_rotated(base, kept_longer)] = rng.randint(20, 900)
    return _maxage_conf(rng, base, rng.choice((30, 60, 90)), both=both), listing, today


MAXAGE = Change(
    id="deprecated-maxage",
    kind="bug",
    undo=(
        Replace(
            CONFIG,
            '        if "maxage" in source:  # the 1.x name, deprecated but still in many hosts\' '
            "configs\n"
            '            return int(source["maxage"])\n',
            "",
        ),
        Replace(
            "tests/test_plan.py",
            "    def test_deprecated_maxage(self):\n"
            '        self.assertEqual(self.config["old.log"]["keep_days"], 30)\n'
            '        self.assertEqual(self.config["app.log"]["keep_days"], 7)\n\n',
            "",
        ),
    ),
    report=Report(
        title="Upgrade to 2.4 deleted a month of gateway logs",
        complaint="After upgrading logkeep on the API hosts, the nightly run deleted every "
        "gateway log older than two weeks. Its section says maxage = 30, as it has for years.",
        expected="The deprecated maxage setting keeps working until we have migrated the configs.",
        request="load_config must honour the deprecated `maxage` as `keep_days` for a section "
        "that has no `keep_days` of its own (in `[*]` too); a section's `keep_days` wins over "
        "its `maxage`, and a section's `maxage` wins over the defaults.",
    ),
    example=lambda rng: _load(_maxage_conf(rng, rng.choice(BASES), rng.choice((30, 60, 90)))),
    fail_to_pass=lambda rng: [
        _load(_maxage_conf(rng, rng.choice(BASES), rng.choice((21, 45, 120)), shadowed=True)),
        _load(_conf({"*": {"maxage": str(rng.choice((30, 60)))}, rng.choice(BASES): {}})),
        _run(*_maxage_scene(rng), "--dry-run"),
        _run(*_maxage_scene(rng)),
    ],
    pass_to_pass=lambda rng: [
        _load(_maxage_conf(rng, rng.choice(BASES), rng.choice((30, 60, 90)), both=True)),
        _run(*_maxage_scene(rng, both=True), "--dry-run"),
        # Neither keep_days nor maxage anywhere: the default still holds (a fix that returned
        # None or 0 there, deleting every rotated log, passed every other case).
        _load(_conf({"*": {"max_size": "10M"}, rng.choice(BASES): {"compress": "no"}})),
    ],
    known_bad={
        "defaults-shadow-maxage": (
            Replace(
                CONFIG,
                "    return DEFAULT_KEEP_DAYS\n",
                '    return int(section.get("maxage", defaults.get("maxage", '
                "DEFAULT_KEEP_DAYS)))\n",
            ),
        ),
        "maxage-wins": (
            Replace(
                CONFIG,
                '        if "keep_days" in source:\n',
                '        if "maxage" in source:\n'
                '            return int(source["maxage"])\n'
                '        if "keep_days" in source:\n',
            ),
        ),
    },
)


def _pruning_scene(rng: random.Random) -> tuple[str, Listing, datetime.date]:
    base, today = rng.choice(BASES), _today(rng)
    listing = {base: rng.randint(10, 5_000), **_history(rng, base, today, rng.randint(3, 6))}
    listing |= _history(rng, base, today, 2, compact=True)
    return _basic_conf(rng, base, rng.choice((5, 10, 20))), listing, today


FREED = Change(
    id="freed-space",
    kind="feature",
    undo=(
        Replace(
            CLI, "from logkeep.plan import freed_bytes, plan\n", "from logkeep.plan import plan\n"
        ),
        Replace(
            CLI,
            "    if dry_run:\n"
            '        print(f"would free {freed_bytes(actions, listing)} bytes")\n'
            "    else:\n",
            "    if not dry_run:\n",
        ),
        Replace(
            PLAN,
            "\n\ndef freed_bytes(actions, listing):\n"
            '    """Bytes the deletions in ``actions`` give back."""\n'
            "    return sum(listing.get(name, 0) for verb, name, _ in actions if verb == "
            '"delete")\n',
            "",
        ),
        Replace("tests/test_plan.py", "import freed_bytes, plan\n", "import plan\n"),
        Replace(
            "tests/test_plan.py",
            "\n    def test_freed_bytes(self):\n"
            '        listing = {"app.log.2024-01-01.gz": 300, "app.log.2024-01-02.gz": 200}\n'
            '        actions = plan(listing, self.config, "2024-03-10")\n'
            "        self.assertEqual(freed_bytes(actions, listing), 500)\n",
            "",
        ),
        Replace(
            "README.md",
            "(`--noop` is the old spelling), and\nends with the space the deletions would free.\n",
            "(`--noop` is the old spelling).\n",
        ),
    ),
    report=Report(
        title="Dry run: how much space would it free?",
        complaint="Before I let logkeep loose on a full disk I run it with --dry-run, and then I "
        "add up the file sizes by hand to see whether it will be enough.",
        expected="The dry run should tell me how much space the run would free.",
        request="At the end of a dry run (`--dry-run` or `--noop`), print one more line, "
        "`would free <size>`, the total size of the files the run would delete. Real runs print "
        "what they do, as now.",
    ),
    example=lambda rng: _run(*_pruning_scene(rng), "--dry-run"),
    fail_to_pass=lambda rng: [
        _run(*_pruning_scene(rng), "--dry-run"),
        _run(*_pruning_scene(rng), "--noop"),
        _run(*_scene(rng), "-n"),
    ],
    pass_to_pass=lambda rng: [_run(*_pruning_scene(rng)), _plan(rng)],
    known_bad={
        "prints-on-real-runs": (
            Replace(
                CLI,
                "    for action in actions:\n        print(describe(action, dry_run))\n",
                "    for action in actions:\n        print(describe(action, dry_run))\n"
                "    freed = sum(listing[name] for verb, name, _ in actions if verb == "
                '"delete")\n'
                '    print(f"would free {freed} bytes")\n',
            ),
        ),
    },
    readings={
        "human-readable": (
            Replace(
                CLI,
                '        print(f"would free {freed_bytes(actions, listing)} bytes")\n',
                '        print(f"would free {human_size(freed_bytes(actions, listing))}")\n',
            ),
            Replace(
                CLI,
                "from logkeep.rotate import carry_out\n",
                "from logkeep.rotate import carry_out\nfrom logkeep.sizes import human_size\n",
            ),
            Replace(
                SIZES,
                "",
                "\n\ndef human_size(size):\n"
                '    """``size`` bytes for people: ``512 B``, ``1.5 KiB``, ``12.0 MiB``."""\n'
                '    for unit in ("B", "KiB", "MiB"):\n'
                "        if size < 1024:\n"
                '            return f"{size} B" if unit == "B" else f"{size:.1f} {unit}"\n'
                "        size /= 1024\n"
                '    return f"{size:.1f} GiB"\n',
            ),
        ),
    },
)


NOOP = Change(
    id="noop-flag-ignored",
    kind="bug",
    undo=(
        Replace(CLI, "    dry_run = args.dry_run or args.noop\n", "    dry_run = args.dry_run\n"),
        Replace(
            "tests/test_cli.py",
            "    def test_noop_is_a_dry_run(self):\n"
            '        _, output, names = self.run_cli("--noop")\n'
            '        self.assertIn("would rotate", output)\n'
            '        self.assertEqual(names, ["app.log", "rotate.conf"])\n\n',
            "",
        ),
    ),
    report=Report(
        title="--noop deleted our logs",
        complaint="Our maintenance runbook says to check logkeep with --noop first. On db-02 "
        "that 'check' rotated and deleted a month of logs. It used to only print what it would "
        "do.",
        expected="--noop is a dry run, as it was in 1.x: it prints and touches nothing.",
        request="The command line must treat the deprecated `--noop` exactly like `--dry-run` "
        "(and `-n`): print the actions with `would`, the summary line included, and change no "
        "file.",
    ),
    example=lambda rng: _run(*_pruning_scene(rng), "--noop"),
    fail_to_pass=lambda rng: [
        _run(*_pruning_scene(rng), "--noop"),
        _run(*_scene(rng), "--noop"),
        _run(*_units_scene(rng), "--noop"),
    ],
    pass_to_pass=lambda rng: [
        _run(*_pruning_scene(rng), "--dry-run"),
        _run(*_scene(rng), "-n"),
        _run(*_pruning_scene(rng)),
    ],
    known_bad={
        "noop-replaces-dry-run": (
            Replace(CLI, "    dry_run = args.dry_run\n", "    dry_run = args.noop\n"),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="log-retention",
    title="the log retention tool",
    project="log_retention",
    cli="logkeep.cli:main",
    locale="en-US",
    changes=(DATEEXT, BINARY_UNITS, MAXAGE, FREED, NOOP),
    pass_to_pass=_pass_to_pass,
    tags=("operations", "files", "configuration"),
)
