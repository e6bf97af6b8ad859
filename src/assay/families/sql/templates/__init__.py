"""The bank of question templates behind ``assay generate sql``, over four schemas."""

from __future__ import annotations

from assay.families.sql.templates import claims, hospital, ledger, retail
from assay.families.sql.templates._model import (
    LOCALES,
    Formats,
    Question,
    Schema,
    Template,
    sql,
    value_sql,
)

TEMPLATES: tuple[Template, ...] = (
    *retail.TEMPLATES,
    *hospital.TEMPLATES,
    *claims.TEMPLATES,
    *ledger.TEMPLATES,
)

__all__ = [
    "LOCALES",
    "TEMPLATES",
    "Formats",
    "Question",
    "Schema",
    "Template",
    "sql",
    "value_sql",
]
