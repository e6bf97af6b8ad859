"""The ``repo`` family: change a whole project; hidden cases judge it from outside the sandbox."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files
from pathlib import Path

from assay.errors import SandboxError, SolutionFormatError, TaskFormatError
from assay.families import version_label
from assay.families._recent import Recent
from assay.families.base import Exploit, Mutant, in_case_order
from assay.families.code.config import CodeConfig
from assay.families.code.family import CODEC, VerdictRecorder, assay_version
from assay.families.code.judging import judge
from assay.families.code.outputs import CaseOutputs, decode_outputs
from assay.families.code.rewards import compiled
from assay.families.repo.cases import (
    CASES_FILE,
    FAIL_TO_PASS,
    PASS_TO_PASS,
    CaseFile,
    RepoCase,
    repo_cases,
    repo_config,
)
from assay.families.repo.exploits import repo_exploits
from assay.families.repo.fingerprints import repo_fingerprints
from assay.families.repo.lint import lint_repo_task
from assay.families.repo.mutants import repo_mutants
from assay.families.repo.patches import PatchError, apply_patch, is_patch_submission, parse_patch
from assay.families.repo.rubric import all_passed, rubric_criteria
from assay.families.repo.tools import RepoTools
from assay.findings import Finding
from assay.sandbox import check_files, python_environment
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits
from assay.tasks.taskdir import read_files, read_solution_file
from assay.verdicts import Criterion, Status, Verdict, Versions, met_at_start

HARNESS = CODEC + package_files("assay.families.repo").joinpath("_harness.py").read_text("utf-8")
VERSION = "7"
MAX_FILES = 400
"""Files a submitted project may hold."""
MAX_BYTES = 8 * 1024 * 1024
"""Bytes a submitted project may hold, all files together."""
_JUDGING = CodeConfig(function="main")
"""How outcomes compare: exactly, floats within 1e-9, as in the code family."""


class RepoFamily:
    """Tasks over whole Python projects. See :mod:`assay.families.repo` for the task layout."""

    name = "repo"
    version = VERSION
    trusted_code: tuple[str, ...] = (HARNESS,)

    def load_solution(self, path: Path) -> Files:
        """The changed project's directory, or a ``.patch``/``.diff`` file against the
        workspace (checked to be a readable diff here, applied by :meth:`verify`)."""
        path = Path(path)
        if path.is_dir():
            project = read_files(path)
            if not project:  # a mistyped or unfilled directory, never a project
                raise SolutionFormatError(
                    "is an empty directory",
                    path=path,
                    fix="pass the changed project's directory, holding all of its files",
                )
            return project
        missing = "pass the changed project's directory or a .patch file"
        if path.exists() and not path.name.endswith((".patch", ".diff")):
            raise SolutionFormatError(
                "is neither a directory nor a .patch or .diff file",
                path=path,
                fix="pass the changed project's directory or a unified diff named *.patch",
            )
        data = read_solution_file(path, missing=missing)
        try:
            parse_patch(data.decode("utf-8"), str(path))
        except UnicodeDecodeError:
            raise PatchError("is not UTF-8 text", path=path, fix="save it as UTF-8") from None
        return {path.name: data}

    def empty_solution(self, task: Task) -> Files:
        """The workspace as it was given: no change at all."""
        return dict(task.workspace)

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's repo-family parts."""
        return lint_repo_task(task)

    def exploits(self, task: Task) -> list[Exploit]:
        """The red-team's reward hacks shaped for ``task`` (:mod:`.exploits`)."""
        return repo_exploits(task)

    def reordered(self, task: Task, order: int) -> Task:
        """The task with its hidden cases in another order, for the flaky check: a project that
        is right only in the task's order keeps state from one case to the next."""
        try:
            case_file = repo_cases(task)
        except TaskFormatError:
            return task
        if order == 0:
            return task
        moved = case_file.model_copy(update={"cases": in_case_order(case_file.cases, order)})
        return task.model_copy(update={"hidden": {**task.hidden, CASES_FILE: moved.dumps()}})

    def mutants(self, task: Task) -> list[Mutant]:
        """Near misses of the reference's change, for the audit's mutation check
        (:mod:`.mutants`)."""
        return repo_mutants(task)

    def verifier_fingerprints(self, task: Task) -> set[str]:
        """What judges the task, renaming and rewording aside, for the duplicates and
        contamination checks (:mod:`.fingerprints`)."""
        return repo_fingerprints(task)

    def tools(self, task: Task) -> RepoTools:
        """A fresh copy of the project and the agent's tools on it."""
        return RepoTools(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Run the hidden cases on the submitted project in ``sandbox``; judge outside it."""
        case_file = repo_cases(task)
        config = repo_config(task)
        label = version_label(self)
        record = VerdictRecorder(
            task.id,
            Versions(
                task=task.content_version(label),
                family=label,
                assay=assay_version(),
                python=python_environment(()),
            ),
        )
        try:
            project = submitted_project(task, solution)
        except PatchError as exc:
            return record(Status.FAIL, f"the patch does not apply: {exc}")
        problem = _unrunnable(project, task.spec.limits)
        if problem is not None:
            return record(Status.FAIL, problem)
        try:
            outputs = run_project(
                sandbox,
                project,
                case_file.cases,
                paths=config.paths,
                limits=task.spec.limits,
            )
            start = (
                outputs
                if project == task.workspace
                else _start(task, case_file, config.paths, sandbox)
            )
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        judged = judge_readings(case_file, outputs)
        # What the project met as it was given, under the reading judged by (a case of
        # another reading may expect the old behaviour), scales the score, never adds to it.
        kept = {c.name for c in _judged_as(case_file, start, judged.reading) if c.passed}
        criteria = met_at_start(judged.criteria, kept)
        status = Status.PASS if all_passed(criteria) else Status.FAIL
        summary = _summary(judged, case_file, outputs)
        if config.rubric is None:
            return record(status, summary, criteria, outputs.result)
        try:
            scored, suite = rubric_criteria(
                config.rubric, task, project, criteria, sandbox=sandbox, tests=config.tests
            )
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        return record(status, summary, criteria + scored, outputs.result, suite)


def _unrunnable(project: Files, limits: Limits) -> str | None:
    """Why ``project`` cannot be judged, or None. A project the sandbox refuses to write (more
    files than the task's limits allow, a file past their size, a name outside the project) is
    the submission's fault: it fails, where the sandbox's refusal would be an error verdict,
    which is the infrastructure's and never scored."""
    if len(project) > MAX_FILES or sum(map(len, project.values())) > MAX_BYTES:
        return f"the project is larger than {MAX_FILES} files or 8 MiB"
    try:
        check_files(project, limits)
    except SandboxError as exc:
        return f"the project cannot be run: {exc}"
    return None


_STARTS: Recent[str, CaseOutputs] = Recent(256)
"""The starting project's outcomes, by what they depend on."""


def _start(task: Task, case_file: CaseFile, paths: Sequence[str], sandbox: Sandbox) -> CaseOutputs:
    """The outcomes of the hidden cases on the project as the task gives it, run once for a
    project and the cases' inputs (a copy of the task with other expected values, as the
    sensitivity check makes, runs nothing again); the cases it meets are met before any
    change (:func:`assay.verdicts.score_of`)."""
    digest = hashlib.sha256()
    inputs = [[case.job() for case in case_file.cases], list(paths), task.spec.limits.model_dump()]
    digest.update(json.dumps(inputs, sort_keys=True).encode())
    for path in sorted(task.workspace):
        digest.update(f"\0{len(path)}:{path}\0{len(task.workspace[path])}:".encode())
        digest.update(task.workspace[path])
    key = digest.hexdigest()
    known = _STARTS.get(key)
    if known is not None:
        return known
    found = run_project(
        sandbox, dict(task.workspace), case_file.cases, paths=paths, limits=task.spec.limits
    )
    _STARTS.put(key, found)
    return found


def submitted_project(task: Task, solution: Files) -> Files:
    """The project a submission stands for: its source files, or the workspace with a submitted
    patch applied. Raises :class:`PatchError` when the patch does not apply.

    Compiled files (in ``__pycache__``, ``.pyc``, ``.so`` and the like) are left out: Python
    runs an unchecked ``.pyc`` instead of its unchanged source, and an extension module before
    the source of the same name, so a change made there would be judged while the source that
    the diff and style criteria read shows none. A project is judged by its source."""
    if is_patch_submission(solution):
        [(name, data)] = solution.items()
        solution = apply_patch(task.workspace, data.decode("utf-8", errors="replace"), name)
    return {path: data for path, data in solution.items() if not compiled(path)}


def run_project(
    sandbox: Sandbox,
    project: Files,
    cases: Sequence[RepoCase],
    *,
    paths: Sequence[str],
    limits: Limits,
) -> CaseOutputs:
    """Run ``cases`` on ``project`` in one fresh sandbox job, with ``paths`` (relative to the
    project) on the import path; their outcomes, decoded. Only the cases' inputs go in."""
    nonce = f"@assay:{secrets.token_hex(8)}:"
    job = {"nonce": nonce, "paths": list(paths), "cases": [case.job() for case in cases]}
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", HARNESS],
        files=project,
        limits=limits,
        stdin=json.dumps(job).encode(),
        sockets=False,  # the cases read and write files; no project needs the network here
    )
    return decode_outputs(result, nonce, [case.id for case in cases], encoded=True)


@dataclass(frozen=True)
class Judged:
    """The criteria of the reading the outcomes came closest to."""

    reading: str
    """The reading judged by ("" for the reference's own)."""
    criteria: tuple[Criterion, ...]


def judge_readings(case_file: CaseFile, outputs: CaseOutputs) -> Judged:
    """Judge the outcomes under each reading of the request; the one with every case passed
    wins, else the one with the most weight passed (the reference's own on a tie)."""
    judged = [
        Judged(reading, _judged_as(case_file, outputs, reading))
        for reading in ["", *case_file.readings]
    ]
    return max(judged, key=_passed_weight)  # the first of the best: the reference's own


def _judged_as(case_file: CaseFile, outputs: CaseOutputs, reading: str) -> tuple[Criterion, ...]:
    return tuple(
        judge(case.judged_as(reading), outputs, _JUDGING, {}, encoded=True)
        for case in case_file.cases
    )


def _passed_weight(judged: Judged) -> tuple[bool, float]:
    return all(c.passed for c in judged.criteria), sum(
        c.weight for c in judged.criteria if c.passed
    )


def _summary(judged: Judged, case_file: CaseFile, outputs: CaseOutputs) -> str:
    kinds = {case.id: case.kind for case in case_file.cases}
    parts = []
    for kind in (FAIL_TO_PASS, PASS_TO_PASS):
        mine = [c for c in judged.criteria if kinds[c.name] == kind]
        if mine:
            parts.append(f"{sum(c.passed for c in mine)}/{len(mine)} {kind} cases passed")
    text = "; ".join(parts)
    if judged.reading:
        text += f" (reading {judged.reading})"
    if outputs.tampered:
        text += f"; the run's records were tampered with: {outputs.tampered}"
    elif outputs.result.timed_out:
        text += "; the run timed out"
    return text
