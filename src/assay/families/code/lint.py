"""Static checks of a code task: settings, hidden cases, and nothing hidden shown to the agent."""

from __future__ import annotations

from assay.errors import TaskFormatError
from assay.families.code.checking import checker_problem
from assay.families.code.config import Case, CodeConfig, code_config, hidden_cases
from assay.families.code.raising import promised_exceptions
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"
MIN_LEAK_LINE = 30


def lint_code_task(task: Task) -> list[Finding]:
    """Findings about the code-family parts of ``task``; empty when it is sound."""
    try:
        config = code_config(task)
        cases = hidden_cases(task)
    except TaskFormatError as exc:
        return [_error(str(exc))]
    findings: list[Finding] = []
    problem = checker_problem(task, config)
    if problem is not None:
        findings.append(_error(str(problem)))
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
    findings += _unexpected_promises(task, cases)
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


def _unexpected_promises(task: Task, cases: tuple[Case, ...]) -> list[Finding]:
    """A prompt that promises an exception needs a case that expects it, or nothing checks it."""
    expected = {case.raises for case in cases}
    return [
        _error(
            f"prompt.md promises {name} but no hidden case expects it",
            f'add a case with "raises": "{name}" (cases.json format 2)',
        )
        for name in sorted(promised_exceptions(task.prompt) - expected)
    ]


def _copied_hidden(task: Task) -> list[Finding]:
    hidden = {data: path for path, data in task.hidden.items() if data.strip()}
    return [
        _error(f"workspace/{path} is a copy of hidden/{hidden[data]}")
        for path, data in task.workspace.items()
        if data in hidden
    ]


def _error(message: str, evidence: str = "") -> Finding:
    return Finding(check=CHECK, severity=Severity.ERROR, message=message, evidence=evidence[:300])
