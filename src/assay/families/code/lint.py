"""Static checks of a code task: settings, hidden cases, and nothing hidden shown to the agent."""

from __future__ import annotations

from assay.errors import TaskFormatError
from assay.families.code.checking import load_checker
from assay.families.code.config import Case, CodeConfig, code_config, hidden_cases
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"
MIN_LEAK_LINE = 30


def lint_code_task(task: Task) -> list[Finding]:
    """Findings about the code-family parts of ``task``; empty when it is sound."""
    try:
        config = code_config(task)
        cases = hidden_cases(task)
        load_checker(task, config)
    except TaskFormatError as exc:
        return [_error(str(exc))]
    findings: list[Finding] = []
    if config.function not in task.prompt:
        findings.append(_error(f"prompt.md never names the function {config.function!r}"))
    for name, files in task.references().items():
        if config.entrypoint not in files:
            findings.append(_error(f"solutions/{name} has no {config.entrypoint}"))
    visible = {"prompt.md": task.prompt} | {
        f"workspace/{path}": data.decode(errors="replace") for path, data in task.workspace.items()
    }
    findings += _shown_cases(config, cases, visible)
    findings += _shown_reference(task, config, visible)
    findings += _copied_hidden(task)
    return findings


def call_text(function: str, args: list[object]) -> str:
    """How a call is written in prompts: ``f('a', 1)``."""
    return f"{function}({', '.join(repr(arg) for arg in args)})"


def _shown_cases(
    config: CodeConfig, cases: tuple[Case, ...], visible: dict[str, str]
) -> list[Finding]:
    findings = []
    for case in cases:
        call = call_text(config.function, case.args)
        for where, text in visible.items():
            if call in text:
                findings.append(_error(f"hidden case {case.id} is shown in {where}", call))
    return findings


def _shown_reference(task: Task, config: CodeConfig, visible: dict[str, str]) -> list[Finding]:
    findings = []
    for name, files in task.references().items():
        source = files.get(config.entrypoint, b"").decode(errors="replace")
        for line in source.splitlines():
            stripped = line.strip()
            if len(stripped) < MIN_LEAK_LINE or stripped.startswith(("def ", "#", '"', "'")):
                continue
            for where, text in visible.items():
                if stripped in text:
                    findings.append(
                        _error(f"a line of solutions/{name} appears in {where}", stripped)
                    )
    return findings


def _copied_hidden(task: Task) -> list[Finding]:
    hidden = {data: path for path, data in task.hidden.items() if data.strip()}
    return [
        _error(f"workspace/{path} is a copy of hidden/{hidden[data]}")
        for path, data in task.workspace.items()
        if data in hidden
    ]


def _error(message: str, evidence: str = "") -> Finding:
    return Finding(check=CHECK, severity=Severity.ERROR, message=message, evidence=evidence[:300])
