"""``assay import humaneval`` and ``assay import mbpp``: Python benchmarks as code tasks.

The files are read by :mod:`assay.families.code.problems`. Each problem becomes a code task: the
prompt, the reference (HumanEval: prompt and canonical solution; MBPP: the code), the entry
point. Its check is run once, in the sandbox, against a recording candidate wrapping the
reference (:mod:`assay.families.code._recorder`): the concrete calls it makes, loops and
tolerances included, become hidden cases judged outside the sandbox (case file format 4, so
tuples, sets and other values JSON cannot hold keep their type). Where the check cannot be
turned into cases faithfully, the task keeps it as a legacy in-sandbox verifier
(:mod:`assay.families.code.legacy`), which the audit quarantines. A problem whose reference
fails its own check, or whose task does not pass its own reference, is reported and not
imported. The record the sandbox returns is read as hostile data. Installed packages that the
reference or the check imports besides the standard library (EvalPlus's checks import numpy)
are in the recording job, and the task names them in ``code.imports``.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
import secrets
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from importlib import metadata
from importlib.resources import files as package_files

from assay._ast import ast_parse
from assay.errors import InputError
from assay.families.code._codec import EncodingError, decode, normalize
from assay.families.code.casefile import ENCODED, Case, cases_json
from assay.families.code.config import CodeConfig, code_config
from assay.families.code.family import CODEC, CodeFamily
from assay.families.code.problems import Problem, read_humaneval, read_mbpp
from assay.families.code.records import NotPlainError, parse_plain
from assay.families.code.shown import argument_key, examples
from assay.sandbox import PACKAGES_DIR, package_modules
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.spec import Limits, Split, TaskSpec
from assay.tasks.taskdir import MAX_PROMPT_BYTES
from assay.verdicts import Status

__all__ = [
    "Imported",
    "Outcome",
    "Problem",
    "ProblemReport",
    "import_problems",
    "read_humaneval",
    "read_mbpp",
    "report_lines",
]

RECORDER = CODEC + package_files("assay.families.code").joinpath("_recorder.py").read_text(
    encoding="utf-8"
)
MAX_CALLS = 2000
"""Most calls of one check turned into cases; a check making more is kept as a legacy one."""
EXTRACT_LIMITS = Limits(timeout_s=60, cpu_s=60, memory_mb=1024, max_output_kb=16384)
"""Limits of the one sandbox job that records and probes a problem's check."""
PROBE_SECONDS = 40.0
"""The seconds into that job after which probing gives up and the check is kept as a legacy one
(each probe replays every call: thousands of calls would take minutes). Wall-clock seconds, as
the job's limit: on a busy machine a large check may stay legacy where it would have become
cases on an idle one."""
LEGACY_CHECK = "check.py"
TOLERANCES = (1e-6, 1e-4, 1e-2)
"""The float tolerances the recorder states (its tightest, the judge's default, it leaves out):
a record giving another was not written by it."""
STATUSES = ("cases", "legacy", "failed")


class Outcome(StrEnum):
    """What became of one problem."""

    CASES = "cases"
    LEGACY = "legacy"
    FAILED = "failed"


@dataclass(frozen=True)
class ProblemReport:
    """The import report's line for one problem."""

    where: str
    source_id: str
    outcome: Outcome
    detail: str
    """How many cases, why legacy, or why it failed."""
    task_id: str | None = None
    cases: int = 0
    fooled: bool | None = None
    """Whether the original check passes an object equal to everything (None: not known)."""


@dataclass(frozen=True)
class Imported:
    """What an import made: the tasks, and a report line per problem."""

    tasks: list[Task]
    reports: list[ProblemReport]

    @property
    def failed(self) -> list[ProblemReport]:
        """The problems that could not be imported at all."""
        return [r for r in self.reports if r.outcome is Outcome.FAILED]


def import_problems(
    problems: list[Problem],
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_problem: Callable[[], None] | None = None,
) -> Imported:
    """Turn each problem into a task (see the module's docstring), ``workers`` at a time.
    Raises :class:`InputError`, before anything runs, when two problems would make tasks of
    the same id."""
    family = CodeFamily()
    first: dict[str, Problem] = {}
    for problem in problems:
        earlier = first.setdefault(_slug(problem), problem)
        if earlier is not problem:
            raise InputError(
                f"{earlier.where} ({earlier.task_id!r}) and {problem.where} "
                f"({problem.task_id!r}) would both be task {_slug(problem)}",
                field="task_id",
                fix="give each problem a task_id of its own",
            )

    def make(problem: Problem) -> tuple[Task | None, ProblemReport]:
        made = _import_one(problem, sandbox, family)
        if on_problem is not None:
            on_problem()
        return made

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        made = list(pool.map(make, problems))
    return Imported(
        tasks=[task for task, _ in made if task is not None], reports=[r for _, r in made]
    )


_SLUG = re.compile(r"[^a-z0-9]+")


def _slug(problem: Problem) -> str:
    """The id of the task a problem makes: its task_id, lower case, ``-`` for the rest (a
    task_id with no ASCII letter or digit: ``problem-`` and a digest of it)."""
    digest = hashlib.sha256(problem.task_id.encode(errors="replace")).hexdigest()[:8]
    slug = _SLUG.sub("-", problem.task_id.lower()).strip("-")[:80] or f"problem-{digest}"
    return slug if slug.startswith(problem.benchmark) else f"{problem.benchmark}-{slug}"


def _import_one(
    problem: Problem, sandbox: Sandbox, family: CodeFamily
) -> tuple[Task | None, ProblemReport]:
    slug = _slug(problem)

    def report(outcome: Outcome, detail: str, **more: object) -> ProblemReport:
        return ProblemReport(problem.where, problem.task_id, outcome, detail, **more)  # type: ignore[arg-type]

    packages = _packages(problem)
    record = _unfit(problem) or _extract(problem, sandbox, packages)
    if isinstance(record, str):
        return None, report(Outcome.FAILED, record)
    fooled = record.get("always_equal") if isinstance(record.get("always_equal"), bool) else None
    status = record["status"]
    try:
        task = _task(problem, slug, record, packages)
        code_config(task)
    except (EncodingError, ValueError, TypeError, InputError) as exc:
        return None, report(Outcome.FAILED, f"the recorded calls are malformed: {exc}"[:500])
    verdict = family.verify(task, task.solutions["reference"], sandbox)
    legacy = str(record.get("reason", ""))[:300] if status == "legacy" else None
    if verdict.status is not Status.PASS:
        why = f"the task does not pass its own reference ({verdict.status.value}): "
        why += verdict.summary[:300]
        if legacy is not None:  # a result that cannot be encoded cannot be rebuilt for the check
            why += f", kept as a legacy in-sandbox verifier since {legacy}"
        return None, report(Outcome.FAILED, why, fooled=fooled)
    if legacy is not None:
        why = f"kept as a legacy in-sandbox verifier: {legacy}"
        return task, report(Outcome.LEGACY, why, task_id=task.id, fooled=fooled)
    count = len(record["calls"])  # type: ignore[arg-type]
    how = f"converted to {count} case{'' if count == 1 else 's'}"
    unchecked = record.get("unchecked")
    if isinstance(unchecked, int) and unchecked > 0:
        calls = "1 call" if unchecked == 1 else f"{unchecked} calls"
        how += (
            f" ({calls} left out: the check makes {'it' if unchecked == 1 else 'them'} and "
            "never looks at the result)"
        )
    rules = _rules(code_config(task))
    if rules:
        how += f"; compared as the check does: {', '.join(rules)}"
    return task, report(Outcome.CASES, how, task_id=task.id, cases=count, fooled=fooled)


def _unfit(problem: Problem) -> str | None:
    """Why the task ``problem`` would make could not be saved and loaded again, if it could not:
    text UTF-8 cannot hold (a lone surrogate, which JSON can escape), or a prompt larger than a
    task's ``prompt.md`` may be."""
    prompt = _prompt(problem)
    texts = {"prompt": prompt, "reference": problem.reference, "test": problem.test}
    for field, text in texts.items():
        try:
            text.encode()
        except UnicodeEncodeError as exc:
            bad = ascii(exc.object[exc.start])[1:-1]
            return f"its {field} holds {bad}, which UTF-8 cannot hold"
    size = len(prompt.encode())
    if size > MAX_PROMPT_BYTES:
        return (
            f"its prompt is {size:,} bytes, more than the {MAX_PROMPT_BYTES:,} a task's "
            "prompt.md may hold"
        )
    return None


def _rules(config: CodeConfig) -> list[str]:
    """How the cases are compared where it is not exactly, in words."""
    rules = []
    if config.compare == "set":
        rules.append("the result as a set")
    elif config.compare == "unordered":
        rules.append("in any order")
    if config.containers == "any":
        rules.append("a list, tuple or set alike")
    if config.numbers == "by-value":
        rules.append("numbers by value")
    if config.float_tolerance is not None:
        rules.append(f"floats within {config.float_tolerance:g}")
    return rules


def _extract(
    problem: Problem, sandbox: Sandbox, packages: tuple[str, ...]
) -> dict[str, object] | str:
    """The recorder's record for ``problem``, of status ``cases`` or ``legacy``, or why there
    is none; the job has ``packages`` (:func:`_packages`)."""
    nonce = f"@assay-record:{secrets.token_hex(8)}:"
    job = {
        "nonce": nonce,
        "program": problem.reference,
        "test": problem.test,
        "entry_point": problem.entry_point,
        "max_calls": MAX_CALLS,
        "probe_s": PROBE_SECONDS,
        "path": [PACKAGES_DIR] if packages else [],
    }
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", RECORDER],
        files={},
        limits=EXTRACT_LIMITS,
        stdin=json.dumps(job).encode(),
        packages=packages,
    )
    lines = [line[len(nonce) :] for line in result.stdout.split("\n") if line.startswith(nonce)]
    if result.timed_out or result.cpu_exceeded:
        return "recording the check passed its time limit"
    if len(lines) != 1:
        tail = result.stderr.strip().splitlines()[-1:] or [f"exit status {result.exit_code}"]
        return f"recording the check gave no result: {tail[0][:300]}"
    try:
        record = parse_plain(lines[0], max_chars=64_000_000, max_depth=250)
    except NotPlainError as exc:
        return f"recording the check gave a malformed result: {exc}"
    if not isinstance(record, dict) or record.get("status") not in STATUSES:
        return "recording the check gave a malformed result"
    if record["status"] == "failed":
        return str(record.get("reason", ""))[:500]
    return record


def _packages(problem: Problem) -> tuple[str, ...]:
    """The installed packages outside the standard library that the problem's reference or check
    imports (EvalPlus's checks import numpy): the recording job has them, and so has the task
    (``code.imports``), as the benchmark's own harness had them. A module that is not installed
    is left to the recording job, which says that the check does not load."""
    found: set[str] = set()
    for source in (problem.reference, problem.test):
        try:
            tree = ast_parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the recording job says why it does not load
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.partition(".")[0])
    installed = []
    for name in sorted(found.intersection(_installed_modules()) - sys.stdlib_module_names):
        try:
            package_modules([name])
        except InputError:
            continue
        installed.append(name)
    return tuple(installed)


@functools.cache
def _installed_modules() -> frozenset[str]:
    """The top-level modules installed distributions give (read once: a benchmark file may
    name thousands of modules, and looking each up costs milliseconds)."""
    return frozenset(metadata.packages_distributions())


def _task(
    problem: Problem, slug: str, record: dict[str, object], packages: tuple[str, ...]
) -> Task:
    hidden: dict[str, bytes]
    config: dict[str, object] = {"function": problem.entry_point}
    if packages:
        config["imports"] = list(packages)
    if record.get("status") == "legacy":
        config["legacy_check"] = LEGACY_CHECK
        hidden = {LEGACY_CHECK: _legacy_source(problem).encode()}
    else:
        calls = record.get("calls")
        if not isinstance(calls, list):
            raise TypeError("calls is not a list")
        if len(calls) > MAX_CALLS:
            raise ValueError(f"{len(calls)} calls, more than the recorder keeps ({MAX_CALLS})")
        shown = examples(problem.prompt, problem.entry_point, problem.reference)
        cases = [_case(index, call, shown) for index, call in enumerate(calls)]
        hidden = {"cases.json": cases_json(cases, min_format=ENCODED)}
        tolerance = record.get("tolerance")
        if tolerance is not None and tolerance not in TOLERANCES:
            raise ValueError(f"tolerance {tolerance!r} is not one the recorder states")
        if tolerance is not None:
            config["float_tolerance"] = tolerance
        if record.get("unordered") is True:
            config["compare"] = "unordered"
        if record.get("containers") == "any":
            config["containers"] = "any"
            if record.get("as_set") is True:
                config["compare"] = "set"
        if record.get("numbers") == "by-value":
            config["numbers"] = "by-value"
    return Task(
        spec=TaskSpec(
            id=slug,
            family="code",
            split=Split.TEST,
            tags=(problem.benchmark, "imported"),
            config=config,
        ),
        prompt=_prompt(problem),
        workspace={},
        hidden=hidden,
        solutions={"reference": {"solution.py": problem.reference.encode()}},
    )


def _legacy_source(problem: Problem) -> str:
    """The legacy check's file: HumanEval's prompt first (the helpers it gives, such as
    ``poly``, which the check calls and a candidate need not repeat), then the check. The
    check runs in a copy of the candidate's namespace, so the prompt's stub of the function
    shadows nothing the candidate defined for itself."""
    if problem.benchmark != "humaneval":
        return problem.test
    return f"{problem.prompt}\n\n{problem.test}"


def _case(index: int, call: object, shown: dict[str, str]) -> Case:
    if not isinstance(call, dict) or not isinstance(call.get("args"), list):
        raise TypeError(f"call {index} is malformed")
    args = decode(call["args"])  # the record is the sandbox's output: read as hostile
    if not isinstance(args, list):
        raise TypeError(f"call {index} has malformed arguments")
    # an example however the prompt writes the call: spacing, quotes, keywords, 2e0 for 2.0
    key = argument_key(args, encoded=True, case_file=False)
    fields: dict[str, object] = {
        "id": f"case-{index}",
        "args": normalize(call["args"]),
        "example": key is not None and key in shown,
    }
    if "raises" in call:
        fields["raises"] = call["raises"]
    else:
        fields["expected"] = normalize(call.get("expected"))
    return Case.model_validate(fields)


def _prompt(problem: Problem) -> str:
    if problem.benchmark == "mbpp":
        return problem.prompt
    return (
        f"Complete the function `{problem.entry_point}` in solution.py:\n\n"
        f"```python\n{problem.prompt.rstrip()}\n```\n"
    )


def report_lines(imported: Imported) -> list[str]:
    """The import report: a line per problem, then the totals."""
    lines = []
    for r in imported.reports:
        weak = " (the original check passes an object equal to everything)" if r.fooled else ""
        target = f" -> {r.task_id}" if r.task_id else ""
        lines.append(
            _one_line(f"{r.outcome.value}: {r.where} {r.source_id}{target}: {r.detail}{weak}")
        )
    count = dict.fromkeys(Outcome, 0)
    for r in imported.reports:
        count[r.outcome] += 1
    fooled = sum(bool(r.fooled) for r in imported.reports)
    lines.append(
        f"{len(imported.reports)} problems: {count[Outcome.CASES]} converted to hidden cases, "
        f"{count[Outcome.LEGACY]} kept as legacy in-sandbox verifiers (exploitable by "
        f"construction: the audit quarantines them), {count[Outcome.FAILED]} not imported; "
        f"{fooled} original checks pass an object equal to everything"
    )
    return lines


def _one_line(text: str) -> str:
    """``text`` as one printable line: a benchmark's ids and a check's messages (a traceback)
    may hold line breaks and terminal escapes, which must neither split the report's line nor
    reach the terminal as commands."""
    joined = " | ".join(part.strip() for part in text.splitlines() if part.strip())
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in joined)
