"""Templates: (being written)."""

from __future__ import annotations

from assay.families.code.templates._model import Template

TEMPLATES: tuple[Template, ...] = ()
