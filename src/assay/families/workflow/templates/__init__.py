"""The generator's templates: multi-step workflows from real operations work."""

from __future__ import annotations

from assay.families.workflow.templates._base import (
    LOCALES,
    Draft,
    Facts,
    Template,
    render,
    variant,
)
from assay.families.workflow.templates.logs import TEMPLATES as LOGS
from assay.families.workflow.templates.messaging import TEMPLATES as MESSAGING
from assay.families.workflow.templates.storage import TEMPLATES as STORAGE
from assay.families.workflow.templates.tables import TEMPLATES as TABLES

TEMPLATES: tuple[Template, ...] = (*STORAGE, *MESSAGING, *TABLES, *LOGS)
"""Every template, in a stable order."""

__all__ = ["LOCALES", "TEMPLATES", "Draft", "Facts", "Template", "render", "variant"]
