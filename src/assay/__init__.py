"""assay: build, audit and run verifiable environments for LLM agents.

The public names below are imported on first use (PEP 562), so that importing ``assay`` (and
starting the ``assay`` command) does not load pydantic, the sandbox or the families until they
are needed; ``assay.load_task`` and the rest work and type-check as plain attributes.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from assay.errors import (
    AssayError,
    InputError,
    SandboxError,
    SandboxUnavailableError,
    SolutionFormatError,
    StoreError,
    TaskFormatError,
    UnknownFamilyError,
    VerifierError,
)

__version__ = "0.1.0"

if TYPE_CHECKING:
    from assay.audit import AuditCheck, AuditReport, Decision, run_audit
    from assay.families import Family, get_family, register_family
    from assay.findings import Finding, Severity
    from assay.sandbox import (
        BubblewrapSandbox,
        ExecResult,
        LocalSandbox,
        PoolSandbox,
        Sandbox,
        open_sandbox,
    )
    from assay.store import Store
    from assay.tasks import Limits, Split, Task, TaskSet, TaskSpec, load_task, save_task
    from assay.verdicts import Criterion, Status, Verdict

_LAZY = {
    "assay.audit": ("AuditCheck", "AuditReport", "Decision", "run_audit"),
    "assay.families": ("Family", "get_family", "register_family"),
    "assay.findings": ("Finding", "Severity"),
    "assay.sandbox": (
        "BubblewrapSandbox",
        "ExecResult",
        "LocalSandbox",
        "PoolSandbox",
        "Sandbox",
        "open_sandbox",
    ),
    "assay.store": ("Store",),
    "assay.tasks": ("Limits", "Split", "Task", "TaskSet", "TaskSpec", "load_task", "save_task"),
    "assay.verdicts": ("Criterion", "Status", "Verdict"),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use and keep the name here."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE_OF))


__all__ = [
    "AssayError",
    "AuditCheck",
    "AuditReport",
    "BubblewrapSandbox",
    "Criterion",
    "Decision",
    "ExecResult",
    "Family",
    "Finding",
    "InputError",
    "Limits",
    "LocalSandbox",
    "PoolSandbox",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailableError",
    "Severity",
    "SolutionFormatError",
    "Split",
    "Status",
    "Store",
    "StoreError",
    "Task",
    "TaskFormatError",
    "TaskSet",
    "TaskSpec",
    "UnknownFamilyError",
    "Verdict",
    "VerifierError",
    "__version__",
    "get_family",
    "load_task",
    "open_sandbox",
    "register_family",
    "run_audit",
    "save_task",
]
