"""Static checks of a config task: settings, the cluster file, the expectations, solutions that
are YAML files and known-bad ones present."""

from __future__ import annotations

from assay.errors import TaskFormatError
from assay.families._leaks import hidden_copies
from assay.families.config.documents import YAML_SUFFIXES
from assay.families.config.expectations import expectations
from assay.families.config.spec import config_spec
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"


def lint_config_task(task: Task) -> list[Finding]:
    """Findings about the config-family parts of ``task``; empty when it is sound."""
    findings: list[Finding] = []
    try:
        spec = config_spec(task)
    except TaskFormatError as exc:
        return [_finding(str(exc))]
    if spec.cluster not in task.workspace:
        findings.append(
            _finding(f"workspace/{spec.cluster} does not exist", "describe the cluster")
        )
    try:
        expectations(task)
    except TaskFormatError as exc:
        findings.append(_finding(str(exc)))
    if not task.references():
        findings.append(_finding("solutions/reference/ does not exist"))
    if len(task.known_bad()) < 2:
        findings.append(
            _finding(
                "fewer than two known-bad solutions",
                "add solutions/bad-<label>/ for the mistakes the task is meant to catch",
                severity=Severity.WARNING,
            )
        )
    for name, files in sorted(task.solutions.items()):
        if not files:
            findings.append(_finding(f"solutions/{name} is empty"))
        for path in sorted(files):
            if not path.endswith(YAML_SUFFIXES):
                findings.append(_finding(f"solutions/{name}/{path} is not a YAML file"))
    shown = sorted(path for path in task.hidden if path in task.workspace)
    if shown:
        findings.append(_finding(f"hidden files are also in workspace/: {', '.join(shown)}"))
    findings += [
        _finding(f"workspace/{path} is a copy of {name}")
        for path, name in hidden_copies(task)
        if path not in shown
    ]
    return findings


def _finding(message: str, fix: str = "", *, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(check=CHECK, severity=severity, message=message, evidence=fix[:300])
