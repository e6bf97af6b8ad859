"""Static checks of a code task: settings, hidden cases, nothing hidden shown to the agent, and
a reference that imports only what the task declares."""

from __future__ import annotations

import ast
import sys
from pathlib import PurePosixPath

from assay.errors import TaskFormatError
from assay.families.code.checking import checker_problem
from assay.families.code.config import Case, CodeConfig, code_config, hidden_cases
from assay.families.code.raising import promised_exceptions
from assay.families.code.rubric import task_rubric
from assay.findings import Finding, Severity
from assay.sandbox import package_modules
from assay.tasks.model import Task

CHECK = "lint"
MIN_LEAK_LINE = 30


def lint_code_task(task: Task) -> list[Finding]:
    """Findings about the code-family parts of ``task``; empty when it is sound."""
    try:
        config = code_config(task)
        cases = hidden_cases(task)
        task_rubric(task)
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
    findings += _undeclared_imports(task, config)
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


def _undeclared_imports(task: Task, config: CodeConfig) -> list[Finding]:
    """A reference that imports a package the task does not declare passes nowhere: the sandbox
    offers the standard library and ``code.imports`` only."""
    declared = set(config.imports) | package_modules(config.imports)
    findings = []
    for name, files in task.references().items():
        local = {_module_name(path) for path in [*files, *task.workspace]}
        allowed = declared | local | set(sys.stdlib_module_names) | {"__future__"}
        for path, data in sorted(files.items()):
            for module, line in _imported(path, data):
                if module not in allowed:
                    findings.append(
                        _error(
                            f"solutions/{name}/{path} imports {module!r}, which is neither in the "
                            "standard library nor in code.imports (declare it there, or use the "
                            "standard library)",
                            line,
                        )
                    )
    return findings


def _imported(path: str, data: bytes) -> list[tuple[str, str]]:
    """Top-level modules a Python file imports absolutely, each with its line."""
    if not path.endswith(".py"):
        return []
    try:
        text = data.decode()
        tree = ast.parse(text, filename=path)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []  # a reference that does not compile fails in the audit's own run
    lines = text.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        line = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
        found += [(name.partition(".")[0], line) for name in names]
    return found


def _module_name(path: str) -> str:
    """The top-level module a file of the solution or workspace provides."""
    top = PurePosixPath(path).parts[0]
    return top.removesuffix(".py")


def _copied_hidden(task: Task) -> list[Finding]:
    hidden = {data: path for path, data in task.hidden.items() if data.strip()}
    return [
        _error(f"workspace/{path} is a copy of hidden/{hidden[data]}")
        for path, data in task.workspace.items()
        if data in hidden
    ]


def _error(message: str, evidence: str = "") -> Finding:
    return Finding(check=CHECK, severity=Severity.ERROR, message=message, evidence=evidence[:300])
