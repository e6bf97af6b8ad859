"""The audit: QA checks that prove each task sound, and the report they produce."""

from assay.audit.base import AuditCheck, AuditContext, CheckOutcome, SolutionVerdict
from assay.audit.checks import EmptySubmissionCheck, KnownBadCheck, LintCheck, ReferenceCheck
from assay.audit.clearance import Clearance, apply_clearances, clearance_for
from assay.audit.drift import Drift, LabelDrift, LabelShare, SeedMatch
from assay.audit.flaky import FlakyCheck
from assay.audit.headroom import HeadroomCheck
from assay.audit.judge_redteam import JudgeRedTeamCheck
from assay.audit.mutation import MutationCheck
from assay.audit.profile import apply_profile
from assay.audit.redteam import RedTeamCheck
from assay.audit.report import (
    AuditReport,
    Diversity,
    ExploitResult,
    MutationResult,
    RedTeamResult,
    SolutionResult,
    SurvivingMutant,
    TaskAudit,
    quarantine_lines,
    summary_line,
)
from assay.audit.runner import default_checks, run_audit, run_audit_into, select_checks
from assay.audit.sensitivity import SensitivityCheck
from assay.findings import Decision, Finding, Severity

__all__ = [
    "AuditCheck",
    "AuditContext",
    "AuditReport",
    "CheckOutcome",
    "Clearance",
    "Decision",
    "Diversity",
    "Drift",
    "EmptySubmissionCheck",
    "ExploitResult",
    "Finding",
    "FlakyCheck",
    "HeadroomCheck",
    "JudgeRedTeamCheck",
    "KnownBadCheck",
    "LabelDrift",
    "LabelShare",
    "LintCheck",
    "MutationCheck",
    "MutationResult",
    "RedTeamCheck",
    "RedTeamResult",
    "ReferenceCheck",
    "SeedMatch",
    "SensitivityCheck",
    "Severity",
    "SolutionResult",
    "SolutionVerdict",
    "SurvivingMutant",
    "TaskAudit",
    "apply_clearances",
    "apply_profile",
    "clearance_for",
    "default_checks",
    "quarantine_lines",
    "run_audit",
    "run_audit_into",
    "select_checks",
    "summary_line",
]
