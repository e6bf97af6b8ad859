"""Prompt styles for generated repo tasks: bug reports and tickets the way people write them.

- ``traceback``: a pasted traceback and "this broke after the upgrade" (only where the project
  raises on the reporter's call);
- ``forwarded``: a customer's complaint forwarded with a one-line note;
- ``ticket``: a terse issue-tracker ticket;
- ``precise``: a change request with names, formats and the expected result.

Each is written in English, German or French: the report's words in the language its change
has them in (:attr:`Report.translations`), the rest from the phrase pools below.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from assay.families.repo.templates import Change, ProjectTemplate
from assay.families.repo.templates._model import Probe, Report

LANGUAGES = ("en", "de", "fr")


@dataclass(frozen=True)
class Seen:
    """What the reporter's call gives, in the words a report would show it."""

    probe: Probe
    got: str
    """What the workspace gives: a value, output, or an exception's last line."""
    raised: bool
    """The workspace raised (the report can paste a traceback)."""
    wanted: str
    """What the reference gives."""


Pool = Mapping[str, tuple[str, ...]]

_KEYS = ("FIN", "OPS", "ACC", "SUP", "PLAT", "HR", "BILL")
_NAMES = ("Anna", "Jonas", "Priya", "Mehmet", "Claire", "Tomasz", "Lena", "Sam", "Ines", "Kofi")
_UPGRADES: Pool = {
    "en": (
        "this broke after the upgrade",
        "started after we deployed the new version on Monday",
        "worked last month, now it doesn't",
        "no idea what changed, but it fails since the last release",
    ),
    "de": (
        "seit dem Update geht das nicht mehr",
        "seit dem Deployment am Montag kommt das hier",
        "letzten Monat lief es noch, jetzt nicht mehr",
    ),
    "fr": (
        "ça plante depuis la mise à jour",
        "depuis le déploiement de lundi on a ceci",
        "ça marchait le mois dernier, plus maintenant",
    ),
}
_NOTES: Pool = {
    "en": (
        "Can someone take a look? Customer is waiting.",
        "fyi, second complaint this week about this.",
        "Forwarding, please fix before the month-end run.",
        "See below. Not sure if this is a bug or we never supported it.",
    ),
    "de": (
        "Kann sich das bitte jemand ansehen? Der Kunde wartet.",
        "zur Info, schon die zweite Beschwerde diese Woche.",
        "Weitergeleitet, bitte vor dem Monatsabschluss beheben.",
    ),
    "fr": (
        "Quelqu'un peut regarder ? Le client attend.",
        "pour info, deuxième réclamation cette semaine.",
        "Je transfère, à corriger avant la clôture du mois svp.",
    ),
}
_CLOSERS: Pool = {
    "en": (
        "Please keep everything else working; the project's tests run with `python -m unittest`.",
        "Don't break the other imports, we rely on them.",
        "Tests: `python -m unittest`.",
    ),
    "de": (
        "Alles andere muss weiter funktionieren; die Tests laufen mit `python -m unittest`.",
        "Bitte nichts anderes kaputt machen, wir hängen davon ab.",
    ),
    "fr": (
        "Tout le reste doit continuer à marcher ; les tests se lancent avec `python -m unittest`.",
        "Ne cassez rien d'autre, on en dépend.",
    ),
}
_WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "where": "The code is {title}, checked out in your workspace.",
        "forwarded": "Forwarded message",
        "from": "From",
        "support": "customer support",
        "subject": "Subject",
        "example": "For example",
        "gives": "gives",
        "got": "got",
        "reporter": "reporter",
        "bug": "Bug fix",
        "change": "Change request",
        "currently": "currently gives {got}; it should give {wanted}.",
    },
    "de": {
        "where": "Der Code ist {title}, ausgecheckt in deinem Workspace.",
        "forwarded": "Weitergeleitete Nachricht",
        "from": "Von",
        "support": "Kundenservice",
        "subject": "Betreff",
        "example": "Zum Beispiel",
        "gives": "ergibt",
        "got": "Ergebnis",
        "reporter": "gemeldet von",
        "bug": "Bugfix",
        "change": "Änderungswunsch",
        "currently": "ergibt derzeit {got}; richtig wäre {wanted}.",
    },
    "fr": {
        "where": "Le code est {title}, récupéré dans ton espace de travail.",
        "forwarded": "Message transféré",
        "from": "De",
        "support": "service client",
        "subject": "Objet",
        "example": "Par exemple",
        "gives": "donne",
        "got": "obtenu",
        "reporter": "signalé par",
        "bug": "Correctif",
        "change": "Demande d'évolution",
        "currently": "donne actuellement {got} ; il faudrait {wanted}.",
    },
}


def report_in(change: Change, language: str) -> Report:
    """The change's report in ``language``, or in English where it has no translation."""
    return change.report.translations.get(language, change.report)


def languages_of(change: Change) -> tuple[str, ...]:
    """The languages the change's report can be written in: English and its translations."""
    return ("en", *sorted(set(change.report.translations) & set(LANGUAGES)))


def _where(template: ProjectTemplate, language: str) -> str:
    title = template.titles.get(language, template.title)
    return _WORDS[language]["where"].format(title=title)


def traceback(
    template: ProjectTemplate, change: Change, seen: Seen, language: str, rng: random.Random
) -> str:
    """A pasted traceback and a complaint about an upgrade."""
    report = report_in(change, language)
    upgrade = rng.choice(_UPGRADES[language])
    return (
        f"{upgrade[0].upper()}{upgrade[1:]}:\n\n```\n$ {seen.probe.shown()}\n"
        f"Traceback (most recent call last):\n  ...\n{seen.got}\n```\n\n"
        f"{report.complaint}\n\n{_where(template, language)} {rng.choice(_CLOSERS[language])}\n"
    )


def forwarded(
    template: ProjectTemplate, change: Change, seen: Seen, language: str, rng: random.Random
) -> str:
    """A customer's complaint forwarded with a one-line note."""
    report = report_in(change, language)
    words = _WORDS[language]
    quoted = "\n".join(f"> {line}" for line in report.complaint.splitlines())
    return (
        f"{rng.choice(_NOTES[language])}\n\n---------- {words['forwarded']} ----------\n"
        f"{words['from']}: {rng.choice(_NAMES)} ({words['support']})\n"
        f"{words['subject']}: {report.title}\n\n"
        f"{quoted}\n>\n> {words['example']}:\n> {seen.probe.shown()}\n> {words['gives']} "
        f"{seen.got}\n\n{_where(template, language)}\n"
    )


def ticket(
    template: ProjectTemplate, change: Change, seen: Seen, language: str, rng: random.Random
) -> str:
    """A terse issue-tracker ticket."""
    report = report_in(change, language)
    words = _WORDS[language]
    key = f"{rng.choice(_KEYS)}-{rng.randint(100, 9999)}"
    return (
        f"**{key}**: {report.title[0].lower()}{report.title[1:]}\n\n{report.expected}\n\n"
        f"repro:\n```\n{seen.probe.shown()}\n```\n{words['got']}: {seen.got}\n\n"
        f"{words['reporter']}: {rng.choice(_NAMES)}. {_where(template, language)}\n"
    )


def precise(
    template: ProjectTemplate, change: Change, seen: Seen, language: str, rng: random.Random
) -> str:
    """A change request with the exact behaviour wanted."""
    report = report_in(change, language)
    words = _WORDS[language]
    kind = words["bug"] if change.kind == "bug" else words["change"]
    currently = words["currently"].format(got=seen.got, wanted=seen.wanted)
    return (
        f"## {kind}: {report.title}\n\n{report.request}\n\n"
        f"{words['example']}\n\n```\n{seen.probe.shown()}\n```\n\n{currently}\n\n"
        f"{_where(template, language)} {rng.choice(_CLOSERS[language])}\n"
    )


Style = Callable[[ProjectTemplate, Change, Seen, str, random.Random], str]
STYLES: dict[str, Style] = {
    "traceback": traceback,
    "forwarded": forwarded,
    "ticket": ticket,
    "precise": precise,
}
