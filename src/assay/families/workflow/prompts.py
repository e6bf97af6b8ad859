"""Prompts of generated workflow tasks, in the styles real requests come in.

Each prompt draws its framing (heading or ticket, who asks and why, how the rules about the rest
of the account and reruns are put) and says what the account holds now, so two tasks of one
template read as two requests, not one text with other names in it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from assay.families.workflow.state import CloudState
from assay.families.workflow.templates import LOCALES, Facts

_UNTOUCHED = (
    "Leave everything else in the account as it is: no other objects, messages, items or log "
    "events may be created, changed or deleted.",
    "Nothing else may change: do not create, modify or remove any other object, message, item "
    "or log event.",
    "Only what is described above may change; every other resource stays exactly as it is.",
    "Don't touch anything this job is not about (other buckets, objects, queues, messages, "
    "tables, items or log events).",
    "Anything not mentioned here must be left alone, including other files, queues and tables.",
)
_RERUN = (
    "The job may be run again later, so running it a second time must change nothing.",
    "It will run on a schedule: a second run right after the first must be a no-op.",
    "Make it idempotent: running it twice must leave the same state as running it once.",
    "Someone will probably rerun it by accident; a rerun must not duplicate or undo anything.",
)
_STATE = (
    "`state.json` in your working directory describes the starting state of the account.",
    "The current contents of the account are dumped in `state.json` (working directory).",
    "See `state.json` next to you for a snapshot of every bucket, queue, table and log group.",
    "For reference, the whole starting state is in `state.json` in the working directory.",
)
_SDK = (
    "boto3 is installed and already configured (region us-east-1).",
    "Use boto3; credentials, region and endpoint are already set up.",
    "The AWS SDK for Python (boto3) is available and preconfigured; no keys needed.",
)
_WHY = (
    "This runs every night from the scheduler.",
    "We need this done before the month-end close.",
    "The on-call engineer asked for it after last night's incident.",
    "Compliance wants it done before the audit next week.",
    "It is part of the migration we are finishing this sprint.",
    "Customer support is waiting on it.",
    "It was done by hand until now; we want it scripted.",
    "The data team depends on the result tomorrow morning.",
    "It is one step of the runbook we are automating.",
    "The previous script broke when the format changed, so it needs redoing.",
)
_TEAMS = ("platform", "payments", "data", "support", "security", "finance", "ops", "billing")
_PREFIXES = ("OPS", "INFRA", "DATA", "PLAT", "FIN", "SEC", "SRE", "BILL")


def holdings(state: CloudState) -> str:
    """What the account holds, in one sentence."""
    parts = [f"bucket `{name}` ({len(objects)} objects)" for name, objects in state.buckets.items()]
    parts += [
        f"queue `{name}` ({len(messages)} messages)" for name, messages in state.queues.items()
    ]
    parts += [f"table `{name}` ({len(table.items)} items)" for name, table in state.tables.items()]
    parts += [
        f"log group `{name}` ({len(streams)} streams)" for name, streams in state.logs.items()
    ]
    return "Right now the account holds " + ", ".join(parts) + "."


def _rules(rng: random.Random) -> str:
    return f"{rng.choice(_UNTOUCHED)} {rng.choice(_RERUN)}"


def _context(rng: random.Random, state: CloudState) -> str:
    return f"{holdings(state)} {rng.choice(_STATE)} {rng.choice(_SDK)}"


def _spec(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(facts.steps, 1))
    notes = "".join(f"\n- {note}" for note in facts.notes)
    heading = rng.choice(("# Task", "## Runbook step", "# Job", "## Automation request"))
    title = facts.title[0].upper() + facts.title[1:]
    return (
        f"{heading}: {title}\n\n{rng.choice(_WHY)}\n\n{steps}\n{notes}\n\n"
        f"{_rules(rng)}\n\n{_context(rng, state)}\n"
    )


def _ticket(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    number = f"{rng.choice(_PREFIXES)}-{rng.randint(1000, 9999)}"
    body = " ".join(facts.steps + facts.notes)
    team = rng.choice(_TEAMS)
    return (
        f"{number} [{team}] {facts.title}\n\n{body}\n\n{rng.choice(_WHY)} {_rules(rng)}\n\n"
        f"{_context(rng, state)}\n"
    )


def _chat(facts: Facts, locale: str, state: CloudState, rng: random.Random) -> str:
    words = LOCALES[locale]
    steps = "\n".join(f"- {step}" for step in facts.steps + facts.notes)
    ask = rng.choice(("could you", "can you please", "would you", "I need you to"))
    return (
        f"{words.greeting}\n\n{ask} {facts.title}? {rng.choice(_WHY)} Here is what has to "
        f"happen:\n\n{steps}\n\n{_rules(rng)}\n\n{_context(rng, state)}\n\n{words.thanks}\n"
    )


STYLES: dict[str, Callable[[Facts, str, CloudState, random.Random], str]] = {
    "spec": _spec,
    "ticket": _ticket,
    "chat": _chat,
}
"""Prompt styles by name: a precise specification, a terse ticket, a chat message."""
