"""What a template gives the generator, and the helpers templates share."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from typing import Literal

from assay.families.workflow.state import CloudState

BEGIN = "# parameters\n"
END = "# end of parameters\n"


Text = Mapping[str, str]
"""One text in every prompt language (``en``, ``de``, ``fr``)."""
LANGUAGES = ("en", "de", "fr")


def text(en: str, de: str, fr: str) -> Text:
    """A text in every prompt language."""
    return {"en": en, "de": de, "fr": fr}


@dataclass(frozen=True)
class Wording:
    """What the prompt says, in one language."""

    title: str
    steps: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Facts:
    """What the prompt says, in every style and language."""

    title: Text
    """The job in a few words (``route new invoices to their regional queues``)."""
    steps: tuple[Text, ...]
    """What to do, one requirement a line, precise."""
    notes: tuple[Text, ...] = ()
    """Formats and conventions the checker holds the agent to."""

    def wording(self, language: str) -> Wording:
        """The facts in ``language``."""
        return Wording(
            title=self.title[language],
            steps=tuple(step[language] for step in self.steps),
            notes=tuple(note[language] for note in self.notes),
        )


@dataclass(frozen=True)
class Reading:
    """Another reasonable reading of a vague request: the state it ends in and its reference."""

    name: str
    """Names ``hidden/expected-<name>.json`` and ``solutions/reference-<name>/``."""
    expected: CloudState
    changes: tuple[tuple[str, str], ...]
    """(old, new) replacements that turn the reference script into this reading's."""
    allows: tuple[str, ...] = ()
    """Labels of known-bad scripts that this reading makes right (left out of vague tasks)."""


@dataclass(frozen=True)
class Draft:
    """One drawn instance of a template."""

    initial: CloudState
    expected: CloudState
    params: dict[str, object]
    """Values of the reference script's parameter block."""
    facts: Facts
    bad: dict[str, tuple[tuple[str, str], ...]]
    """Known-bad variants: label to (old, new) replacements in the reference script."""
    locale: str = "en-US"
    tags: tuple[str, ...] = field(default=())
    vague: Facts | None = None
    """The request as someone writes it who leaves one point open; None when the template has
    no such form."""
    readings: tuple[Reading, ...] = ()
    """The other readings of the vague request (``facts`` is the first)."""


@dataclass(frozen=True)
class Template:
    """A workflow from real operations work."""

    id: str
    services: tuple[str, ...]
    difficulty: Literal["easy", "medium", "hard"]
    build: Callable[[random.Random, str], Draft]

    def script(self) -> str:
        """The reference script with its default parameters."""
        path = package_files("assay.families.workflow.scripts").joinpath(f"{_module(self.id)}.py")
        return path.read_text(encoding="utf-8")


def _module(template_id: str) -> str:
    return template_id.replace("-", "_")


def render(script: str, params: dict[str, object]) -> str:
    """``script`` with its parameter block holding ``params`` (every name it declares)."""
    head, found, rest = script.partition(BEGIN)
    block, ended, tail = rest.partition(END)
    if not found or not ended:
        raise ValueError("the script has no parameter block")
    names = [line.split("=", 1)[0].strip() for line in block.splitlines() if "=" in line]
    if sorted(names) != sorted(params):
        raise ValueError(f"parameters {sorted(params)} do not match the block's {sorted(names)}")
    lines = "".join(f"{name} = {params[name]!r}\n" for name in names)
    return head + BEGIN + lines + END + tail


def variant(script: str, changes: tuple[tuple[str, str], ...]) -> str:
    """``script`` with each (old, new) replaced once; raises ValueError when one is missing."""
    for old, new in changes:
        if script.count(old) != 1:
            raise ValueError(f"the change {old!r} does not match exactly once")
        script = script.replace(old, new)
    return script


def words(rng: random.Random, pool: tuple[str, ...], count: int) -> list[str]:
    """``count`` distinct names from ``pool``."""
    return rng.sample(pool, count)


COMPANIES = ("acme", "globex", "initech", "umbrella", "hooli", "vandelay", "stark", "wayne")
"""Prefixes of resource names."""


@dataclass(frozen=True)
class Locale:
    """How a locale writes the data a workflow reads."""

    name: str
    delimiter: str
    decimal_comma: bool
    currency: str
    regions: tuple[str, ...]
    greeting: str
    thanks: str
    language: str = "en"
    """Language the prompt is written in."""

    def amount(self, cents: int) -> str:
        """``cents`` as this locale writes an amount in a file."""
        if self.currency == "JPY":
            return str(cents // 100)
        whole, part = divmod(cents, 100)
        if self.decimal_comma:
            grouped = f"{whole:,}".replace(",", ".") if self.name == "de-DE" else str(whole)
            return f"{grouped},{part:02d}"
        return f"{whole}.{part:02d}"

    def value(self, cents: int) -> float:
        """The number an amount written by :meth:`amount` stands for."""
        return float(cents // 100) if self.currency == "JPY" else cents / 100


LOCALES = {
    locale.name: locale
    for locale in (
        Locale("en-US", ",", False, "USD", ("east", "west", "central"), "Hi,", "Thanks!"),
        Locale("en-GB", ",", False, "GBP", ("north", "south", "scotland"), "Hello,", "Cheers."),
        Locale("de-DE", ";", True, "EUR", ("nord", "sued", "west"), "Hallo,", "Danke!", "de"),
        Locale("fr-FR", ";", True, "EUR", ("nord", "sud", "idf"), "Bonjour,", "Merci !", "fr"),
        Locale(
            "ja-JP",
            ",",
            False,
            "JPY",
            ("kanto", "kansai", "kyushu"),
            "お疲れ様です。",
            "よろしくお願いします。",
        ),
    )
}
