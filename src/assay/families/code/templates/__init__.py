"""The bank of problem templates behind ``assay generate code``."""

from __future__ import annotations

from assay.families.code.templates import (
    algorithms,
    arithmetic,
    locale_formats,
    parsing,
    strings,
    structures,
)
from assay.families.code.templates._model import Problem, Template

TEMPLATES: tuple[Template, ...] = (
    *parsing.TEMPLATES,
    *strings.TEMPLATES,
    *arithmetic.TEMPLATES,
    *locale_formats.TEMPLATES,
    *structures.TEMPLATES,
    *algorithms.TEMPLATES,
)

__all__ = ["TEMPLATES", "Problem", "Template"]
