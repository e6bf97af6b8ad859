"""The ``code`` family: write a Python function; hidden cases judge it from outside the sandbox."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from importlib.resources import files as package_files
from pathlib import Path
from typing import NamedTuple

from assay.errors import SandboxError, VerifierError
from assay.families import version_label
from assay.families.base import Exploit, Mutant, Probe
from assay.families.code.casefile import harness_cases_json
from assay.families.code.checking import CHECKER_RUNNER, CheckItem, run_checker
from assay.families.code.config import Case, CodeConfig, code_config, hidden_case_file
from assay.families.code.exploits import code_exploits
from assay.families.code.fingerprints import code_fingerprints
from assay.families.code.judging import judge
from assay.families.code.legacy import LEGACY_RUNNER, run_legacy
from assay.families.code.lint import lint_code_task
from assay.families.code.mutants import code_mutants
from assay.families.code.outputs import CaseOutputs, Returned, decode_outputs
from assay.families.code.rewards import Scored, Submission, score_rubric
from assay.families.code.rubric import task_rubric
from assay.families.code.sensitivity import code_probes, reordered
from assay.families.code.tools import CodeTools
from assay.findings import Finding
from assay.sandbox import PACKAGES_DIR, check_files, python_environment
from assay.sandbox.batch import BATCH, Run, run_many
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits
from assay.tasks.taskdir import read_files, read_solution_file
from assay.verdicts import (
    Criterion,
    Status,
    Timings,
    Verdict,
    Versions,
    unscored_reason,
    verdict_score,
)

_SOURCES = package_files("assay.families.code")
CODEC = _SOURCES.joinpath("_codec.py").read_text(encoding="utf-8")
"""The value encoding of case files from format 4, run in front of the harnesses' own source."""
RUNNER = CODEC + _SOURCES.joinpath("_runner.py").read_text(encoding="utf-8")
RUNNER_ENTRY = "_main"
"""What :data:`RUNNER` calls when run as ``__main__``; it only defines things besides."""
VERSION = "10"
"""2: ints and floats never compare equal, cases may expect an exception, the checker runs in a
sandbox, and sandbox output is read within fixed bounds. 3: ``code.inputs`` fails a call that
modifies its arguments (or, ``unshared``, returns a part of them). 4: under ``code.inputs`` no
program starts and signal handlers get no frame; unordered results pair floats by value; a
set matches a frozenset of the same members, as ``==`` has it; a runtime criterion's timing
run that gets a case wrong scores 0. 5: on the warm pool a submission ends as in a fresh
interpreter (its threads joined, ``atexit`` run, ``sys.exit`` statuses as Python maps them),
and no job holds a signal its host ignored or blocked. 8: the float members of a set or
frozenset are matched within the tolerance whatever order their texts sort in (a right set
whose 2.0 was computed as 1.9999999999999998 failed: paired with 10.0). 9: where a checker
judges, a runtime criterion's timing run that returns another value than the verified run is
judged by the checker (another right answer scored 0 as a case got wrong). 10: a style
criterion scores 0 for a submission that adds or changes any other file than a ``.py`` file,
and a judge is shown that file (a tidy ``solution.py`` that ran its code from an ``impl.txt``
scored 1 on style); both read a ``.py`` file in the encoding it declares, as Python does (code
kept in the comments of a ``# coding: utf-7`` file scored 1)."""


class CodeFamily:
    """Python function tasks. See :mod:`assay.families.code` for the task layout."""

    name = "code"
    version = VERSION
    trusted_code: tuple[str, ...] = (RUNNER, CHECKER_RUNNER, LEGACY_RUNNER, BATCH)

    def load_solution(self, path: Path) -> Files:
        """A solution directory, or a single ``.py`` file taken as ``solution.py``."""
        path = Path(path)
        if path.is_dir():
            return read_files(path)
        return {
            "solution.py": read_solution_file(path, missing="pass solution.py or its directory")
        }

    def empty_solution(self, task: Task) -> Files:
        """The function, defined to do nothing: it accepts any arguments and returns None."""
        config = code_config(task)
        stub = f"def {config.function}(*args, **kwargs):\n    return None\n"
        return {config.entrypoint: stub.encode()}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's code-family parts."""
        return lint_code_task(task)

    def exploits(self, task: Task) -> list[Exploit]:
        """The red-team's reward hacks shaped for ``task`` (:mod:`.exploits`)."""
        return code_exploits(task)

    def mutants(self, task: Task) -> list[Mutant]:
        """Near misses of the reference, for the audit's mutation check (:mod:`.mutants`)."""
        return code_mutants(task)

    def probes(self, task: Task) -> list[Probe]:
        """The task with one expected value changed, for the sensitivity check
        (:mod:`.sensitivity`)."""
        return code_probes(task)

    def reordered(self, task: Task, order: int) -> Task:
        """The task with its hidden cases in another order, for the flaky check."""
        return reordered(task, order)

    def verifier_fingerprints(self, task: Task) -> set[str]:
        """What judges the task, renaming and rewording aside, for the duplicates and
        contamination checks (:mod:`.fingerprints`)."""
        return code_fingerprints(task)

    def tools(self, task: Task) -> CodeTools:
        """A fresh workspace over ``task``'s files and the agent's tools on it."""
        return CodeTools(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Run ``solution`` on the hidden cases in ``sandbox`` and judge outside it."""
        return self._verify(task, solution, sandbox, None)

    def verify_many(self, items: Sequence[tuple[Task, Files]], sandbox: Sandbox) -> list[Verdict]:
        """The verdict :meth:`verify` gives on each (task, solution) pair, with the runs of the
        solutions on their cases in batches (:func:`assay.sandbox.batch.run_many`): for the
        audit's runs of a task's own solutions and hacks, never an agent's. A solution that
        cannot go in a batch (no entrypoint, a legacy verifier, other packages than the first
        one's) is verified alone, and so is every one when the batch's sandbox fails; so is
        every one for a subclass that verifies its own way (it overrides :meth:`verify`).

        Pairs whose runs would be the same job (the same files, cases' arguments and limits:
        tasks that differ only in their expected values, as the sensitivity check's probes of
        one task do) share one run, each judged against its own task: the expected values
        never reach the sandbox, so a second run could only repeat the first."""
        if type(self).verify is not CodeFamily.verify:
            return [self.verify(task, solution, sandbox) for task, solution in items]
        verdicts: dict[int, Verdict] = {}
        batched: list[tuple[int, _Prepared]] = []
        same: dict[tuple[object, ...], int] = {}  # a run's job -> the first pair that has it
        repeats: list[tuple[int, int]] = []  # (a pair, the pair whose run it shares)
        packages: tuple[str, ...] | None = None
        for index, (task, solution) in enumerate(items):
            config = code_config(task)
            imports = tuple(config.imports)
            if packages is None:
                packages = imports
            if (
                config.entrypoint not in solution
                or config.legacy_check is not None
                or (imports != packages)
            ):
                verdicts[index] = self.verify(task, solution, sandbox)
                continue
            prepared = _task_run(task, config, solution, afresh=False)
            job = prepared.job()
            if job in same:
                repeats.append((index, same[job]))
                continue
            same[job] = index
            batched.append((index, prepared))
        try:
            results = run_many(
                sandbox,
                [sandbox.python, "-I", "-S", "-c", RUNNER],
                [prepared.run for _, prepared in batched],
                packages=packages or (),
                entry=RUNNER_ENTRY,
            )
        except SandboxError:
            results = []
        shared: dict[int, CaseOutputs] = {}
        for (index, prepared), result in zip(batched, results, strict=False):
            shared[index] = prepared.outputs(result)
            task, solution = items[index]
            verdicts[index] = self._verify(task, solution, sandbox, shared[index])
        for index, first in repeats:
            if first in shared:
                task, solution = items[index]
                verdicts[index] = self._verify(task, solution, sandbox, shared[first])
        for index, (task, solution) in enumerate(items):
            if index not in verdicts:  # the batch's sandbox failed: each alone, as verify does
                verdicts[index] = self.verify(task, solution, sandbox)
        return [verdicts[index] for index in range(len(items))]

    def _verify(
        self, task: Task, solution: Files, sandbox: Sandbox, outputs: CaseOutputs | None
    ) -> Verdict:
        """:meth:`verify`, with the solution's run on the cases already done where ``outputs``
        is given."""
        config = code_config(task)
        case_file = hidden_case_file(task)
        cases = () if case_file is None else case_file.cases
        encoded = case_file is not None and case_file.encoded
        rubric = task_rubric(task)
        label = version_label(self)
        record = VerdictRecorder(
            task.id,
            Versions(
                task=task.content_version(label),
                family=label,
                assay=assay_version(),
                python=python_environment(config.imports),
                rubric=rubric[1] if rubric else None,
            ),
        )
        unrunnable = _unrunnable(task, config, solution)
        if unrunnable:
            return record(Status.FAIL, unrunnable)

        def run(files: Files) -> CaseOutputs:  # through run_cases, which tests may stand in for
            return run_cases(
                sandbox,
                workspace=task.workspace,
                solution=files,
                function=config.function,
                entrypoint=config.entrypoint,
                cases=[(case.id, case.args) for case in cases],
                limits=task.spec.limits,
                packages=config.imports,
                encoded=encoded,
                inputs=config.inputs,
            )

        if config.legacy_check is not None:
            return _legacy_verdict(sandbox, task, config, solution, record)
        try:
            if outputs is None:
                outputs = run(solution)
            checks, checked = run_checker(sandbox, task, config, _check_items(cases, outputs))
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
        except VerifierError as exc:  # the task's checker cannot judge within its limits
            return record(Status.ERROR, f"verifier error: {exc}")
        criteria = tuple(judge(case, outputs, config, checks, encoded=encoded) for case in cases)
        status = Status.PASS if all(c.passed for c in criteria) else Status.FAIL
        summary = _summary(criteria, outputs)
        if rubric is None:
            return record(status, summary, criteria, outputs.result, checked)
        verified = outputs

        def misses(timed: CaseOutputs) -> str | None:
            """The first case ``timed`` gets wrong: judged as the verified run was. Where the
            task's checker judges, a value the verified run returned again is right without
            asking it; another value is asked about (a right answer need not be the same each
            run: a set's order of strings changes from process to process)."""
            differing: list[tuple[Case, str]] = []
            for case in cases:
                outcome = verified.outcomes.get(case.id)
                again = case
                if config.checker is not None and isinstance(outcome, Returned):
                    again = case.model_copy(update={"expected": outcome.value})
                criterion = judge(again, timed, config, {}, encoded=encoded)
                if criterion.passed:
                    continue
                if again is case:
                    return f"{case.id}: {criterion.evidence}"
                differing.append((case, criterion.evidence))
            if not differing:
                return None
            asked = [case for case, _ in differing]
            answers, _ = run_checker(sandbox, task, config, _check_items(asked, timed))
            for case, evidence in differing:
                if not judge(case, timed, config, answers, encoded=encoded).passed:
                    return f"{case.id}: {evidence}"
            return None

        submission = Submission(
            task, solution, config.entrypoint, self.empty_solution(task), misses
        )
        scored = score_rubric(rubric[0], submission, criteria, run)
        record.versions = record.versions.model_copy(update={"judges": scored.judges})
        return record(
            status, summary, criteria + scored.criteria, outputs.result, checked, scored=scored
        )


def _unrunnable(task: Task, config: CodeConfig, solution: Files) -> str:
    """Why ``solution`` cannot be run at all (its entrypoint missing, or files no sandbox takes:
    one past the task's file-size limit, too many, a file that is also a directory), or "".
    That is the submission's fault, never the sandbox's: a fail, not an unscored error that an
    oversized answer could use to stop a training run."""
    if config.entrypoint not in solution:
        return f"{config.entrypoint} was not submitted"
    try:
        check_files({**task.workspace, **solution}, task.spec.limits)
    except SandboxError as exc:
        return f"the solution cannot be run: {exc}"
    return ""


def run_cases(
    sandbox: Sandbox,
    *,
    workspace: Files,
    solution: Files,
    function: str,
    entrypoint: str,
    cases: Sequence[tuple[str, list[object]]],
    limits: Limits,
    packages: Sequence[str] = (),
    encoded: bool = False,
    inputs: str = "any",
) -> CaseOutputs:
    """Call ``function`` from ``solution`` on each case's arguments inside ``sandbox``, where
    it may import the standard library and ``packages`` (a task's ``code.imports``); with
    ``encoded``, arguments and results are encoded values (case files of format 4); ``inputs``
    is the task's ``code.inputs``: what the harness reports of the arguments after each call."""
    prepared = _cases_run(
        workspace=workspace,
        solution=solution,
        function=function,
        entrypoint=entrypoint,
        cases=cases,
        limits=limits,
        packages=packages,
        encoded=encoded,
        inputs=inputs,
    )
    return prepared.outputs(prepared.run_in(sandbox, packages))


class _Prepared(NamedTuple):
    """The harness's run of one solution (made by :func:`_cases_run`), and how to read it."""

    run: Run
    nonce: str
    ids: list[str]
    encoded: bool

    def run_in(self, sandbox: Sandbox, packages: Sequence[str]) -> ExecResult:
        return sandbox.run(
            [sandbox.python, "-I", "-S", "-c", RUNNER],
            files=dict(self.run.files),
            limits=self.run.limits,
            stdin=self.run.stdin,
            packages=packages,
        )

    def outputs(self, result: ExecResult) -> CaseOutputs:
        return decode_outputs(result, self.nonce, self.ids, encoded=self.encoded)

    def job(self) -> tuple[object, ...]:
        """What the sandbox is given, but the nonce: equal for runs that can only repeat each
        other."""
        files = tuple(sorted(self.run.files.items()))
        return files, self.run.limits, self.run.stdin.replace(self.nonce.encode(), b"", 1)


def _task_run(task: Task, config: CodeConfig, solution: Files, *, afresh: bool = True) -> _Prepared:
    """The harness's run of ``solution`` on ``task``'s hidden cases; ``afresh`` as
    :func:`_cases_run` takes it."""
    case_file = hidden_case_file(task)
    cases = () if case_file is None else case_file.cases
    encoded = case_file is not None and case_file.encoded
    return _cases_run(
        workspace=task.workspace,
        solution=solution,
        function=config.function,
        entrypoint=config.entrypoint,
        cases=[(case.id, case.args) for case in cases],
        limits=task.spec.limits,
        packages=config.imports,
        encoded=encoded,
        inputs=config.inputs,
        cases_json=None if case_file is None else case_file.harness_cases,
        afresh=afresh,
    )


def _cases_run(
    *,
    workspace: Files,
    solution: Files,
    function: str,
    entrypoint: str,
    cases: Sequence[tuple[str, list[object]]],
    limits: Limits,
    packages: Sequence[str] = (),
    encoded: bool = False,
    inputs: str = "any",
    cases_json: str | None = None,
    afresh: bool = True,
) -> _Prepared:
    """The harness's run of :func:`run_cases` (files, limits, stdin), and how to read it;
    ``cases_json``, when given, is ``cases`` already encoded as the job lists them.

    Where the inputs are checked and ``afresh``, the harness starts a fresh interpreter in a
    sandbox process that has loaded ``ctypes`` (a pool job), which would otherwise let the
    candidate read the nonce out of memory and forge the check's records. Without ``afresh``
    (the audit's batches, which only run a task's own solutions and assay's own hacks, never an
    agent's, see :meth:`CodeFamily.verify_many`) it runs where it is, for about 50 ms less a
    run."""
    nonce = f"@assay:{secrets.token_hex(8)}:"
    job = {
        "nonce": nonce,
        "function": function,
        "entrypoint": entrypoint,
        "path": [PACKAGES_DIR] if packages else [],
        "encoded": encoded,
        # Past this many bytes of its records the run's stdout is cut off: the harness stops
        # calling there (nothing after it would be read).
        "output": limits.max_output_kb * 1024,
    }
    if inputs != "any":
        job["inputs"] = inputs
        if afresh:
            job["source"] = RUNNER  # to start afresh where the sandbox's process loaded ctypes
    if cases_json is None:
        cases_json = harness_cases_json(cases)
    stdin = f'{json.dumps(job)[:-1]}, "cases": {cases_json}}}'.encode()
    run = Run(files={**workspace, **solution}, limits=limits, stdin=stdin)
    return _Prepared(run, nonce, [case_id for case_id, _ in cases], encoded)


def _legacy_verdict(
    sandbox: Sandbox, task: Task, config: CodeConfig, solution: Files, record: VerdictRecorder
) -> Verdict:
    """The verdict of a task with a legacy verifier: its original check, run beside the
    candidate (:mod:`assay.families.code.legacy`)."""
    try:
        criterion, result = run_legacy(sandbox, task, config, solution)
    except SandboxError as exc:
        return record(Status.ERROR, f"sandbox error: {exc}")
    status = Status.PASS if criterion.passed else Status.FAIL
    summary = f"legacy check {'passed' if criterion.passed else 'failed'} (in-sandbox verifier)"
    return record(status, summary, (criterion,), result)


def _check_items(cases: Sequence[Case], outputs: CaseOutputs) -> list[CheckItem]:
    """What the checker is asked about: every value returned where a value was expected."""
    if outputs.tampered is not None or outputs.import_error is not None:
        return []
    items = []
    for case in cases:
        outcome = outputs.outcomes.get(case.id)
        if case.raises is None and isinstance(outcome, Returned):
            items.append(CheckItem(case.id, case.args, outcome.value, case.expected))
    return items


def _summary(criteria: tuple[Criterion, ...], outputs: CaseOutputs) -> str:
    passed = sum(c.passed for c in criteria)
    text = f"{passed}/{len(criteria)} cases passed"
    if outputs.import_error:
        text += f"; the solution failed to load: {outputs.import_error.splitlines()[-1]}"
    elif outputs.tampered:
        text += f"; the run's records were tampered with: {outputs.tampered}"
    elif outputs.result.timed_out:
        text += "; the run timed out"
    return text


class VerdictRecorder:
    """Makes the verdicts of one verification, timed from its creation."""

    def __init__(self, task_id: str, versions: Versions) -> None:
        self.task_id = task_id
        self.versions = versions
        self.started = time.monotonic()

    def __call__(
        self,
        status: Status,
        summary: str,
        criteria: tuple[Criterion, ...] = (),
        result: ExecResult | None = None,
        checked: ExecResult | None = None,
        *,
        scored: Scored | None = None,
    ) -> Verdict:
        runs = [run for run in (result, checked) if run is not None]
        runs += scored.runs if scored else ()
        unscored = None if status is Status.ERROR else unscored_reason(criteria)
        if unscored is not None:
            summary = f"{summary}; no score: {unscored}"
        return Verdict(
            task_id=self.task_id,
            status=status,
            score=0.0 if status is Status.ERROR or unscored else verdict_score(criteria),
            score_error=unscored,
            criteria=criteria,
            summary=summary,
            logs=result.stderr[-4000:] if result else "",
            timings=Timings(
                wall_s=time.monotonic() - self.started,
                sandbox_s=sum(run.wall_s for run in runs),
                sandbox_cpu_s=sum(run.cpu_s for run in runs),
                peak_memory_mb=max(
                    (run.peak_memory_mb for run in runs if run.peak_memory_mb is not None),
                    default=None,
                ),
            ),
            versions=self.versions,
        )


def assay_version() -> str:
    from assay import __version__  # noqa: PLC0415 - avoids an import cycle at module load

    return __version__
