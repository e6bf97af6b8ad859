"""Static checks of a repo task: settings and cases read, both kinds of case present, every
case's module in the reference, no project module named like the standard library (the harness
would import the standard library's instead), and nothing hidden in the workspace."""

from __future__ import annotations

import sys

from assay.errors import TaskFormatError
from assay.families._leaks import hidden_copies
from assay.families.repo.cases import FAIL_TO_PASS, PASS_TO_PASS, repo_cases, repo_config
from assay.families.repo.solutions import module_file
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"


def lint_repo_task(task: Task) -> list[Finding]:
    """Findings about the repo-family parts of ``task``; empty when it is sound."""
    try:
        config = repo_config(task)
        case_file = repo_cases(task)
    except TaskFormatError as exc:
        return [_error(str(exc))]
    findings: list[Finding] = []
    kinds = {case.kind for case in case_file.cases}
    if FAIL_TO_PASS not in kinds:
        findings.append(_error("hidden/cases.json has no fail-to-pass case: nothing to change"))
    if PASS_TO_PASS not in kinds:
        findings.append(_warning("hidden/cases.json has no pass-to-pass case: breakage unseen"))
    if not task.workspace:
        findings.append(_error("the workspace is empty: a repo task starts from a project"))
    for name, files in task.references().items():
        for case in case_file.cases:
            module = (case.call or case.cli or ":").split(":")[0]
            if module_file(files, config.paths, module) is None:
                findings.append(_error(f"solutions/{name} has no module {module} ({case.id})"))
                break
    for path in task.workspace:
        top = path.split("/")[0].removesuffix(".py")
        if top in sys.stdlib_module_names and (path.endswith(".py") or "/" in path):
            findings.append(_error(f"workspace/{path} is named like the standard library's {top}"))
    findings += _hidden_in_workspace(task)
    for reading in case_file.readings:
        if f"reference-{reading}" not in task.solutions:
            findings.append(_error(f"the reading {reading!r} has no solutions/reference-{reading}"))
    return findings


def _hidden_in_workspace(task: Task) -> list[Finding]:
    return [_error(f"workspace/{path} is a copy of {name}") for path, name in hidden_copies(task)]


def _error(message: str) -> Finding:
    return Finding(check=CHECK, severity=Severity.ERROR, message=message)


def _warning(message: str) -> Finding:
    return Finding(check=CHECK, severity=Severity.WARNING, message=message)
