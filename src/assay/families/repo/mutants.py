"""Mutants of a repo task's reference, for the audit's mutation check (:mod:`assay.audit.mutation`).

A repo task's change is small against a large project, and the hidden cases are written for the
change: so the mutants are made only where the reference differs from the workspace (the lines
the change wrote outside the visible tests, and the line on either side), with the code
family's operators (:func:`assay.families.code.mutants.source_mutants`). A survivor is a near
miss of the fix that the hidden cases cannot tell from it.
"""

from __future__ import annotations

from assay.errors import TaskFormatError
from assay.families.base import Mutant
from assay.families.code.mutants import MAX_MUTANTS, source_mutants
from assay.families.repo.cases import repo_config
from assay.families.repo.patches import changed_lines
from assay.tasks.model import REFERENCE, Task

MARGIN = 1
"""Lines around each changed line where mutants are made too."""


def repo_mutants(task: Task) -> list[Mutant]:
    """Mutants of the reference's changed lines; none when there is no reference or change."""
    reference = task.solutions.get(REFERENCE, {})
    try:
        tests = f"{repo_config(task).tests}/"
    except TaskFormatError:
        return []
    mutants: list[Mutant] = []
    for path in sorted(reference):
        if not path.endswith(".py") or path.startswith(tests):  # tests are never the verdict
            continue
        lines = changed_lines(task.workspace.get(path), reference[path], margin=MARGIN)
        room = MAX_MUTANTS - len(mutants)
        if lines and room > 0:
            mutants += source_mutants(reference, path, lines, limit=room)
    return mutants
