"""The audit: QA checks that prove each task sound, and the report they produce."""

from assay.audit.base import AuditCheck, AuditContext, CheckOutcome, SolutionVerdict
from assay.audit.checks import EmptySubmissionCheck, KnownBadCheck, LintCheck, ReferenceCheck
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
    "apply_profile",
    "default_checks",
    "run_audit",
    "run_audit_into",
    "select_checks",
    "summary_line",
]
