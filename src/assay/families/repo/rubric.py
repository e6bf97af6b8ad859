"""The optional weighted criteria of a repo task (``[repo.rubric]`` in task.toml).

The status is decided by the hidden cases alone. With a rubric, the *score* is correctness
scaled by the weighted mean of the others (the project as given meets them already, so they
never add to the score: :func:`assay.verdicts.score_of`):

- ``correctness``: the weighted share of hidden cases passed;
- ``visible_tests``: the project's own test suite passes (``unittest`` discovery in the tests
  directory, in a sandbox job of its own). The submission holds those tests, so this is a nudge
  towards keeping them working, never a verdict;
- ``diff_size``: the change is about as small as the reference's: 1 up to the reference's number
  of changed lines, falling to 0 at :data:`DIFF_FACTOR` times it;
- ``style``: ruff's findings on the lines the change wrote (read outside the sandbox, as the code
  family's style criterion is: :func:`assay.families.code.rewards.ruff_report`), 1 with none
  and 0 with :data:`MAX_FINDINGS`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from assay.families.code.rewards import ruff_report
from assay.families.repo.patches import DiffBudget, changed_lines, lines_changed
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import REFERENCE, Files, Task
from assay.verdicts import Criterion, score_of

DIFF_FACTOR = 4.0
MAX_FINDINGS = 5
STYLE_RULES = ("E", "F", "W", "B")
_SUITE = (
    "import sys, unittest\n"
    "sys.path.insert(0, '.')\n"
    "result = unittest.main(module=None, exit=False, argv=['unittest', 'discover', '-s', {tests!r},"
    " '-t', '.']).result\n"
    "sys.exit(0 if result.wasSuccessful() and result.testsRun else 1)\n"
)


class RepoRubric(BaseModel):
    """The weight of each criterion in the score; 0 leaves it out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    correctness: float = Field(default=1.0, ge=0, le=1000, description="Hidden cases passed.")
    visible_tests: float = Field(default=0.0, ge=0, le=1000, description="Own tests pass.")
    diff_size: float = Field(default=0.0, ge=0, le=1000, description="A change as small.")
    style: float = Field(default=0.0, ge=0, le=1000, description="No ruff findings added.")


def rubric_criteria(
    rubric: RepoRubric,
    task: Task,
    project: Files,
    cases: Sequence[Criterion],
    *,
    sandbox: Sandbox,
    tests: str,
) -> tuple[tuple[Criterion, ...], ExecResult | None]:
    """The rubric's criteria for ``project``, and the sandbox run of the visible tests."""
    criteria = [
        _criterion("correctness", rubric.correctness, score_of(tuple(cases)), all_passed(cases))
    ]
    suite = None
    if rubric.visible_tests:
        suite = sandbox.run(
            [sandbox.python, "-I", "-S", "-c", _SUITE.format(tests=tests)],
            files=project,
            limits=task.spec.limits,
            sockets=False,
        )
        evidence = suite.stderr.strip().splitlines()[-1:] or ["no output"]
        criteria.append(
            _criterion(
                "visible-tests", rubric.visible_tests, float(suite.ok), suite.ok, evidence[0]
            )
        )
    if rubric.diff_size:
        criteria.append(_diff_size(rubric.diff_size, task, project))
    if rubric.style:
        criteria.append(_style(rubric.style, task.workspace, project))
    return tuple(c for c in criteria if c.weight > 0), suite


def all_passed(criteria: Sequence[Criterion]) -> bool:
    """Whether every criterion passed."""
    return all(c.passed for c in criteria)


def _diff_size(weight: float, task: Task, project: Files) -> Criterion:
    mine = lines_changed(task.workspace, project)
    theirs = max(1, lines_changed(task.workspace, task.solutions.get(REFERENCE, {})))
    ratio = mine / theirs
    score = 1.0 if ratio <= 1 else max(0.0, 1 - (ratio - 1) / (DIFF_FACTOR - 1))
    evidence = f"{mine} lines changed, the reference {theirs}"
    return _criterion("diff-size", weight, score, score > 0, evidence)


def _style(weight: float, workspace: Files, project: Files) -> Criterion:
    found: list[str] = []
    budget = DiffBudget()
    for path in sorted(project):
        if not path.endswith(".py") or workspace.get(path) == project[path]:
            continue
        lines = changed_lines(workspace.get(path), project[path], budget=budget)
        report = ruff_report(project[path].decode(errors="replace"), STYLE_RULES, 100)
        if report.problem is not None:
            return _criterion("style", weight, 0.0, False, f"{path}: {report.problem}")
        found += [f"{path}:{f}" for f in report.findings if int(f.split(":")[0]) in lines]
        if len(found) >= MAX_FINDINGS:
            break  # the score is 0 already; ruff on every other file would only cost time
    score = max(0.0, 1 - len(found) / MAX_FINDINGS)
    counted = f"at least {MAX_FINDINGS}" if len(found) >= MAX_FINDINGS else str(len(found))
    evidence = f"{counted} ruff finding(s) on changed lines" + (
        ": " + "; ".join(found[:5]) if found else ""
    )
    return _criterion("style", weight, score, not found, evidence)


def _criterion(
    name: str, weight: float, score: float, passed: bool, evidence: str = ""
) -> Criterion:
    """A rubric criterion. Those about the change's quality (its own tests pass, it is small,
    it is clean) the unchanged project meets already: they scale correctness, never add to
    it (:func:`assay.verdicts.score_of`), so that doing nothing scores 0."""
    return Criterion(
        name=name,
        passed=passed,
        weight=weight,
        score=score,
        part="rubric",
        kind=name,
        evidence=evidence[:300],
        met_at_start=name != "correctness",
    )
