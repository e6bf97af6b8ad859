"""Prompt styles for generated sql tasks: the ways people ask a data question."""

from __future__ import annotations

import random
from collections.abc import Callable

from assay.families.sql.templates import Question, Schema

ENGINES = {"sqlite": "SQLite", "duckdb": "DuckDB"}
_TICKET_PREFIXES = ("DATA", "BI", "OPS", "FIN", "CARE", "CLM")
_GREETINGS = ("Hi,", "Hello,", "Hey team,", "Good morning,")
_SIGN_OFFS = ("Thanks!", "Thank you.", "Cheers,", "Many thanks.")


def _where(schema: Schema, engine: str) -> str:
    return f"`{schema.file}` ({ENGINES[engine]}, {schema.about})"


def spec(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A precise specification with headings."""
    del rng
    rules = "\n".join(f"- {line}" for line in question.spec)
    requirements = f"\n\n## Requirements\n\n{rules}" if rules else ""
    return (
        f"# Data request\n\nDatabase: {_where(schema, engine)}.\n\n## Question\n\n"
        f"{question.ask}{requirements}\n\n## Answer\n\nOne read-only SQL query.\n"
    )


def ticket(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A terse issue-tracker ticket."""
    key = f"{rng.choice(_TICKET_PREFIXES)}-{rng.randint(100, 9999)}"
    rules = "\n".join(f"* {line}" for line in question.spec)
    notes = f"\n\nNotes:\n{rules}" if rules else ""
    return f"**{key}** ({schema.file}, {ENGINES[engine]})\n\n{question.ask}{notes}\n\nsql pls\n"


def email(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A request by mail from someone in the business."""
    details = " ".join(question.spec)
    more = f"\n\n{details}" if details else ""
    return (
        f"{rng.choice(_GREETINGS)}\n\n{question.ask}{more}\n\n"
        f"The data is in {_where(schema, engine)}. Could you send me the SQL query that answers "
        f"this?\n\n{rng.choice(_SIGN_OFFS)}\n"
    )


def chat(question: Question, schema: Schema, engine: str, rng: random.Random) -> str:
    """A quick message in a team chat."""
    del rng
    details = "".join(f"\n- {line[0].lower()}{line[1:]}" for line in question.spec)
    return (
        f"quick one on {schema.file} ({ENGINES[engine]}): {question.ask[0].lower()}"
        f"{question.ask[1:]}{details}\nneed it as a single query\n"
    )


STYLES: dict[str, Callable[[Question, Schema, str, random.Random], str]] = {
    "spec": spec,
    "ticket": ticket,
    "email": email,
    "chat": chat,
}
