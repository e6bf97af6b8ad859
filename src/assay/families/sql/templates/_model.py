"""What a sql question template is: a seeded recipe for one business question over one schema.

A template draws a :class:`Question` from a random generator and the task's locale formats: the
question as a person would ask it, the precise requirements, one reference query per reasonable
reading, and the known-bad queries real people write. Expected results are not part of it: the
generator runs the references on the databases in the sandbox, so a template cannot disagree
with its own queries. Queries are written with ``:name`` placeholders filled by :func:`sql`, which
writes each value as a SQL literal.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

_PLACEHOLDER = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)")
_MONTHS = {
    "en": "January February March April May June July August September October November December",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre",
}


@dataclass(frozen=True)
class Formats:
    """How a locale writes dates and amounts in a prompt."""

    locale: str
    date_style: Literal["iso", "us", "gb", "dotted", "fr", "es", "ja"]
    group: str
    """Thousands separator."""
    decimal: str

    def date(self, day: dt.date) -> str:
        """``day`` as people of this locale write it."""
        style = self.date_style
        if style == "us":
            return f"{_month('en', day)} {day.day}, {day.year}"
        if style == "gb":
            return f"{day.day} {_month('en', day)} {day.year}"
        if style == "dotted":
            return f"{day.day:02d}.{day.month:02d}.{day.year}"
        if style in ("fr", "es"):
            joiner = " de " if style == "es" else " "
            return f"{day.day}{joiner}{_month(style, day)}{joiner}{day.year}"
        if style == "ja":
            return f"{day.year}年{day.month}月{day.day}日"
        return day.isoformat()

    def amount(self, value: Decimal | int) -> str:
        """``value`` with two decimals and this locale's separators."""
        whole, cents = f"{Decimal(value):.2f}".split(".")
        digits = whole.lstrip("-")
        groups: list[str] = []
        while digits:
            groups.insert(0, digits[-3:])
            digits = digits[:-3]
        sign = "-" if whole.startswith("-") else ""
        return f"{sign}{self.group.join(groups)}{self.decimal}{cents}"


LOCALES: tuple[Formats, ...] = (
    Formats("en-US", "us", ",", "."),
    Formats("en-GB", "gb", ",", "."),
    Formats("de-DE", "dotted", ".", ","),
    Formats("fr-FR", "fr", "\u202f", ","),
    Formats("es-ES", "es", ".", ","),
    Formats("sv-SE", "iso", "\u00a0", ","),
    Formats("ja-JP", "ja", ",", "."),
)


def _month(language: str, day: dt.date) -> str:
    return _MONTHS[language].split()[day.month - 1]


@dataclass(frozen=True)
class Question:
    """One concrete question drawn from a template."""

    ask: str
    """The question as the requester puts it, values already in the locale's formats."""
    spec: tuple[str, ...]
    """Precise requirements, one a line: output columns, order, how edge cases count. Empty
    where the question is left underspecified on purpose."""
    references: dict[str, str]
    """``reference`` and, for each other reasonable reading, ``reference-<reading>``: queries."""
    bad: dict[str, str]
    """Known-bad queries by kebab-case label naming the mistake (``dropped-filter``)."""
    tags: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Schema:
    """A database from a real workflow, with seeded data."""

    name: str
    """Short name (``retail``), part of task ids and tags."""
    file: str
    """The visible database's file name in ``workspace/`` (``shop.sql``)."""
    about: str
    """One sentence saying what the database holds, for the prompt."""
    build: Callable[[random.Random], str]
    """The visible database as SQL text, from the generator alone."""


@dataclass(frozen=True)
class Template:
    """A named recipe for questions of one kind over one schema."""

    id: str
    """Stable kebab-case identifier, part of every generated task id."""
    schema: Schema
    difficulty: Literal["easy", "medium", "hard"]
    build: Callable[[random.Random, Formats], Question]
    """Draws one question. Must use only the given generator for randomness."""


def sql(text: str, **values: object) -> str:
    """``text`` with each ``:name`` replaced by ``values[name]`` written as a SQL literal."""

    def literal(match: re.Match[str]) -> str:
        return value_sql(values[match.group(1)])

    return " ".join(_PLACEHOLDER.sub(literal, text).split())


def value_sql(value: object) -> str:  # noqa: PLR0911 - one answer per type
    """``value`` as a SQL literal that SQLite and DuckDB read alike."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return f"'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"'{value.isoformat()}'"
    return "'" + str(value).replace("'", "''") + "'"


def inserts(table: str, rows: Sequence[Sequence[object]]) -> str:
    """One INSERT of ``rows`` into ``table``; empty text when there are none."""
    if not rows:
        return ""
    values = ",\n  ".join("(" + ", ".join(value_sql(v) for v in row) + ")" for row in rows)
    return f"INSERT INTO {table} VALUES\n  {values};\n"


def moment(rng: random.Random, start: dt.date, days: int) -> dt.datetime:
    """A time within ``days`` days from ``start``, on the minute; now and then exactly midnight
    or the last minute of a day, where date-range mistakes show."""
    day = start + dt.timedelta(days=rng.randrange(days))
    roll = rng.random()
    if roll < 0.1:
        return dt.datetime(day.year, day.month, day.day)
    if roll < 0.2:
        return dt.datetime(day.year, day.month, day.day, 23, 59)
    return dt.datetime(
        day.year, day.month, day.day, rng.randint(6, 22), rng.choice((0, 15, 30, 45))
    )


def money(rng: random.Random, low: int, high: int) -> Decimal:
    """An amount between ``low`` and ``high`` with cents, rounder now and then."""
    if rng.random() < 0.3:
        return Decimal(rng.randint(low, high))
    return Decimal(rng.randint(low * 100, high * 100)) / 100


def month_range(
    rng: random.Random,
    *,
    kinds: Sequence[str] = ("month", "quarter", "half"),
    months_of_year: int = 12,
) -> tuple[dt.date, dt.date, str]:
    """The first and last day of a month, a quarter or a half of 2024 ending by month
    ``months_of_year``, and which of them it is."""
    kind = rng.choice(list(kinds))
    if kind == "month":
        first_month, months = rng.randint(1, months_of_year), 1
    elif kind == "quarter":
        first_month, months = 3 * rng.randint(0, months_of_year // 3 - 1) + 1, 3
    else:
        first_month, months = rng.choice((1, 7) if months_of_year == 12 else (1,)), 6
    year = 2024
    first = dt.date(year, first_month, 1)
    end_month = first_month + months
    after = dt.date(year + end_month // 13, (end_month - 1) % 12 + 1, 1)
    return first, after - dt.timedelta(days=1), kind
