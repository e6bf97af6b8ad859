"""Prompts of generated workflow tasks, in the styles real requests come in."""

from __future__ import annotations

import random
from collections.abc import Callable

from assay.families.workflow.templates import LOCALES, Facts

_CLOSING = (
    "Leave everything else in the account as it is: no other objects, messages, items or log "
    "events may be created, changed or deleted. The job may be run again later, so running "
    "it a second time must change nothing."
)
_STATE = (
    "The account's starting state (buckets and objects, queues and messages, tables and items, "
    "log groups) is described in `state.json` in your working directory. boto3 is installed "
    "and already configured (region us-east-1)."
)


def _spec(facts: Facts, locale: str, rng: random.Random) -> str:
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(facts.steps, 1))
    notes = "".join(f"\n- {note}" for note in facts.notes)
    return (
        f"# Task: {facts.title[0].upper()}{facts.title[1:]}\n\n{steps}\n{notes}\n\n"
        f"{_CLOSING}\n\n{_STATE}\n"
    )


def _ticket(facts: Facts, locale: str, rng: random.Random) -> str:
    number = rng.randint(1000, 9999)
    body = " ".join(facts.steps + facts.notes)
    return (
        f"OPS-{number}: {facts.title}\n\n{body}\n\nDon't touch anything else; the job must be "
        f"safe to rerun (a second run changes nothing).\n\n{_STATE}\n"
    )


def _chat(facts: Facts, locale: str, rng: random.Random) -> str:
    words = LOCALES[locale]
    steps = "\n".join(f"- {step}" for step in facts.steps + facts.notes)
    return (
        f"{words.greeting}\n\ncould you {facts.title} for me? Here is what has to happen:\n\n"
        f"{steps}\n\n{_CLOSING}\n\n{_STATE}\n\n{words.thanks}\n"
    )


STYLES: dict[str, Callable[[Facts, str, random.Random], str]] = {
    "spec": _spec,
    "ticket": _ticket,
    "chat": _chat,
}
"""Prompt styles by name: a precise specification, a terse ticket, a chat message."""
