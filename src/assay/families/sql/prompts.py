"""Prompt styles for generated sql tasks: the ways people ask a data question.

Each style draws its wording from the generator (headings, greetings, why the answer is needed),
so that two tasks of one template and style read as two requests, not as one with its dates
changed."""

from __future__ import annotations

import random
from collections.abc import Callable

from assay.families.sql.templates import Question, Schema

ENGINES = {"sqlite": "SQLite", "duckdb": "DuckDB"}
_TICKET_PREFIXES = ("DATA", "BI", "OPS", "FIN", "CARE", "CLM", "REP", "ANL")
_GREETINGS = ("Hi,", "Hello,", "Hey team,", "Good morning,", "Hi there,", "Dear data team,")
_SIGN_OFFS = ("Thanks!", "Thank you.", "Cheers,", "Many thanks.", "Best regards,", "Ta!")
_HEADINGS = ("Data request", "Query specification", "Analytics request", "Report definition")
_PURPOSES = (
    "It is for the monthly management pack.",
    "The auditors asked for this.",
    "We need it before Friday's planning meeting.",
    "This feeds a dashboard tile, so it has to be exact.",
    "A manager wants to double-check a number in last week's report.",
    "We are comparing this with the figures from the old system.",
    "Finance needs it to close the period.",
    "It goes into the regulator's quarterly return.",
    "The operations lead wants it for a staffing decision.",
    "We will schedule this query to run every night.",
    "It answers a complaint we received.",
    "The numbers go into a slide for the board.",
)
_PEOPLE = (
    "Priya (finance)",
    "Marco (operations)",
    "Aiko (customer care)",
    "Jonas (controlling)",
    "Fatima (compliance)",
    "Lars (planning)",
    "Chloé (marketing)",
    "Tomás (audit)",
    "Nkechi (data platform)",
    "Mei (product)",
    "Olek (procurement)",
    "Sara (risk)",
)
_CHAT_OPENERS = ("quick one on", "can someone pull this from", "need a query against", "q about")


def _where(schema: Schema, engine: str) -> str:
    return f"`{schema.file}` ({ENGINES[engine]}, {schema.about})"


def spec(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A precise specification with headings."""
    rules = "\n".join(f"- {line}" for line in question.spec)
    requirements = f"\n\n## Requirements\n\n{rules}" if rules else ""
    return (
        f"# {rng.choice(_HEADINGS)}\n\nDatabase: {_where(schema, engine)}.\n\n"
        f"## Question\n\n{question.ask} {rng.choice(_PURPOSES)}{requirements}\n\n"
        f"## Answer\n\nOne read-only SQL query.\n\nRequested by {rng.choice(_PEOPLE)}.\n"
    )


def ticket(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A terse issue-tracker ticket."""
    key = f"{rng.choice(_TICKET_PREFIXES)}-{rng.randint(100, 9999)}"
    rules = "\n".join(f"* {line}" for line in question.spec)
    notes = f"\n\nNotes:\n{rules}" if rules else ""
    return (
        f"**{key}** ({schema.file}, {ENGINES[engine]})\n\n{question.ask}{notes}\n\n"
        f"Context: {rng.choice(_PURPOSES)}\nReporter: {rng.choice(_PEOPLE)}\n\nsql pls\n"
    )


def email(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A request by mail from someone in the business."""
    details = " ".join(question.spec)
    more = f"\n\n{details}" if details else ""
    return (
        f"{rng.choice(_GREETINGS)}\n\n{question.ask} {rng.choice(_PURPOSES)}{more}\n\n"
        f"The data is in {_where(schema, engine)}. Could you send me the SQL query that answers "
        f"this?\n\n{rng.choice(_SIGN_OFFS)}\n{rng.choice(_PEOPLE).split()[0]}\n"
    )


def chat(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A quick message in a team chat."""
    details = "".join(f"\n- {line[0].lower()}{line[1:]}" for line in question.spec)
    purpose = rng.choice(_PURPOSES)
    who = rng.choice(_PEOPLE).split()[0].lower()
    return (
        f"{who}: {rng.choice(_CHAT_OPENERS)} {schema.file} ({ENGINES[engine]}): "
        f"{question.ask[0].lower()}{question.ask[1:]}{details}\n"
        f"({purpose[0].lower()}{purpose[1:-1]}) need it as a single query\n"
    )


STYLES: dict[str, Callable[[Question, Schema, str, random.Random], str]] = {
    "spec": spec,
    "ticket": ticket,
    "email": email,
    "chat": chat,
}
