"""The config family's template bank: NetworkPolicy, RBAC, resource limits, security contexts
and Services."""

from assay.families.config.templates import network, ports, rbac, workloads
from assay.families.config.templates._kit import LOCALES, Problem, Reading, Template

TEMPLATES: tuple[Template, ...] = (
    *network.TEMPLATES,
    *ports.TEMPLATES,
    *rbac.TEMPLATES,
    *workloads.TEMPLATES,
)

__all__ = ["LOCALES", "TEMPLATES", "Problem", "Reading", "Template"]
