"""The ``checker-crash`` check: a code task's checker judges wrong outputs, it does not crash.

A checker that raises on a candidate's output still fails the case (the output came from the
candidate), but by accident rather than by judgement, and a checker that returns something other
than a bool cannot judge at all. This check feeds the task's checker, in the sandbox, the outputs
of every known-bad solution and outputs of the wrong type for every case (``None``, a bool, an
int, a float, a string, a list, an object), and reports what it did with them: a non-bool answer
is an error, a crash or a checker that never answers is a warning.
"""

from __future__ import annotations

from assay.audit.base import AuditContext, CheckOutcome
from assay.errors import TaskFormatError
from assay.families.code.checking import CheckAnswer, CheckItem, checker_problem, run_checker
from assay.families.code.config import Case, CodeConfig, code_config, hidden_cases
from assay.families.code.family import run_cases
from assay.families.code.outputs import Returned
from assay.findings import Finding, Severity
from assay.tasks.model import Task

WRONG_TYPES: tuple[object, ...] = (None, True, 0, -1.5, "", "?", [], [None], {}, {"": None})
"""Outputs of every plain type, fed to the checker wherever the expected output is another type."""
SHOWN = 3


class CheckerCrashCheck:
    """A code task's checker answers True or False on wrong outputs, and never crashes."""

    name = "checker-crash"

    def run(self, task: Task, context: AuditContext) -> CheckOutcome:
        """Run the checker on known-bad and wrong-type outputs; nothing to do without one."""
        if task.family != "code":
            return CheckOutcome()
        try:
            config = code_config(task)
            cases = [case for case in hidden_cases(task) if case.raises is None]
        except TaskFormatError:
            return CheckOutcome()  # lint reports it
        if config.checker is None or checker_problem(task, config) is not None:
            return CheckOutcome()
        items = _known_bad_items(task, config, cases, context) + _wrong_type_items(cases)
        try:
            answers, _ = run_checker(context.sandbox, task, config, items)
        except TaskFormatError as exc:
            return CheckOutcome(findings=[_finding(Severity.ERROR, f"cannot run: {exc}")])
        return CheckOutcome(findings=_findings(answers))


def _known_bad_items(
    task: Task, config: CodeConfig, cases: list[Case], context: AuditContext
) -> list[CheckItem]:
    items = []
    for label, files in task.known_bad().items():
        outputs = run_cases(
            context.sandbox,
            workspace=task.workspace,
            solution=files,
            function=config.function,
            entrypoint=config.entrypoint,
            cases=[(case.id, case.args) for case in cases],
            limits=task.spec.limits,
        )
        for case in cases:
            outcome = outputs.outcomes.get(case.id)
            if isinstance(outcome, Returned):
                items.append(
                    CheckItem(f"{label} {case.id}", case.args, outcome.value, case.expected)
                )
    return items


def _wrong_type_items(cases: list[Case]) -> list[CheckItem]:
    return [
        CheckItem(f"{type(output).__name__} {output!r} {case.id}", case.args, output, case.expected)
        for case in cases
        for output in WRONG_TYPES
        if type(output) is not type(case.expected)
    ]


def _findings(answers: dict[str, CheckAnswer]) -> list[Finding]:
    non_bool = [name for name, answer in answers.items() if answer.returned_non_bool]
    crashed = [
        name
        for name, answer in answers.items()
        if not answer.judged and not answer.returned_non_bool
    ]
    findings = []
    if non_bool:
        findings.append(
            _finding(
                Severity.ERROR,
                f"the checker returns something other than a bool on {len(non_bool)} outputs "
                "(make check() return True or False)",
                _examples(non_bool, answers),
            )
        )
    if crashed:
        findings.append(
            _finding(
                Severity.WARNING,
                f"the checker crashes on {len(crashed)} wrong outputs instead of rejecting them "
                "(make check() return False for outputs it cannot read)",
                _examples(crashed, answers),
            )
        )
    return findings


def _examples(names: list[str], answers: dict[str, CheckAnswer]) -> str:
    return "; ".join(f"{name}: {answers[name].evidence}" for name in names[:SHOWN])[:500]


def _finding(severity: Severity, message: str, evidence: str = "") -> Finding:
    return Finding(
        check=CheckerCrashCheck.name, severity=severity, message=message, evidence=evidence
    )
