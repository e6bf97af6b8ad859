"""Probes of a code task's verifier for the audit's sensitivity check
(:mod:`assay.audit.sensitivity`): the task with one hidden case's expected value changed; and
the task with its cases in another order, for the flaky check.

A changed value must differ from the old one beyond any tolerance, and in a way no comparison
could overlook: integers and floats move by one and more, strings gain a character, lists and
objects an element, None becomes a string, a bool flips, and a case that expects an exception
expects a value instead. Tasks judged by a checker get no probes: a checker may rightly judge a
property of the output and not look at the expected value.
"""

from __future__ import annotations

import copy
import math

from assay.errors import TaskFormatError
from assay.families.base import Probe, in_case_order
from assay.families.code.casefile import Case, cases_json, hidden_case_file
from assay.families.code.config import code_config
from assay.tasks.model import Task

MAX_PROBES = 8
"""Probes per task at most, spread evenly over the cases."""
CHANGED = "changed by the audit"
"""What a changed string, or the value standing for an exception or None, is made of."""


def code_probes(task: Task) -> list[Probe]:
    """One probe for each of up to :data:`MAX_PROBES` cases; none for a checker task or a task
    whose cases cannot be read."""
    try:
        config = code_config(task)
        case_file = hidden_case_file(task)
        if config.checker is not None or config.legacy_check is not None or case_file is None:
            return []
        cases = list(case_file.cases)
    except TaskFormatError:
        return []
    step = max(1.0, len(cases) / MAX_PROBES)
    picked = sorted({int(i * step) for i in range(min(len(cases), MAX_PROBES))})
    probes = []
    for index in picked:
        changed, what = _changed(cases[index])
        edited = [*cases[:index], changed, *cases[index + 1 :]]
        hidden = {**task.hidden, "cases.json": cases_json(edited, min_format=case_file.format)}
        probes.append(
            Probe(
                name=cases[index].id,
                what=what,
                task=task.model_copy(update={"hidden": hidden}),
            )
        )
    return probes


def reordered(task: Task, order: int) -> Task:
    """``task`` with its hidden cases in order ``order`` of
    :data:`assay.families.base.CASE_ORDERS`."""
    try:
        case_file = hidden_case_file(task)
    except TaskFormatError:
        return task
    if case_file is None or order == 0:
        return task
    moved = in_case_order(case_file.cases, order)
    hidden = {**task.hidden, "cases.json": cases_json(moved, min_format=case_file.format)}
    return task.model_copy(update={"hidden": hidden})


def _changed(case: Case) -> tuple[Case, str]:
    """``case`` expecting something no right answer to it can be."""
    if case.raises is not None:
        new: object = CHANGED
        what = f"raises {case.raises} -> returns {new!r}"
        fields = case.model_dump(exclude={"raises"}) | {"expected": new}
        return Case.model_validate(fields), what
    old = case.expected
    new = near_miss(old)
    return case.model_copy(update={"expected": new}), f"expected {_short(old)} -> {_short(new)}"


def near_miss(value: object) -> object:
    """``value`` changed so that no comparison could take one for the other: an int moved by
    one, a finite float by more than one, a string or a list or a dict grown, a bool flipped,
    anything else made a string."""
    changed: object
    match value:
        case bool():
            changed = not value
        case int():
            changed = value + 1
        case float() if math.isfinite(value):
            changed = value + 1.0 + abs(value)
        case str():
            changed = value + "!" if value else CHANGED
        case list():
            changed = [*copy.deepcopy(value), CHANGED]
        case dict():
            changed = {**copy.deepcopy(value), CHANGED: CHANGED}
        case _:
            changed = CHANGED
    return changed


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
