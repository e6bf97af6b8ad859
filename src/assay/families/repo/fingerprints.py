"""Fingerprints of what judges a repo task, for the audit's set checks
(:mod:`assay.families.code.fingerprints`): one for each hidden case, of its inputs and
outcomes, without its id, kind, weight or the names it calls (a copy may rename the project's
modules). Nothing here raises: a malformed task has none (lint reports it)."""

from __future__ import annotations

import json

from assay.errors import TaskFormatError
from assay.families.code.fingerprints import case_fingerprints
from assay.families.repo.cases import Expect, RepoCase, repo_cases
from assay.tasks.model import Task


def repo_fingerprints(task: Task) -> set[str]:
    """The fingerprints of the task's hidden cases, if it has enough of them."""
    try:
        cases = repo_cases(task).cases
    except TaskFormatError:
        return set()
    return case_fingerprints(_inputs_and_outcomes(case) for case in cases)


def _inputs_and_outcomes(case: RepoCase) -> list[object]:
    """What a case gives the project and must get back, as plain data."""
    readings = sorted((_outcome(e) for e in case.readings.values()), key=json.dumps)
    outcomes = [_outcome(case.expect), readings]
    if case.call is not None:
        return ["call", case.args, *outcomes]
    return ["cli", case.argv, case.stdin, case.files, *outcomes]


def _outcome(expect: Expect) -> dict[str, object]:
    return {"value": expect.value} if expect.raises is None else {"raises": expect.raises}
