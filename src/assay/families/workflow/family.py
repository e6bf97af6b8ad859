"""The ``workflow`` family: a multi-step job against an emulated cloud, judged by final state."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import SandboxError, TaskFormatError
from assay.families import version_label
from assay.families.base import Exploit, Mutant, Probe
from assay.families.workflow.channel import PACKAGES, run_with
from assay.families.workflow.cloud import StateTooLargeError, births, read_state, seed
from assay.families.workflow.config import (
    SCRIPT,
    WorkflowConfig,
    expected_states,
    initial_state,
    workflow_config,
)
from assay.families.workflow.emulator import Emulator, emulators
from assay.families.workflow.judge import idempotence, judge_readings
from assay.families.workflow.state import CloudState
from assay.findings import Finding
from assay.sandbox import check_files, python_environment
from assay.sandbox.conditions import environment_of
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.taskdir import read_files, read_solution_file
from assay.verdicts import Criterion, Status, Timings, Verdict, Versions, score_of

if TYPE_CHECKING:
    from assay.families.workflow.tools import Replay, WorkflowTools

VERSION = "14"
EPISODE_FILE = ".episode"
"""A submission file naming a live episode's emulator by its secret token (see ``tools``)."""
EMPTY_SCRIPT = b"# does nothing\n"
DECIDING = frozenset({"state", "unchanged", "extra", "script", "idempotence", "episode"})
"""Kinds of criteria that decide the status; the others count in the score only."""
MAX_LOG_CHARS = 4_000
Readings = dict[str, CloudState]
"""Expected final states by reading (see :func:`assay.families.workflow.config.expected_states`)."""


class WorkflowFamily:
    """Cloud-API workflow tasks. See :mod:`assay.families.workflow` for the task layout."""

    name = "workflow"
    version = VERSION
    trusted_code: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._episodes: dict[str, _Episode] = {}
        self._lock = threading.Lock()

    def load_solution(self, path: Path) -> Files:
        """A solution directory holding ``solution.py``, or a single ``.py`` file taken as it."""
        path = Path(path)
        if path.is_dir():
            return read_files(path)
        return {SCRIPT: read_solution_file(path, missing="pass solution.py or its directory")}

    def empty_solution(self, task: Task) -> Files:
        """A script that does nothing."""
        return {SCRIPT: EMPTY_SCRIPT}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks of the task's workflow parts."""
        from assay.families.workflow.lint import lint_workflow_task  # noqa: PLC0415 - lint imports this

        return lint_workflow_task(task)

    def exploits(self, task: Task) -> list[Exploit]:
        """Reward hacks for the audit's red-team check (see :mod:`.exploits`)."""
        from assay.families.workflow.exploits import workflow_exploits  # noqa: PLC0415 - likewise

        return workflow_exploits(task)

    def mutants(self, task: Task) -> list[Mutant]:
        """Near misses of ``task``'s reference script, for the audit's mutation check (see
        :mod:`.mutants`)."""
        from assay.families.workflow.mutants import workflow_mutants  # noqa: PLC0415 - likewise

        return workflow_mutants(task)

    def probes(self, task: Task) -> list[Probe]:
        """Copies of ``task`` with one requirement changed, for the audit's sensitivity check
        (see :mod:`.probes`)."""
        from assay.families.workflow.probes import workflow_probes  # noqa: PLC0415 - likewise

        return workflow_probes(task)

    def tools(self, task: Task) -> WorkflowTools:
        """The agent's tools over a fresh emulator seeded with ``task``'s initial state."""
        from assay.families.workflow.tools import WorkflowTools  # noqa: PLC0415 - tools import this

        return WorkflowTools(task, self)

    def open_episode(self, token: str, emulator: Emulator, replay: Replay) -> None:
        """Let a submission naming ``token`` be judged on ``emulator``, the episode's calls
        being ``replay`` (see ``tools``)."""
        with self._lock:
            self._episodes[token] = _Episode(emulator, replay)

    def close_episode(self, token: str) -> _Episode | None:
        """Forget ``token``; its episode's emulator, if it was open, is the caller's to close."""
        with self._lock:
            return self._episodes.pop(token, None)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Judge ``solution``: a live episode's emulator when it names one, else its script run
        in the sandbox against a fresh emulator seeded with the initial state.

        ``sandbox`` does not run the script: workflow jobs need the emulator's socket bound in,
        which only :class:`assay.families.workflow.channel.ChannelSandbox` does. The variables
        it sets on its commands (the flaky check's conditions) are set on the script's too.
        """
        config = workflow_config(task)
        initial = initial_state(task, config)
        expected = expected_states(task, config)
        record = _Recorder(task.id, self._versions(task))
        token = solution.get(EPISODE_FILE, b"").decode(errors="replace").strip()
        episode = self.close_episode(token) if token else None
        if episode is not None:
            with episode.emulator:
                return _judge_episode(episode, config, initial, expected, record)
        case = _Case(task, config, initial, expected, environment_of(sandbox))
        return _judge_script(case, solution, record)

    def _versions(self, task: Task) -> Versions:
        from assay import __version__  # noqa: PLC0415 - avoids an import cycle at module load

        label = version_label(self)
        return Versions(
            task=task.content_version(label),
            family=label,
            assay=__version__,
            python=python_environment(PACKAGES),
        )


@dataclass
class _Recorder:
    """Builds the verdict, timing everything since it was made."""

    task_id: str
    versions: Versions
    started: float = field(default_factory=time.monotonic)
    runs: list[ExecResult] = field(default_factory=list)
    reading: str = ""
    """The reading of a vague request the state was judged by ("" for the expected file)."""

    def __call__(
        self, status: Status, summary: str, criteria: tuple[Criterion, ...] = ()
    ) -> Verdict:
        score = score_of(criteria) if status is not Status.ERROR else 0.0
        logs = "\n".join(_log(run) for run in self.runs)[-MAX_LOG_CHARS:]
        return Verdict(
            task_id=self.task_id,
            status=status,
            score=score,
            criteria=criteria,
            summary=summary,
            logs=logs,
            timings=Timings(
                wall_s=time.monotonic() - self.started,
                sandbox_s=sum(run.wall_s for run in self.runs),
                sandbox_cpu_s=sum(run.cpu_s for run in self.runs),
            ),
            versions=self.versions,
        )


def _log(run: ExecResult) -> str:
    return f"exit {run.exit_code}\n{run.stdout[-1500:]}\n{run.stderr[-1500:]}".strip()


@dataclass(frozen=True)
class _Episode:
    """A live episode: its emulator, and its calls to replay (see ``tools``)."""

    emulator: Emulator
    replay: Replay


def _judge_episode(
    episode: _Episode,
    config: WorkflowConfig,
    initial: CloudState,
    expected: Readings,
    record: _Recorder,
) -> Verdict:
    """Judge the episode's final state; then, unless reruns are off, replay its calls on that
    state when every deciding criterion passed, as a script is run a second time."""
    actual = _read(episode.emulator)
    if isinstance(actual, str):
        failed = (Criterion(name="state", passed=False, evidence=actual, kind="episode"),)
        return record(Status.FAIL, actual, failed)
    record.reading, judged = judge_readings(initial, expected, actual)
    criteria = _recreated(list(judged), episode.replay.born, episode.emulator)
    if config.rerun == "off" or not all(c.passed for c in criteria if c.kind in DECIDING):
        return _decide(tuple(criteria), record)
    try:
        record.runs.extend(episode.replay.run(episode.emulator))
    except SandboxError as exc:
        return record(Status.ERROR, f"sandbox error: {exc}")
    criteria.append(_rerun(config, actual, _read(episode.emulator)))
    return _decide(tuple(criteria), record)


@dataclass(frozen=True)
class _Case:
    """What a script submission is judged against."""

    task: Task
    config: WorkflowConfig
    initial: CloudState
    expected: Readings
    env: dict[str, str] = field(default_factory=dict)
    """Variables set on the script's runs (see :mod:`assay.sandbox.conditions`)."""


def _judge_script(case: _Case, solution: Files, record: _Recorder) -> Verdict:
    if SCRIPT not in solution:
        return record(Status.FAIL, f"{SCRIPT} was not submitted")
    unplaceable = _unplaceable(case.task, solution)
    if unplaceable is not None:
        why = f"the submitted files cannot be files of the workspace: {unplaceable}"
        refused = Criterion(name="script", passed=False, evidence=why, kind="script")
        return record(Status.FAIL, why, (refused,))
    try:
        emulator = emulators().start()
    except SandboxError as exc:
        return record(Status.ERROR, f"the emulator did not start: {exc}")
    with emulator:
        try:
            seed(emulator, case.initial, f"{case.task.id}/workspace/{case.config.initial}")
            born = births(emulator)
        except TaskFormatError:
            raise  # the task's state is at fault, which no retry mends
        except Exception as exc:  # noqa: BLE001 - nothing of the candidate's has run yet
            return record(Status.ERROR, f"seeding the emulator failed: {str(exc)[:300]}")
        try:
            files = {**case.task.workspace, **solution}
            criteria = _run_and_judge(case, emulator, files, record, born)
        except SandboxError as exc:
            return record(Status.ERROR, f"sandbox error: {exc}")
    return _decide(tuple(criteria), record)


def _unplaceable(task: Task, solution: Files) -> str | None:
    """Why the workspace with ``solution`` in it cannot be written (a name that is empty,
    absolute, climbing out with ``..`` or holding a NUL byte, a file past the task's file-size
    limit, too many files, a file that is also a directory), or None. The sandbox refuses such
    files as an error of its own; a submission holding one is the candidate's doing, a fail,
    never an unscored error that an oversized answer could use to stop a training run."""
    try:
        check_files({**task.workspace, **solution}, task.spec.limits)
    except SandboxError as exc:
        return str(exc)
    return None


def _run_and_judge(
    case: _Case, emulator: Emulator, files: Files, record: _Recorder, born: dict[str, str]
) -> list[Criterion]:
    """Run the script and judge the state after it; then, unless reruns are off, run it again
    when every deciding criterion passed (the scored-only ones, such as the api-calls count,
    must not spare a script the idempotence check)."""
    limits = case.task.spec.limits
    before = emulator.requests_served()
    first = run_with(emulator, SCRIPT, files, limits, case.env)
    record.runs.append(first)
    calls = _calls(emulator, before, case.config)
    actual = _read(emulator)
    if isinstance(actual, str):
        return [_ran(first), _unread(actual), calls]
    record.reading, judged = judge_readings(case.initial, case.expected, actual)
    criteria = [_ran(first), *_recreated(judged, born, emulator), calls]
    if case.config.rerun == "off" or not all(c.passed for c in criteria if c.kind in DECIDING):
        return criteria  # a second run only tells more when the first one was right
    record.runs.append(run_with(emulator, SCRIPT, files, limits, case.env))
    return [*criteria, _rerun(case.config, actual, _read(emulator))]


def _rerun(config: WorkflowConfig, first: CloudState, again: CloudState | str) -> Criterion:
    """The idempotence criterion: the state after the work was done again (or why it could not
    be read) against the state after it was done once. Whether the second time ran to its end
    is not asked: only the state it left counts."""
    if isinstance(again, str):
        kind = "idempotence" if config.rerun == "required" else "idempotence-scored"
        rerun = Criterion(name="idempotent", passed=False, evidence=again, kind=kind)
    else:
        rerun = idempotence(first, again, required=config.rerun == "required")
    return rerun.model_copy(update={"weight": config.rerun_weight})


def _recreated(
    criteria: list[Criterion], born: dict[str, str], emulator: Emulator
) -> list[Criterion]:
    """``criteria``, those of resources the task keeps (as they are, or changed in place)
    failed where the script (or the episode) deleted the resource and created it again: what
    it put back is another resource, whatever it holds (see
    :func:`assay.families.workflow.cloud.births`)."""
    try:
        now = births(emulator)
    except Exception:  # noqa: BLE001 - the state was read; this failing is no evidence of more
        return criteria
    again = {label for label, created in born.items() if now.get(label, created) != created}
    note = "it was deleted and created again, not kept"
    return [
        c.model_copy(update={"passed": False, "evidence": _joined(c.evidence, note)})
        if c.kind in {"state", "unchanged"} and c.name in again
        else c
        for c in criteria
    ]


def _joined(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def _calls(emulator: Emulator, before: int, config: WorkflowConfig) -> Criterion:
    """The api-calls criterion: requests the script made, against the reference's. It is about
    how the work was done, so it scales the score of the work and never adds to it (one
    request alone earned its full share)."""
    calls = partial(Criterion, name="api-calls", kind="api-calls", met_at_start=True)
    try:
        made = emulator.requests_served() - before
    except (SandboxError, OSError) as exc:  # the candidate broke its emulator
        return calls(passed=False, weight=0.0, evidence=str(exc)[:300])
    reference = config.reference_calls
    if reference is None or config.calls_weight == 0:
        return calls(passed=True, weight=0.0, evidence=f"{made} requests")
    return calls(
        passed=made <= 2 * reference,
        weight=config.calls_weight,
        score=min(1.0, reference / made) if made else 0.0,
        evidence=f"{made} requests, the reference {reference}",
    )


def _decide(criteria: tuple[Criterion, ...], record: _Recorder) -> Verdict:
    deciding = [c for c in criteria if c.kind in DECIDING]
    failed = [c for c in deciding if not c.passed]
    status = Status.FAIL if failed else Status.PASS
    if failed:
        summary = f"{len(failed)} of {len(deciding)} checks failed: " + ", ".join(
            c.name for c in failed[:5]
        )
    else:
        summary = f"all {len(deciding)} checks hold"
    if record.reading:
        summary += f" (reading {record.reading})"
    return record(status, summary, criteria)


def _ran(run: ExecResult) -> Criterion:
    """Whether the script ran to its end within the limits."""
    if run.ok:
        return Criterion(name="script", passed=True, kind="script", met_at_start=True)
    if run.timed_out:
        why = "the script was stopped at the time limit"
    elif run.out_of_memory:
        why = "the script was stopped at the memory limit"
    elif run.cpu_exceeded:
        why = "the script was stopped at the CPU limit"
    elif run.exit_code is None:
        why = f"the script was killed by signal {run.signal}"
    else:
        why = f"the script exited with status {run.exit_code}"
    tail = run.stderr.strip().splitlines()[-3:]
    evidence = why + (": " + " | ".join(tail) if tail else "")
    return Criterion(
        name="script", passed=False, evidence=evidence[:1500], kind="script", met_at_start=True
    )


def _read(emulator: Emulator) -> CloudState | str:
    """The emulator's state, or why it could not be read (after the candidate ran, that is the
    candidate's doing: a state too large, an emulator it broke)."""
    try:
        return read_state(emulator)
    except StateTooLargeError as exc:
        return f"the final state is too large to be an answer: {exc}"
    except Exception as exc:  # noqa: BLE001 - whatever the candidate left, it is a fail
        return f"the emulator's state could not be read: {type(exc).__name__}: {str(exc)[:300]}"


def _unread(why: str, name: str = "state") -> Criterion:
    return Criterion(name=name, passed=False, evidence=why, kind="state")


def task_format_error_of(task: Task) -> TaskFormatError | None:
    """The first problem that stops ``task`` from being verified, or None."""
    try:
        config = workflow_config(task)
        initial_state(task, config)
        expected_states(task, config)
    except TaskFormatError as exc:
        return exc
    return None
