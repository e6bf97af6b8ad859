"""The log rotation tool: plans which rotated logs to delete, rename and truncate."""

from __future__ import annotations

import random

from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

CONFIG = "logrot/config.py"
PLAN = "logrot/plan.py"
BASES = ("app.log", "access.log", "worker.log", "billing.log", "api-gateway.log")


def _listing(rng: random.Random, base: str, count: int, *, live: bool = True) -> list[str]:
    """The live log, ``count`` generations (older ones compressed), and a stranger or two."""
    names = [base] if live else []
    names += [f"{base}.{n}" if n < 3 else f"{base}.{n}.gz" for n in range(1, count + 1)]
    names += rng.sample(["other.log", f"{base}.bak", "README", f"old-{base}.1"], 2)
    rng.shuffle(names)
    return names


def _plan(rng: random.Random, count: int, keep: int | None) -> Probe:
    base = rng.choice(BASES)
    return Probe(call="logrot.plan:rotation_plan", args=(_listing(rng, base, count), base, keep))


def _cli_plan(rng: random.Random, count: int, keep: int | None) -> Probe:
    base = rng.choice(BASES)
    keeping = () if keep is None else ("--keep", str(keep))
    return Probe(
        cli="logrot.cli:main",
        argv=("plan", base, *keeping),
        stdin="\n".join(_listing(rng, base, count)) + "\n",
    )


def _size(text: str) -> Probe:
    return Probe(call="logrot.config:parse_size", args=(text,))


def _check(sizes: tuple[str, ...]) -> Probe:
    sections = "".join(
        f"[{base}]\nkeep = {number + 2}\nsize = {size}\n\n"
        for number, (base, size) in enumerate(zip(BASES, sizes, strict=False))
    )
    return Probe(
        cli="logrot.cli:main", argv=("check", "logrot.ini"), files={"logrot.ini": sections}
    )


def _pass_to_pass(rng: random.Random) -> list[Probe]:
    return [
        _plan(rng, rng.randint(0, 6), rng.randint(1, 8)),
        _plan(rng, rng.randint(2, 6), None),
        _cli_plan(rng, rng.randint(1, 6), rng.randint(1, 8)),
        _size(f"{rng.randint(1, 999)}{rng.choice('KMG')}"),
        _size(str(rng.randint(0, 99_999))),
        _size(f"{rng.randint(1, 9)}X"),
        _check((f"{rng.randint(1, 99)}M", f"{rng.randint(1, 999)}K")),
    ]


NUMERIC_ORDER = Change(
    id="numeric-order",
    kind="bug",
    undo=(
        Replace(
            PLAN,
            "    return sorted(found)\n",
            "    # names sort the way their numbers do\n"
            "    return sorted(found, key=lambda generation: generation[1])\n",
        ),
    ),
    report=Report(
        title="Rotation overwrote app.log.10",
        complaint="Since we keep two weeks of logs, every rotation loses a day: the log from ten "
        "days ago gets overwritten by the one from nine days ago.",
        expected="Generations are renamed oldest first by their number, whatever how many there "
        "are, so that no rename overwrites another generation.",
        request="rotation_plan must order generations by number, not by name: with "
        "app.log.1 to app.log.12, app.log.12 is handled first and app.log.1 last.",
        translations={
            "de": Report(
                title="Rotation hat app.log.10 überschrieben",
                complaint="Seit wir zwei Wochen Logs aufheben, geht bei jeder Rotation ein Tag "
                "verloren: das Log von vor zehn Tagen wird von dem von vor neun Tagen "
                "überschrieben.",
                expected="Generationen werden nach ihrer Nummer umbenannt, die älteste zuerst, "
                "egal wie viele es sind, damit keine Umbenennung eine andere Generation "
                "überschreibt.",
                request="rotation_plan muss die Generationen nach Nummer ordnen, nicht nach "
                "Namen: bei app.log.1 bis app.log.12 kommt app.log.12 zuerst und app.log.1 "
                "zuletzt.",
            )
        },
    ),
    example=lambda rng: _plan(rng, rng.randint(10, 12), 14),
    fail_to_pass=lambda rng: [
        _plan(rng, rng.randint(10, 20), rng.randint(10, 25)),
        _plan(rng, rng.randint(11, 20), None),
        _cli_plan(rng, rng.randint(10, 16), 30),
    ],
    known_bad={
        "newest-first": (
            Replace(
                PLAN,
                "    return sorted(found, key=lambda generation: generation[1])\n",
                "    return sorted(found, reverse=True)\n",
            ),
        ),
    },
)

KEEP_ZERO = Change(
    id="keep-zero",
    kind="bug",
    undo=(
        Replace(
            PLAN,
            "    keep = DEFAULT_KEEP if keep is None else keep\n",
            "    keep = keep or DEFAULT_KEEP\n",
        ),
    ),
    report=Report(
        title="--keep 0 keeps seven generations",
        complaint="On the small VMs we run with --keep 0 to save disk, but the plan keeps seven "
        "old logs anyway and the disk fills up.",
        expected="keep 0 keeps no rotated generation: they are all deleted and the live log is "
        "truncated.",
        request="rotation_plan with keep=0 (and `--keep 0`) must delete every generation and "
        "truncate the live log; only keep=None means the default of 7.",
        translations={
            "de": Report(
                title="--keep 0 behält sieben Generationen",
                complaint="Auf den kleinen VMs fahren wir mit --keep 0, um Platz zu sparen, "
                "aber der Plan behält trotzdem sieben alte Logs und die Platte läuft voll.",
                expected="keep 0 behält keine rotierte Generation: alle werden gelöscht und das "
                "laufende Log wird geleert.",
                request="rotation_plan mit keep=0 (und `--keep 0`) muss jede Generation löschen "
                "und das laufende Log leeren; nur keep=None bedeutet den Standardwert 7.",
            )
        },
    ),
    example=lambda rng: _cli_plan(rng, rng.randint(2, 5), 0),
    fail_to_pass=lambda rng: [
        _plan(rng, rng.randint(1, 6), 0),
        _plan(rng, 0, 0),
        _cli_plan(rng, rng.randint(3, 8), 0),
    ],
    known_bad={
        "truncates-only": (
            Replace(
                PLAN,
                "    keep = keep or DEFAULT_KEEP\n",
                "    if keep == 0:\n"
                '        return {"delete": [], "rename": [], "truncate": [base]}\n'
                "    keep = keep or DEFAULT_KEEP\n",
            ),
        ),
    },
)

SIZE_UNITS = Change(
    id="size-units",
    kind="feature",
    undo=(
        Replace(
            CONFIG,
            "K, M and G are powers of 1024, in either case, and may be\n"
            "    followed by B (``10MB``, ``512kb``, ``100B``).",
            "K, M and G are powers of 1024.",
        ),
        Replace(
            CONFIG,
            "    cleaned = text.strip().upper()\n"
            '    if cleaned.endswith("B"):\n'
            "        cleaned = cleaned[:-1]\n",
            "    cleaned = text.strip()\n",
        ),
    ),
    report=Report(
        title="Config check rejects 10MB",
        complaint="Half the team writes sizes like 10MB or 512k in the config and the check "
        "refuses them; only 10M works.",
        expected="Sizes are read the way people write them: units in either case, with or "
        "without a B.",
        request="parse_size should accept k/m/g in either case and an optional trailing B "
        "(`512kb`, `10MB`, `100B`).",
        translations={
            "de": Report(
                title="Konfigurationsprüfung lehnt 10MB ab",
                complaint="Das halbe Team schreibt Größen wie 10MB oder 512k in die "
                "Konfiguration, und die Prüfung lehnt sie ab; nur 10M geht.",
                expected="Größen werden so gelesen, wie Leute sie schreiben: Einheiten groß "
                "oder klein, mit oder ohne B.",
                request="parse_size soll k/m/g groß oder klein und ein optionales B am Ende "
                "annehmen (`512kb`, `10MB`, `100B`).",
            )
        },
    ),
    example=lambda rng: _size(f"{rng.randint(1, 99)}m"),
    fail_to_pass=lambda rng: [
        _size(f"{rng.randint(1, 999)}k"),
        _size(f"{rng.randint(1, 999)}MB"),
        _size(f"{rng.randint(1, 99)}gb"),
        _size(f"{rng.randint(1, 999)}B"),
        _check((f"{rng.randint(1, 99)}MB", f"{rng.randint(1, 999)}k")),
    ],
    known_bad={
        "either-case-but-no-b": (
            Replace(CONFIG, "    cleaned = text.strip()\n", "    cleaned = text.strip().upper()\n"),
        ),
    },
    readings={
        "decimal-with-b": (
            Replace(
                CONFIG,
                '    if cleaned.endswith("B"):\n        cleaned = cleaned[:-1]\n',
                '    base = 1024\n    if cleaned.endswith("B"):\n        cleaned = cleaned[:-1]\n'
                "        base = 1000\n",
            ),
            Replace(
                CONFIG,
                "    return int(number) * UNITS[unit]\n",
                '    return int(number) * base ** "_KMG".index(unit or "_")\n',
            ),
        ),
    },
)

TEMPLATE = ProjectTemplate(
    id="log-rotator",
    title="the log rotation tool",
    project="log_rotator",
    cli="logrot.cli:main",
    locale="en-US",
    changes=(NUMERIC_ORDER, KEEP_ZERO, SIZE_UNITS),
    pass_to_pass=_pass_to_pass,
    tags=("operations", "files", "configuration"),
    titles={"de": "das Log-Rotationswerkzeug"},
)
