"""assay: build, audit and run verifiable environments for LLM agents."""

__version__ = "0.1.0"

from assay.audit import AuditCheck, AuditReport, Decision, run_audit
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
