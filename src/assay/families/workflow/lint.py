"""Static checks of a workflow task: settings and states that parse (every reading's), a task
that asks for a change in every reading, known-bad scripts present, nothing of the expected
state shown to the agent."""

from __future__ import annotations

import re

from assay.errors import TaskFormatError
from assay.families._leaks import hidden_copies_rewritten
from assay.families.workflow.config import (
    SCRIPT,
    expected_states,
    initial_state,
    workflow_config,
)
from assay.families.workflow.phrases import RERUN
from assay.findings import Finding, Severity
from assay.tasks.model import Task

CHECK = "lint"


def lint_workflow_task(task: Task) -> list[Finding]:
    """Findings about the workflow parts of ``task``; empty when it is sound."""
    try:
        config = workflow_config(task)
        initial = initial_state(task, config)
        readings = expected_states(task, config)
    except TaskFormatError as exc:
        return [_finding(str(exc))]
    findings: list[Finding] = []
    for reading, expected in readings.items():
        if initial == expected:
            which = f"reading {reading}" if reading else "the expected state"
            findings.append(
                _finding(
                    f"{which} is the initial state: doing nothing passes",
                    "make the task ask for a change",
                )
            )
    for name, files in task.solutions.items():
        if SCRIPT not in files:
            findings.append(_finding(f"solutions/{name} has no {SCRIPT}", f"add {SCRIPT}"))
    if len(task.known_bad()) < 2:
        findings.append(_finding("fewer than two known-bad solutions", "add bad-<label> solutions"))
    expected_text = task.hidden.get(config.expected, b"")
    for name, data in task.workspace.items():
        if expected_text and data == expected_text:
            findings.append(
                _finding(
                    f"workspace/{name} is the expected state",
                    "keep the expected state in hidden/ only",
                    Severity.ERROR,
                )
            )
    findings += [
        _finding(
            f"workspace/{path} is {name} written another way",
            "keep the expected state in hidden/ only",
            Severity.ERROR,
        )
        for path, name in hidden_copies_rewritten(task)
    ]
    unchecked = config.rerun == "off" or (config.rerun == "scored" and config.rerun_weight == 0)
    promise = promised_rerun(task.prompt)
    if unchecked and promise is not None:
        findings.append(
            _finding(
                f"prompt.md promises that a second run changes nothing ({promise!r}), but "
                f'rerun = "{config.rerun}" leaves it unchecked',
                'set [workflow] rerun = "required" (or "scored" with a weight)',
            )
        )
    return findings


_RERUN_WORDS = re.compile(
    r"\bidempot\w*|\bsecond run\b|\brun(?:ning)? it twice\b|\ba rerun must\b|\bno-op\b"
    r"|\bzweiter lauf\b|\bzweimal ausgeführt|\bnoch einmal laufen"
    r"|\bdeuxième exécution|\bdeux exécutions|\bune relance ne doit",
    re.IGNORECASE,
)


def promised_rerun(prompt: str) -> str | None:
    """The words of ``prompt`` that promise a rerun changes nothing (the generator's phrases,
    in every language it writes, and the usual words for it), or None."""
    text = " ".join(prompt.split())
    for pool in RERUN.values():
        for sentence in pool:
            if sentence in text:
                return sentence
    found = _RERUN_WORDS.search(text)
    return None if found is None else found.group(0)


def _finding(message: str, fix: str = "", severity: Severity = Severity.ERROR) -> Finding:
    return Finding(check=CHECK, severity=severity, message=message + (f" ({fix})" if fix else ""))
