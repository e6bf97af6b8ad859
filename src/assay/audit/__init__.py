"""The audit: QA checks that prove each task sound, and the report they produce."""

from assay.audit.base import AuditCheck, AuditContext, CheckOutcome, SolutionVerdict
from assay.audit.checks import EmptySubmissionCheck, KnownBadCheck, LintCheck, ReferenceCheck
from assay.audit.flaky import FlakyCheck
from assay.audit.headroom import HeadroomCheck
from assay.audit.judge_redteam import JudgeRedTeamCheck
from assay.audit.mutation import MutationCheck
from assay.audit.profile import apply_profile
from assay.audit.redteam import RedTeamCheck
from assay.audit.report import AuditReport, SolutionResult, TaskAudit, summary_line
from assay.audit.runner import default_checks, run_audit, run_audit_into, select_checks
from assay.audit.sensitivity import SensitivityCheck
from assay.findings import Decision, Finding, Severity

__all__ = [
    "AuditCheck",
    "AuditContext",
    "AuditReport",
    "CheckOutcome",
    "Decision",
    "EmptySubmissionCheck",
    "Finding",
    "FlakyCheck",
    "HeadroomCheck",
    "JudgeRedTeamCheck",
    "KnownBadCheck",
    "LintCheck",
    "MutationCheck",
    "RedTeamCheck",
    "ReferenceCheck",
    "SensitivityCheck",
    "Severity",
    "SolutionResult",
    "SolutionVerdict",
    "TaskAudit",
    "apply_profile",
    "default_checks",
    "run_audit",
    "run_audit_into",
    "select_checks",
    "summary_line",
]
