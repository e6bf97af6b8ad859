"""Prompt styles for generated repo tasks: bug reports and tickets the way people write them.

- ``traceback``: a pasted traceback and "this broke after the upgrade" (only where the project
  raises on the reporter's call);
- ``forwarded``: a customer's complaint forwarded with a one-line note;
- ``ticket``: a terse issue-tracker ticket;
- ``precise``: a change request with names, formats and the expected result.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from assay.families.repo.templates import Change, ProjectTemplate
from assay.families.repo.templates._model import Probe


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


_KEYS = ("FIN", "OPS", "ACC", "SUP", "PLAT", "HR", "BILL")
_NAMES = ("Anna", "Jonas", "Priya", "Mehmet", "Claire", "Tomasz", "Lena", "Sam", "Ines", "Kofi")
_UPGRADES = (
    "this broke after the upgrade",
    "started after we deployed the new version on Monday",
    "worked last month, now it doesn't",
    "no idea what changed, but it fails since the last release",
    "after the upgrade this blows up",
)
_NOTES = (
    "Can someone take a look? Customer is waiting.",
    "fyi, second complaint this week about this.",
    "Forwarding, please fix before the month-end run.",
    "See below. Not sure if this is a bug or we never supported it.",
    "Could you check this? They sound annoyed.",
)
_CLOSERS = (
    "Please keep the existing behaviour for everything else; the project's tests are run with "
    "`python -m unittest`.",
    "Don't break the other imports, we rely on them.",
    "Tests: `python -m unittest`.",
    "",
)


def _context(template: ProjectTemplate, rng: random.Random) -> str:
    where = rng.choice(("The repository is", "The code is", "Project:", "Repo:"))
    return f"{where} {template.title}, checked out in your workspace."


def _call_block(seen: Seen) -> str:
    return f"```\n{seen.probe.shown()}\n```"


def traceback(template: ProjectTemplate, change: Change, seen: Seen, rng: random.Random) -> str:
    """A pasted traceback and a complaint about an upgrade."""
    return (
        f"{rng.choice(_UPGRADES).capitalize()}:\n\n```\n$ {seen.probe.shown()}\n"
        f"Traceback (most recent call last):\n  ...\n{seen.got}\n```\n\n"
        f"{change.report.complaint}\n\n{_context(template, rng)} "
        f"{rng.choice(_CLOSERS)}\n"
    )


def forwarded(template: ProjectTemplate, change: Change, seen: Seen, rng: random.Random) -> str:
    """A customer's complaint forwarded with a one-line note."""
    quoted = "\n".join(f"> {line}" for line in change.report.complaint.splitlines())
    return (
        f"{rng.choice(_NOTES)}\n\n---------- Forwarded message ----------\n"
        f"From: {rng.choice(_NAMES)} (customer support)\nSubject: {change.report.title}\n\n"
        f"{quoted}\n>\n> For example:\n> {seen.probe.shown()}\n> gives {seen.got}\n\n"
        f"{_context(template, rng)}\n"
    )


def ticket(template: ProjectTemplate, change: Change, seen: Seen, rng: random.Random) -> str:
    """A terse issue-tracker ticket."""
    key = f"{rng.choice(_KEYS)}-{rng.randint(100, 9999)}"
    return (
        f"**{key}**: {change.report.title.lower()}\n\n{change.report.expected}\n\n"
        f"repro:\n{_call_block(seen)}\ngot: {seen.got}\n\n"
        f"reporter: {rng.choice(_NAMES)}. {_context(template, rng)}\n"
    )


def precise(template: ProjectTemplate, change: Change, seen: Seen, rng: random.Random) -> str:
    """A change request with the exact behaviour wanted."""
    kind = "Bug fix" if change.kind == "bug" else "Change request"
    return (
        f"## {kind}: {change.report.title}\n\n{change.report.request}\n\n"
        f"For example\n\n{_call_block(seen)}\n\ncurrently gives {seen.got}; it should give "
        f"{seen.wanted}.\n\n{_context(template, rng)} {rng.choice(_CLOSERS[:3])}\n"
    )


STYLES: dict[str, Callable[[ProjectTemplate, Change, Seen, random.Random], str]] = {
    "traceback": traceback,
    "forwarded": forwarded,
    "ticket": ticket,
    "precise": precise,
}
