"""The generator's templates: multi-step workflows from real operations work."""

from __future__ import annotations

from assay.families.workflow.templates._base import (
    LANGUAGES,
    LOCALES,
    Draft,
    Facts,
    Reading,
    Template,
    Text,
    Wording,
    render,
    text,
    variant,
)
from assay.families.workflow.templates.logs import TEMPLATES as LOGS
from assay.families.workflow.templates.messaging import TEMPLATES as MESSAGING
from assay.families.workflow.templates.storage import TEMPLATES as STORAGE
from assay.families.workflow.templates.tables import TEMPLATES as TABLES

TEMPLATES: tuple[Template, ...] = (*STORAGE, *MESSAGING, *TABLES, *LOGS)
"""Every template, in a stable order."""

__all__ = [
    "LANGUAGES",
    "LOCALES",
    "TEMPLATES",
    "Draft",
    "Facts",
    "Reading",
    "Template",
    "Text",
    "Wording",
    "render",
    "text",
    "variant",
]
