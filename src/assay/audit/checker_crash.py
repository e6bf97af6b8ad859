"""The ``checker-crash`` check: a code task's checker judges wrong outputs, it does not crash.

A checker that raises on a candidate's output still fails the case (the output came from the
candidate), but by accident rather than by judgement, and a checker that returns something other
than a bool cannot judge at all. This check feeds the task's checker, in the sandbox, the outputs
of every known-bad solution and outputs of the wrong type for every case (``None``, a bool, an
int, a float, a string, a list, an object), and reports what it did with them: a non-bool answer
is an error, a crash or a checker that never answers is a warning. One wrong-type output that
the checker accepts on every case (a ``{}`` it lets through, say) is an error: an attempt that
returns that constant passes without solving anything.

It also times the checker on the task's own expected outputs. A checker that gives no verdict on
them within the task's limits makes every verification of the task an ``error``: that is an
error here. One that takes more than half its time limit on them is a warning: a slower host
would make it so.

And it feeds the checker a near miss of each expected output (an int moved by one, a float by
1% and at least 0.5, a string or a list grown by an item: close to what the sensitivity check
puts in place of an expected value, which checker tasks do not get). A checker that accepts
the near misses of more than half the cases may judge a property of the output rather than its
value ("a number between the smallest and the largest" for a median, which any element
passes): a warning that needs a person, since some properties are what the task asks. A list or
a dict also gets a near miss of the same shape (one element of the list in place of another
that differs from it, one value of the dict changed), judged apart: a checker that looks only at
the length, the keys or where the items come from ("k elements of the input" for the k largest,
in any order) refuses every grown output and accepts these.
"""

from __future__ import annotations

import copy
import math

from assay.audit.base import AuditContext, CheckOutcome
from assay.errors import CheckerError, TaskFormatError
from assay.families.code.checking import CheckAnswer, CheckItem, checker_problem, run_checker
from assay.families.code.config import (
    Case,
    CodeConfig,
    code_config,
    hidden_case_file,
    hidden_cases,
)
from assay.families.code.family import run_cases
from assay.families.code.outputs import Returned
from assay.families.code.sensitivity import near_miss
from assay.findings import Finding, Severity
from assay.tasks.model import Task

WRONG_TYPES: tuple[object, ...] = (None, True, 0, -1.5, "", "?", [], [None], {}, {"": None})
"""Outputs of every plain type, fed to the checker wherever the expected output is another type."""
SHOWN = 3
SLOW_SHARE = 0.5
"""A checker using more than this share of its time limit on the task's own outputs is slow."""


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
            case_file = hidden_case_file(task)
        except TaskFormatError:
            return CheckOutcome()  # lint reports it
        if config.checker is None or checker_problem(task, config) is not None:
            return CheckOutcome()
        try:
            slow = _timed(task, config, cases, context)
            if slow is not None and slow.severity is Severity.ERROR:
                return CheckOutcome(findings=[slow])
            answers: dict[str, CheckAnswer] = {}
            # One checker run per attempt, as a verification sends it: a bad solution's
            # outputs, or one wrong output on every case.
            constants = _wrong_type_items(cases)
            attempts = _known_bad_items(task, config, cases, context) + constants
            for items in attempts:
                answers |= run_checker(context.sandbox, task, config, items)[0]
            encoded = case_file is not None and case_file.encoded
            misses = [_near_miss_items(cases), _same_shape_items(cases, encoded=encoded)]
            near_answers = [
                run_checker(context.sandbox, task, config, near)[0] if near else {}
                for near in misses
            ]
        except TaskFormatError as exc:
            return CheckOutcome(findings=[_finding(Severity.ERROR, f"cannot run: {exc}")])
        findings = [f for f in (slow,) if f is not None] + _findings(answers)
        findings += _constant_passes(constants, cases, answers)
        lenient = [_lenient(near, said) for near, said in zip(misses, near_answers, strict=True)]
        return CheckOutcome(findings=findings + next((f for f in lenient if f), []))


def _timed(
    task: Task, config: CodeConfig, cases: list[Case], context: AuditContext
) -> Finding | None:
    """The checker on the task's own expected outputs: an error if it gives no verdict within
    the task's limits, a warning if it takes more than half its time limit."""
    own = [CheckItem(case.id, case.args, case.expected, case.expected) for case in cases]
    try:
        _, run = run_checker(context.sandbox, task, config, own)
    except CheckerError as exc:
        return _finding(Severity.ERROR, str(exc))
    limit = task.spec.limits.timeout_s
    if run is not None and run.wall_s > limit * SLOW_SHARE:
        return _finding(
            Severity.WARNING,
            f"the checker takes {run.wall_s:.1f}s of its {limit:g}s time limit on the task's "
            "own outputs; on a slower host its verdicts would be errors (make it faster, or "
            "raise timeout_s)",
        )
    return None


def _known_bad_items(
    task: Task, config: CodeConfig, cases: list[Case], context: AuditContext
) -> list[list[CheckItem]]:
    attempts = []
    for label, files in task.known_bad().items():
        outputs = run_cases(
            context.sandbox,
            workspace=task.workspace,
            solution=files,
            function=config.function,
            entrypoint=config.entrypoint,
            cases=[(case.id, case.args) for case in cases],
            limits=task.spec.limits,
            packages=config.imports,
        )
        items = []
        for case in cases:
            outcome = outputs.outcomes.get(case.id)
            if isinstance(outcome, Returned):
                items.append(
                    CheckItem(f"{label} {case.id}", case.args, outcome.value, case.expected)
                )
        attempts.append(items)
    return attempts


def _wrong_type_items(cases: list[Case]) -> list[list[CheckItem]]:
    return [
        [
            CheckItem(
                f"{type(output).__name__} {output!r} {case.id}", case.args, output, case.expected
            )
            for case in cases
            if type(output) is not type(case.expected)
        ]
        for output in WRONG_TYPES
    ]


def _constant_passes(
    constants: list[list[CheckItem]], cases: list[Case], answers: dict[str, CheckAnswer]
) -> list[Finding]:
    """An error for each output of :data:`WRONG_TYPES` that the checker accepted on every case
    that expects a value (no case expecting its type): an attempt that returns it, and solves
    nothing, passes them all, as the red-team's constant answers would if it tried this one."""
    findings = []
    for items in constants:
        if len(cases) < MIN_NEAR_MISSES or len(items) < len(cases):
            continue
        if all((answer := answers.get(item.case_id)) and answer.passed for item in items):
            output = items[0].output
            findings.append(
                _finding(
                    Severity.ERROR,
                    f"the checker accepts the constant answer {output!r} on every case that "
                    f"expects a value ({len(cases)}): returning it, whatever the input, passes "
                    "(make check() compare the output with what the case expects)",
                    "; ".join(f"{item.case_id}: accepted" for item in items[:SHOWN])[:500],
                )
            )
    return findings


MIN_NEAR_MISSES = 2
"""Fewest cases with a near miss for the checker's leniency to say anything."""


def _near_miss_items(cases: list[Case]) -> list[CheckItem]:
    """A near miss of each expected output: no right answer to the case can be it."""
    return [
        CheckItem(f"near miss {case.id}", case.args, _close(case.expected), case.expected)
        for case in cases
    ]


def _same_shape_items(cases: list[Case], *, encoded: bool) -> list[CheckItem]:
    """A near miss of the same shape for each case that expects a list or a dict (in a case
    file that ``encoded`` its values, a tagged value such as ``{"$tuple": [...]}`` is neither)."""
    items = []
    for case in cases:
        expected = case.expected
        keys = list(expected) if isinstance(expected, dict) else []
        tagged = len(keys) == 1 and str(keys[0]).startswith("$")
        changed = None if encoded and tagged else _reshaped(expected)
        if changed is not None:
            items.append(CheckItem(f"near miss {case.id}", case.args, changed, case.expected))
    return items


def _reshaped(value: object) -> object | None:
    """A wrong answer as long as ``value``, a list or a dict: the first element of the list in
    place of the last one that differs from it (every element again in place of the last, moved
    as the sensitivity check moves it, when none differs), or the last value of the dict moved
    that way; None for anything else or an empty one."""
    if isinstance(value, list) and value:
        changed = copy.deepcopy(value)
        others = [at for at, item in enumerate(value) if not _same(item, value[0])]
        if others:
            changed[others[-1]] = copy.deepcopy(value[0])
        else:
            changed[-1] = near_miss(value[-1])
        return changed
    if isinstance(value, dict) and value:
        last = list(value)[-1]
        return {**copy.deepcopy(value), last: near_miss(value[last])}
    return None


def _same(one: object, other: object) -> bool:
    """Whether two decoded JSON values are the same, ``True`` and ``1`` apart."""
    return type(one) is type(other) and one == other


def _close(value: object) -> object:
    """A wrong answer close to ``value``: a finite float moved by 1% of itself and at least
    0.5 (far outside any tolerance a checker should allow, close enough for a property to
    hold), anything else as the sensitivity check changes it."""
    if isinstance(value, float) and math.isfinite(value):
        return value + max(0.5, abs(value) / 100)
    return near_miss(value)


def _lenient(items: list[CheckItem], answers: dict[str, CheckAnswer]) -> list[Finding]:
    """A finding when the checker accepted the near misses of more than half the cases."""
    accepted = [item for item in items if (answer := answers.get(item.case_id)) and answer.passed]
    if len(items) < MIN_NEAR_MISSES or 2 * len(accepted) <= len(items):
        return []
    shown = "; ".join(
        f"{item.case_id.removeprefix('near miss ')}: expected {item.expected!r}, "
        f"accepted {item.output!r}"
        for item in accepted[:SHOWN]
    )
    return [
        Finding(
            check=CheckerCrashCheck.name,
            severity=Severity.WARNING,
            message=f"the checker accepts near misses of the expected output on {len(accepted)} "
            f"of {len(items)} cases: it may judge a property of the output, not its value "
            "(review it, or add cases whose near misses it must refuse)",
            evidence=shown[:500],
            review=True,
        )
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
