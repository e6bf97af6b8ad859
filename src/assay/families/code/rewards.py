"""Rewards beyond correct or not: a code task's rubric criteria, scored after its hidden cases.

- ``correctness``: the weighted share of hidden cases passed (case weights from the case file);
- ``runtime``: the submission's CPU time on the hidden cases against the reference's, see
  :func:`runtime_criterion`;
- ``style``: ruff's findings on every submitted ``.py`` file, see :func:`style_criterion`;
- ``judge``: a model's answer to a question about the submission, every file of it that the
  criteria read (:mod:`assay.judges`).

Both read the whole submission (:func:`_sources`): every ``.py`` file, and every other file the
submission adds to the task's workspace or changes in it. A tidy entrypoint that imports its
messy work from a second module once scored 1.0 on style, and so did one that ran its messy work
from a file of another name (``exec`` of an ``impl.txt``, a ``.zip`` put on ``sys.path``, source
held in a ``.json``). Which text a program reads and runs cannot be known without running it, so
the rule is by name: a submission's code belongs in ``.py`` files, and a submission that adds or
changes any other file scores 0 on style, as one holding a compiled module (``.pyc``, ``.so``,
which Python imports and no criterion can read) does; the judge is shown that file too. The
workspace's own files, as the task gave them, count for nothing.

The criteria besides correctness count only for a submission that passes the hidden cases: a
function that does nothing is the fastest and tidiest of all, and must not be paid for it.
"""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import sysconfig
import tempfile
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SandboxError, VerifierError
from assay.families.code.outputs import CaseOutputs
from assay.families.code.rubric import (
    CORRECTNESS,
    JudgeCriterion,
    Rubric,
    RuntimeCriterion,
    StyleCriterion,
)
from assay.judges.model import ModelJudge, judge_criterion
from assay.sandbox.protocol import ExecResult
from assay.tasks.model import Files, Task
from assay.verdicts import Criterion, JudgeVersion, score_of

MAX_STYLE_SOURCE = 200_000
"""Longest entrypoint ruff is run on, in characters; a longer one scores 0 on style."""
STYLE_TIMEOUT_S = 10.0
EVIDENCE_LIMIT = 300
NOT_JUDGED = "not judged: the submission fails the hidden cases"

RunCases = Callable[[Files], CaseOutputs]
"""Runs a solution on the hidden cases in a fresh sandbox job."""


@dataclass(frozen=True)
class Scored:
    """The rubric's criteria on one submission, and what it took to score them."""

    criteria: tuple[Criterion, ...]
    """Correctness first, then the rubric's criteria in its order."""
    runs: tuple[ExecResult, ...]
    """The sandbox jobs run for them (timing runs)."""
    judges: tuple[JudgeVersion, ...]
    """The judges asked."""


@dataclass(frozen=True)
class Submission:
    """What the criteria look at."""

    task: Task
    files: Files
    """The submitted files."""
    entrypoint: str
    """The file that defines the function."""
    empty: Files
    """The family's do-nothing solution: the harness's own cost, taken off timings."""
    misses: Callable[[CaseOutputs], str | None] = lambda outputs: None
    """Why outputs of the submission would not pass its hidden cases, or None: a timing run
    that was fast because it was wrong times nothing. It may run the task's checker, and raise
    :class:`SandboxError` or :class:`VerifierError` as that does."""


def score_rubric(
    rubric: Rubric, submission: Submission, checks: tuple[Criterion, ...], run: RunCases
) -> Scored:
    """Every criterion of ``rubric`` on ``submission``, whose hidden cases gave ``checks``."""
    passed = all(c.passed for c in checks)
    correctness = Criterion(
        name=CORRECTNESS,
        passed=passed,
        weight=rubric.correctness.weight,
        evidence=f"{sum(c.passed for c in checks)}/{len(checks)} cases passed (weighted "
        f"{score_of(checks):.2f})",
        part="rubric",
        kind="correctness",
        score=score_of(checks),
    )
    criteria, runs, judges = [correctness], [], []
    for spec in rubric.criteria:
        if not passed:
            criteria.append(_rubric(spec.name, spec.weight, spec.kind, False, 0.0, NOT_JUDGED))
        elif isinstance(spec, RuntimeCriterion):
            criterion, timed = runtime_criterion(spec, submission, run)
            criteria.append(criterion)
            runs += timed
        elif isinstance(spec, StyleCriterion):
            criteria.append(style_criterion(spec, _sources(submission)))
        else:
            judge = ModelJudge(spec)
            criterion = _judged(spec, judge, submission)
            criteria.append(criterion)
            served = criterion.judge.served_model if criterion.judge else None
            judges.append(judge.version(spec.name, served))
    return Scored(tuple(criteria), tuple(runs), tuple(judges))


def _judged(spec: JudgeCriterion, judge: ModelJudge, submission: Submission) -> Criterion:
    reference = submission.task.solutions.get("reference", {}).get(submission.entrypoint)
    return judge_criterion(
        judge,
        submission.task,
        _joined(_sources(submission)),
        None if reference is None else _text(reference),
        name=spec.name,
        weight=spec.weight,
    )


def runtime_criterion(
    spec: RuntimeCriterion, submission: Submission, run: RunCases
) -> tuple[Criterion, list[ExecResult]]:
    """The submission's CPU time on the hidden cases against the reference's.

    Each measurement is one fresh sandbox job that loads a solution and calls it once on every
    hidden case, timed by the sandbox (CPU time of all the job's processes), which nothing in
    the job can forge: no clock the candidate could patch, no record it could print. Each
    timing run of the submission is judged again (``Submission.misses``): one that is wrong
    scores 0, or a submission that is slow and right in some runs and fast and wrong in others
    would be timed at its fastest (best of), wrong, run. The
    submission, the reference and the do-nothing stub each run ``rounds`` times, interleaved
    (the order rotates each round), and the best of each is kept. The stub's best is the cost
    of starting the job and the harness, taken off the other two. Each solution runs in its own
    job, never beside the other, so a candidate cannot slow the reference down (or leave work
    behind for it), and a fresh process each time leaves nothing to memoise across repetitions.

    Noise counts for nothing. The floor is ``floor_ms`` or the widest spread (slowest run less
    fastest) of the trusted runs, the stub's and the reference's, whichever is larger: on a
    busy machine the same code measured 30 ms apart between runs, and the reference timed
    against itself scored 0.69. The submission's own spread never counts (a candidate could
    widen it on purpose). A submission that comes out slower than the reference is timed for
    ``rounds`` more rounds before it is scored, the best over all of them kept: one unlucky
    round costs nothing.
    """
    reference = submission.task.solutions["reference"]
    contenders = {
        "stub": submission.empty,
        "reference": reference,
        "submission": submission.files,
    }
    times: dict[str, list[float]] = {label: [] for label in contenders}
    runs: list[ExecResult] = []
    order = list(contenders)
    for round_ in range(2 * spec.rounds):
        if round_ == spec.rounds and _timed(spec, times)[0] >= 1.0:
            break  # as fast as the reference: no confirmation needed
        shift = round_ % len(order)
        for label in order[shift:] + order[:shift]:
            try:
                outputs = run(contenders[label])
            except SandboxError as exc:  # infrastructure: the status stands, the score cannot
                error = f"the sandbox failed while timing: {exc}"
                return _rubric(spec.name, spec.weight, "runtime", False, None, error, error), runs
            runs.append(outputs.result)
            problem = _incomplete(outputs)
            if problem is None and label == "submission":
                try:
                    wrong = submission.misses(outputs)
                except (SandboxError, VerifierError) as exc:  # the task's checker, asked again
                    error = f"the task's checker failed while timing: {exc}"
                    criterion = _rubric(
                        spec.name, spec.weight, "runtime", False, None, error, error
                    )
                    return criterion, runs
                problem = None if wrong is None else f"it got a case wrong: {wrong}"
            if problem is not None and label == "submission":
                evidence = f"the timing run of the submission did not complete: {problem}"
                return _rubric(spec.name, spec.weight, "runtime", False, 0.0, evidence), runs
            if problem is not None:
                error = f"the timing run of the task's {label} did not complete: {problem}"
                return _rubric(spec.name, spec.weight, "runtime", False, None, error, error), runs
            times[label].append(outputs.result.cpu_s)
    score, evidence = _timed(spec, times)
    passed = score >= spec.pass_at
    return _rubric(spec.name, spec.weight, "runtime", passed, score, evidence), runs


def _timed(spec: RuntimeCriterion, times: dict[str, list[float]]) -> tuple[float, str]:
    """The runtime score of the CPU times measured so far (seconds, per contender), and its
    evidence: best of each, the stub's best taken off, the floor raised to the trusted runs'
    spread."""
    best = {label: min(seconds) for label, seconds in times.items()}
    noise = max(max(times[label]) - best[label] for label in ("stub", "reference"))
    floor = max(spec.floor_ms / 1000, noise)
    mine = max(best["submission"] - best["stub"], 0.0)
    theirs = max(best["reference"] - best["stub"], 0.0)
    ratio = max(mine, floor) / max(theirs, floor)
    rounds = len(times["submission"])
    evidence = (
        f"CPU {mine * 1000:.1f} ms on the cases against the reference's {theirs * 1000:.1f} ms: "
        f"ratio {ratio:.2f} (best of {rounds}; the harness's {best['stub'] * 1000:.1f} ms "
        f"taken off; below {floor * 1000:.1f} ms counts as {floor * 1000:.1f} ms, the larger "
        f"of floor_ms and the spread of the stub's and the reference's runs)"
    )
    return runtime_score(ratio, spec.max_ratio), evidence


def runtime_score(ratio: float, max_ratio: float) -> float:
    """1 at or below the reference's time, 0 at ``max_ratio`` times it or more, and between
    falling with the logarithm of the ratio (twice as slow costs as much at any speed)."""
    if ratio <= 1:
        return 1.0
    if ratio >= max_ratio:
        return 0.0
    return 1.0 - math.log(ratio) / math.log(max_ratio)


def _incomplete(outputs: CaseOutputs) -> str | None:
    if outputs.tampered is not None:
        return f"its records were tampered with: {outputs.tampered}"
    if outputs.import_error is not None:
        return f"it did not load: {outputs.import_error}"
    if not outputs.result.ok:
        return outputs.missing_reason()
    return None


@dataclass(frozen=True)
class StyleReport:
    """What ruff said about a source."""

    findings: tuple[str, ...]
    """One ``line:column code message`` per finding, in ruff's order."""
    problem: str | None = None
    """Why ruff gave no report on the source (it is too long, ruff timed out or failed)."""


COMPILED = (".pyc", ".pyo", ".so", ".pyd")
"""Endings of compiled modules, which Python imports and no criterion can read."""


def compiled(path: str) -> bool:
    """Whether ``path`` is a compiled module, or lies in a ``__pycache__`` directory."""
    return path.endswith(COMPILED) or "__pycache__" in path.split("/")


def _sources(submission: Submission) -> dict[str, bytes]:
    """The files the criteria read: the entrypoint first, then, by name, every other ``.py``
    file, every compiled module, and every other file that the submission adds to the task's
    workspace or changes in it (what a solution could read and run: an ``impl.txt`` it runs
    with ``exec``, a ``.zip`` it puts on ``sys.path``)."""
    files, given = submission.files, submission.task.workspace
    others = sorted(
        name
        for name in files
        if name != submission.entrypoint
        and (name.endswith((".py", *COMPILED)) or given.get(name) != files[name])
    )
    return {name: files[name] for name in [submission.entrypoint, *others] if name in files}


def _joined(sources: dict[str, bytes]) -> str:
    """One text of ``sources``, each file after a line naming it where there are several; a
    file that is not UTF-8 text (a ``.zip``, a compiled module) is named with its size."""
    if len(sources) == 1:
        return _shown(*next(iter(sources.items())))
    return "\n".join(f"# file: {name}\n{_shown(name, data)}" for name, data in sources.items())


def _shown(name: str, data: bytes) -> str:
    if name.endswith(".py"):
        return python_text(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"({len(data)} bytes, not UTF-8 text: not shown)"


def style_criterion(spec: StyleCriterion, sources: dict[str, bytes]) -> Criterion:
    """ruff on each submitted source file, findings added up: 1 with no finding, 0 with
    ``max_findings`` or more; 0 as well when a compiled module or any other file than a ``.py``
    file is among them (:func:`_sources` passes only those the submission added or changed):
    ruff reads Python source alone, and code kept in another file would go unread.

    ruff runs in this process's environment, outside the sandbox: it parses the text and never
    runs it. It gets the text on stdin, in an empty directory, with ``--isolated`` (no
    configuration file is read, so none the candidate submits), ``--ignore-noqa`` (a
    ``# ruff: noqa`` in the text hides nothing), no cache, and a time limit. A source it cannot
    report on (too long, or one that makes it time out or fail) scores 0: the text is the
    candidate's. Each text is read as Python reads it (:func:`python_text`), in the encoding it
    declares.
    """
    compiled = [name for name in sources if name.endswith(COMPILED)]
    if compiled:
        evidence = f"{compiled[0]} is a compiled module: style is judged on source only"
        return _rubric(spec.name, spec.weight, "style", False, 0.0, evidence)
    other = [name for name in sources if not name.endswith(".py")]
    if other:
        evidence = (
            f"{other[0]} is not a .py file: style is judged on Python source only, and a "
            "submission's code belongs in .py files"
        )
        return _rubric(spec.name, spec.weight, "style", False, 0.0, evidence)
    findings: list[str] = []
    for name, source in sources.items():
        try:
            report = ruff_report(python_text(source), spec.select, spec.line_length)
        except FileNotFoundError as exc:
            return _rubric(spec.name, spec.weight, "style", False, None, str(exc), str(exc))
        if report.problem is not None:
            evidence = f"no style report on {name}: {report.problem}"
            return _rubric(spec.name, spec.weight, "style", False, 0.0, evidence)
        where = f"{name}:" if len(sources) > 1 else ""
        findings += [where + finding for finding in report.findings]
    count = len(findings)
    score = max(0.0, 1.0 - count / spec.max_findings)
    evidence = f"{count} ruff finding(s)" + (": " + "; ".join(findings[:5]) if count else "")
    return _rubric(spec.name, spec.weight, "style", score >= spec.pass_at, score, evidence)


def ruff_report(source: str, select: tuple[str, ...], line_length: int) -> StyleReport:
    """ruff's findings on ``source`` as ``solution.py``; raises :class:`FileNotFoundError` when
    ruff is not installed (assay depends on it)."""
    if len(source) > MAX_STYLE_SOURCE:
        return StyleReport((), f"the source is longer than {MAX_STYLE_SOURCE} characters")
    command = [
        _ruff(),
        "check",
        "--isolated",
        "--no-cache",
        "--quiet",
        "--ignore-noqa",
        "--output-format=json",
        f"--select={','.join(select)}",
        f"--line-length={line_length}",
        "--stdin-filename=solution.py",
        "-",
    ]
    with tempfile.TemporaryDirectory(prefix="assay-style-") as empty:
        try:
            done = subprocess.run(
                command,
                input=source.encode("utf-8", errors="replace"),
                capture_output=True,
                timeout=STYLE_TIMEOUT_S,
                cwd=empty,
                env={"PATH": "/usr/bin:/bin", "HOME": empty},
                check=False,
            )
        except subprocess.TimeoutExpired:
            return StyleReport((), f"ruff took longer than {STYLE_TIMEOUT_S:g} s")
    try:
        found = json.loads(done.stdout) if done.returncode in (0, 1) else None
    except ValueError:
        found = None
    if not isinstance(found, list):
        tail = done.stderr.decode(errors="replace").strip()[-200:]
        return StyleReport((), f"ruff failed (exit {done.returncode}): {tail}")
    return StyleReport(tuple(_finding(item) for item in found))


def _finding(item: object) -> str:
    if not isinstance(item, dict):
        return "?"
    where = item.get("location") or {}
    row = where.get("row", "?") if isinstance(where, dict) else "?"
    code = item.get("code") or "syntax"
    return f"{row}: {code} {str(item.get('message', ''))[:120]}"


def _ruff() -> str:
    beside = Path(sysconfig.get_path("scripts")) / "ruff"
    if beside.is_file():
        return str(beside)
    found = shutil.which("ruff")
    if found is None:
        raise FileNotFoundError("ruff is not installed (assay depends on it: reinstall assay)")
    return found


def _rubric(  # noqa: PLR0917 - one call per outcome, each reads as a row
    name: str,
    weight: float,
    kind: str,
    passed: bool,
    score: float | None,
    evidence: str,
    error: str | None = None,
) -> Criterion:
    return Criterion(
        name=name,
        passed=passed,
        weight=weight,
        evidence=evidence[:EVIDENCE_LIMIT],
        part="rubric",
        kind=kind,
        score=score,
        error=error[:EVIDENCE_LIMIT] if error else None,
    )


def python_text(source: bytes) -> str:
    """``source`` as Python reads a module: in the encoding its first two lines declare, UTF-8
    when they declare none; bytes that do not decode are replaced (Python would not load it).
    A ``.py`` file declaring ``# coding: utf-7`` kept its whole program in comments, where
    ``+AAo-`` is a line break, and read as UTF-8 it showed ruff the comments alone."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return _text(source)


def _text(source: bytes) -> str:
    return source.decode("utf-8", errors="replace")
