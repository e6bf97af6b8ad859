"""Prompts of generated workflow tasks, in the styles real requests come in and the language of
the task's locale (German for ``de-DE``, French for ``fr-FR``, English otherwise).

The styles: a precise specification, a terse ticket, a chat message, a forwarded complaint, a
thread whose first message is overruled by a later one (which says that it alone counts), and a
vague request that leaves one point open (only for templates with more than one reasonable
reading; each reading has its expected state and reference). Each prompt draws its framing from
:mod:`.phrases` and says what the account holds now, so two tasks of one template read as two
requests, not one text with other names in it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from assay.families.workflow import phrases
from assay.families.workflow.state import CloudState
from assay.families.workflow.templates import LOCALES, Facts, Wording


def language_of(locale: str) -> str:
    """The language a task of ``locale`` is written in."""
    return LOCALES[locale].language


def holdings(state: CloudState, language: str = "en") -> str:
    """What the account holds, in one sentence."""
    words = phrases.WORDS[language]
    counted = [
        *(("bucket", name, len(objects)) for name, objects in state.buckets.items()),
        *(("queue", name, len(messages)) for name, messages in state.queues.items()),
        *(("table", name, len(table.items)) for name, table in state.tables.items()),
        *(("logs", name, len(streams)) for name, streams in state.logs.items()),
    ]
    parts = [words[kind].format(name=name, count=count) for kind, name, count in counted]
    return f"{words['holds']} " + ", ".join(parts) + "."


def _rules(rng: random.Random, language: str) -> str:
    return f"{rng.choice(phrases.UNTOUCHED[language])} {rng.choice(phrases.RERUN[language])}"


def _context(rng: random.Random, state: CloudState, language: str) -> str:
    return (
        f"{holdings(state, language)} {rng.choice(phrases.STATE[language])} "
        f"{rng.choice(phrases.SDK[language])}"
    )


def _words(facts: Facts, locale: str) -> tuple[Wording, str]:
    language = language_of(locale)
    return facts.wording(language), language


def _numbered(wording: Wording) -> str:
    return "\n".join(f"{n}. {step}" for n, step in enumerate(wording.steps + wording.notes, 1))


def _bulleted(wording: Wording) -> str:
    return "\n".join(f"- {step}" for step in wording.steps + wording.notes)


def spec(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    """A precise specification under a heading, the steps numbered."""
    wording, language = _words(facts, locale)
    heading = rng.choice(phrases.HEADINGS[language])
    title = wording.title[0].upper() + wording.title[1:]
    return (
        f"{heading}: {title}\n\n{rng.choice(phrases.WHY[language])}\n\n{_numbered(wording)}\n\n"
        f"{_rules(rng, language)}\n\n{_context(rng, state, language)}\n"
    )


def ticket(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    """A terse issue-tracker ticket: key, team, title, the steps run together."""
    wording, language = _words(facts, locale)
    number = f"{rng.choice(phrases.PREFIXES)}-{rng.randint(1000, 9999)}"
    body = " ".join(wording.steps + wording.notes)
    return (
        f"{number} [{rng.choice(phrases.TEAMS)}] {wording.title}\n\n{body}\n\n"
        f"{rng.choice(phrases.WHY[language])} {_rules(rng, language)}\n\n"
        f"{_context(rng, state, language)}\n"
    )


def chat(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    """A chat message: a greeting, the ask, the steps as a list, thanks."""
    wording, language = _words(facts, locale)
    greeting = LOCALES[locale]
    ask = rng.choice(phrases.ASKS[language])
    return (
        f"{greeting.greeting}\n\n{ask} {wording.title}? {rng.choice(phrases.WHY[language])} "
        f"{phrases.WORDS[language]['happen']}\n\n{_bulleted(wording)}\n\n"
        f"{_rules(rng, language)}\n\n{_context(rng, state, language)}\n\n{greeting.thanks}\n"
    )


def complaint(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    """A complaint forwarded with a line from whoever forwards it, then the steps."""
    wording, language = _words(facts, locale)
    words = phrases.WORDS[language]
    forward = words["forward"].format(team=rng.choice(phrases.TEAMS), title=wording.title)
    return (
        f"{forward}\n\n{_bulleted(wording)}\n\n{_rules(rng, language)}\n\n"
        f"{_context(rng, state, language)}\n\n{words['forwarded']}\n"
        f"{words['from']}: {rng.choice(phrases.PEOPLE)}@customer.example\n"
        f"{words['subject']}: {rng.choice(phrases.SUBJECTS[language])}\n\n"
        f"{rng.choice(phrases.COMPLAINTS[language])}\n"
    )


def overruled(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    """A thread: a first message asks for a shortcut, a later one overrules it and says that
    only it counts, then gives the job precisely."""
    wording, language = _words(facts, locale)
    words = phrases.WORDS[language]
    first = words["first"].format(
        who=rng.choice(phrases.PEOPLE), shortcut=rng.choice(phrases.SHORTCUTS[language])
    )
    then = words["then"].format(lead=rng.choice(phrases.LEADS))
    title = wording.title[0].upper() + wording.title[1:]
    return (
        f"{first}\n\n{then}\n\n{title}.\n\n{_numbered(wording)}\n\n{_rules(rng, language)}\n\n"
        f"{_context(rng, state, language)}\n"
    )


def vague(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    """A short request that leaves one point open (``facts`` is the template's vague form)."""
    wording, language = _words(facts, locale)
    ask = phrases.WORDS[language]["vague"].format(
        title=wording.title, steps=" ".join(wording.steps + wording.notes)
    )
    return f"{ask}\n\n{_rules(rng, language)}\n\n{_context(rng, state, language)}\n"


Style = Callable[[Facts, str, CloudState, random.Random], str]
STYLES: dict[str, Style] = {
    "spec": spec,
    "ticket": ticket,
    "chat": chat,
    "complaint": complaint,
    "overruled": overruled,
    "vague": vague,
}
"""Prompt styles by name. ``vague`` is given the template's vague facts, the others its precise
ones."""
VAGUE = "vague"


def styles_for(has_readings: bool) -> list[str]:
    """The styles a template's task can be written in, sorted."""
    return sorted(name for name in STYLES if name != VAGUE or has_readings)
