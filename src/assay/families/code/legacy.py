"""Legacy verifiers: an imported benchmark's own ``check(candidate)``, run beside the candidate.

Where an importer cannot turn a benchmark's check into hidden cases judged outside the sandbox
(it inspects properties of the result, compares with a tolerance cases cannot express, or its
calls cannot be replayed), the task keeps the check as ``hidden/<code.legacy_check>`` and is
verified by :mod:`assay.families.code._legacy_runner`: one sandbox job in which the check calls
the candidate, as the benchmark's harness did. The job's record comes out of a process the
candidate shares, so it cannot be believed: such a task is exploitable by construction. Lint
makes it a finding that needs review (the audit quarantines the task, never accepts it), and
the verdict's evidence says so.
"""

from __future__ import annotations

import json
import secrets
from importlib.resources import files as package_files

from assay.families.code.config import CodeConfig
from assay.families.code.records import NotPlainError, parse_plain
from assay.findings import Finding, Severity
from assay.sandbox import PACKAGES_DIR
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Criterion

_SOURCES = package_files("assay.families.code")
LEGACY_RUNNER = _SOURCES.joinpath("_codec.py").read_text(encoding="utf-8") + _SOURCES.joinpath(
    "_legacy_runner.py"
).read_text(encoding="utf-8")
CRITERION = "legacy-check"
WARNING = (
    "legacy in-sandbox verifier: the original check runs in the sandbox together with the "
    "candidate, which can tamper with it; exploitable by construction"
)


def run_legacy(
    sandbox: Sandbox, task: Task, config: CodeConfig, solution: Files
) -> tuple[Criterion, ExecResult]:
    """Run the task's legacy check against ``solution``; raises
    :class:`assay.errors.SandboxError` when the sandbox fails."""
    check = config.legacy_check or ""
    nonce = f"@assay-legacy:{secrets.token_hex(8)}:"
    job = {
        "nonce": nonce,
        "function": config.function,
        "entrypoint": config.entrypoint,
        "check": check,
        "path": [PACKAGES_DIR] if config.imports else [],
    }
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", LEGACY_RUNNER],
        files={**task.workspace, **solution, check: task.hidden.get(check, b"")},
        limits=task.spec.limits,
        stdin=json.dumps(job).encode(),
        packages=config.imports,
    )
    passed, evidence = _outcome(result, nonce)
    return Criterion(name=CRITERION, passed=passed, evidence=evidence[:300]), result


def _outcome(result: ExecResult, nonce: str) -> tuple[bool, str]:
    lines = [line[len(nonce) :] for line in result.stdout.split("\n") if line.startswith(nonce)]
    if len(lines) != 1:
        count = len(lines)
        return False, f"the check gave {count} records instead of one (exit {result.exit_code})"
    try:
        record = parse_plain(lines[0])
    except NotPlainError as exc:
        return False, f"the check's record is not plain data: {exc}"
    if record == {"passed": True} and result.exit_code == 0:
        return True, f"the original check passed ({WARNING})"
    if isinstance(record, dict) and isinstance(record.get("failed"), str):
        return False, f"the original check failed: {record['failed'][-250:]}"
    return False, f"the check ended without a verdict (exit {result.exit_code})"


def legacy_finding(task: Task, config: CodeConfig) -> Finding | None:
    """The lint finding of a task with a legacy verifier: a warning that needs review, so the
    audit quarantines the task; None for a task without one."""
    if config.legacy_check is None:
        return None
    where = f"{task.id}/hidden/{config.legacy_check}"
    if config.legacy_check not in task.hidden:
        return Finding(
            check="lint",
            severity=Severity.ERROR,
            message=f"{where} is missing (code.legacy_check names it)",
        )
    return Finding(
        check="lint",
        severity=Severity.WARNING,
        review=True,
        message=f"{where} is a {WARNING}: quarantined until a person reviews it or its "
        "check is turned into hidden cases",
    )
