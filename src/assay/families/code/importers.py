"""``assay import humaneval`` and ``assay import mbpp``: Python benchmarks as code tasks.

A HumanEval-style file is JSON lines (``.jsonl``, or gzip-compressed ``.jsonl.gz``), one problem a
line with ``task_id``, ``prompt``, ``canonical_solution``, ``test`` (source defining
``check(candidate)``) and ``entry_point``, as HumanEval, EvalPlus and their derivatives ship them.
An MBPP-style file has ``task_id``, ``text``, ``code``, ``test_list`` (``assert`` lines calling the
function by name) and optionally ``test_setup_code`` and ``challenge_test_list`` (sanitized MBPP:
``prompt`` for ``text``, and ``test_imports``).

Each problem becomes a code task: the prompt, the reference (HumanEval: prompt and canonical
solution; MBPP: the code), the entry point. Its check is run once, in the sandbox, against a
recording candidate wrapping the reference (:mod:`assay.families.code._recorder`): the concrete
calls it makes, loops and tolerances included, become hidden cases judged outside the sandbox
(case file format 4, so tuples, sets and other values JSON cannot hold keep their type). Where
the check cannot be turned into cases faithfully, the task keeps it as a legacy in-sandbox
verifier (:mod:`assay.families.code.legacy`), which the audit quarantines. A problem whose
reference fails its own check, or whose task does not pass its own reference, is reported and not
imported. The file is input: a malformed line or a missing field is one error naming the file,
the line and the field, and nothing is written.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.families.code._codec import EncodingError, decode, normalize
from assay.families.code.casefile import ENCODED, Case, cases_json
from assay.families.code.family import CODEC, CodeFamily
from assay.families.code.lint import call_text
from assay.families.code.records import NotPlainError, parse_plain
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.spec import Limits, Split, TaskSpec
from assay.verdicts import Status

RECORDER = CODEC + package_files("assay.families.code").joinpath("_recorder.py").read_text(
    encoding="utf-8"
)
MAX_CALLS = 2000
"""Most calls of one check turned into cases; a check making more is kept as a legacy one."""
EXTRACT_LIMITS = Limits(timeout_s=60, cpu_s=60, memory_mb=1024, max_output_kb=16384)
"""Limits of the one sandbox job that records and probes a problem's check."""
LEGACY_CHECK = "check.py"
HUMANEVAL_FIELDS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")
MBPP_FIELDS = ("task_id", "text", "code", "test_list")
"""``text`` may be called ``prompt`` (sanitized MBPP, which also gives ``test_imports``)."""


class Outcome(StrEnum):
    """What became of one problem."""

    CASES = "cases"
    LEGACY = "legacy"
    FAILED = "failed"


@dataclass(frozen=True)
class Problem:
    """One problem, in HumanEval's shape whatever the file's."""

    where: str
    """``HumanEval.jsonl.gz:12``: the file and the line."""
    task_id: str
    prompt: str
    reference: str
    test: str
    """Source defining ``check(candidate)``."""
    entry_point: str
    benchmark: str


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


def read_humaneval(path: Path) -> list[Problem]:
    """The problems of a HumanEval-style file; raises :class:`InputError` naming the line and
    field when it is malformed."""
    problems = []
    for where, row in _rows(path, HUMANEVAL_FIELDS):
        problems.append(
            Problem(
                where=where,
                task_id=row["task_id"],
                prompt=row["prompt"],
                reference=row["prompt"] + row["canonical_solution"],
                test=row["test"],
                entry_point=_identifier(row["entry_point"], path, where, "entry_point"),
                benchmark="humaneval",
            )
        )
    return problems


def read_mbpp(path: Path) -> list[Problem]:
    """The problems of an MBPP-style file; raises :class:`InputError` naming the line and field
    when it is malformed."""
    problems = []
    for where, given in _rows(path, MBPP_FIELDS):
        row = {"text": given.get("prompt"), **{k: v for k, v in given.items() if v is not None}}
        _require(row, "text", MBPP_FIELDS, path, where)
        tests = row["test_list"]
        extra = row.get("challenge_test_list") or []
        if not isinstance(tests, list) or not tests or not all(isinstance(t, str) for t in tests):
            raise _bad(path, where, "test_list", "is not a non-empty list of assert lines")
        if not isinstance(extra, list) or not all(isinstance(t, str) for t in extra):
            raise _bad(path, where, "challenge_test_list", "is not a list of assert lines")
        setup = row.get("test_setup_code") or ""
        if not isinstance(setup, str):
            raise _bad(path, where, "test_setup_code", "is not text")
        imports = row.get("test_imports") or []
        if not isinstance(imports, list) or not all(isinstance(line, str) for line in imports):
            raise _bad(path, where, "test_imports", "is not a list of import lines")
        setup = "\n".join([*imports, setup])
        function = _mbpp_function(row["code"], tests, path, where)
        problems.append(
            Problem(
                where=where,
                task_id=str(row["task_id"]),
                prompt=_mbpp_prompt(row["text"], function, tests[0]),
                reference=row["code"],
                test=_mbpp_check(setup, function, [*tests, *extra]),
                entry_point=function,
                benchmark="mbpp",
            )
        )
    return problems


def _rows(path: Path, fields: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(_text(Path(path)).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"line {number} is not JSON: {exc.msg}",
                path=path,
                field=f"line {number}",
                fix="give one JSON object a line",
            ) from None
        if not isinstance(row, dict):
            raise _bad(path, where, "(line)", "is not a JSON object")
        for field in fields:
            if field == "text" and "text" not in row and "prompt" in row:
                continue  # sanitized MBPP
            _require(row, field, fields, path, where)
        rows.append((where, row))
    if not rows:
        raise InputError("holds no problems", path=path, fix="pass a file of JSON lines")
    return rows


def _text(path: Path) -> str:
    if not path.is_file():
        raise InputError("no such file", path=path, fix="pass a .jsonl or .jsonl.gz file")
    try:
        if path.name.endswith(".gz"):
            with gzip.open(path, "rb") as compressed:
                raw = compressed.read()
        else:
            raw = path.read_bytes()
        return raw.decode("utf-8")
    except gzip.BadGzipFile:
        raise InputError(
            "is not gzip-compressed", path=path, fix="decompress it and pass the .jsonl"
        ) from None
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot be read: {exc}", path=path, fix="pass a readable file") from None
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", path=path, fix="save it as UTF-8") from None


def _require(
    row: dict[str, Any], field: str, fields: tuple[str, ...], path: Path, where: str
) -> None:
    value = row.get(field)
    needed = f"({', '.join(fields)} are needed)"
    if value is None:
        raise _bad(path, where, field, f"is missing {needed}")
    if (field == "task_id" and isinstance(value, int)) or field == "test_list":
        return
    if not isinstance(value, str) or not value.strip():
        raise _bad(path, where, field, f"is empty or not text {needed}")


def _bad(path: Path, where: str, field: str, problem: str) -> InputError:
    line = where.rpartition(":")[2]
    return InputError(problem, path=path, field=f"line {line}: {field}", fix="correct the line")


def _identifier(name: str, path: Path, where: str, field: str) -> str:
    name = name.strip()
    if not name.isidentifier():
        raise _bad(path, where, field, f"{name[:40]!r} is not a Python name")
    return name


def _mbpp_function(code: str, tests: list[str], path: Path, where: str) -> str:
    """The function the asserts call that the code defines."""
    try:
        defined = {node.name for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)}
    except SyntaxError as exc:
        raise _bad(path, where, "code", f"does not parse: {exc.msg}") from None
    for test in tests:
        try:
            tree = ast.parse(test)
        except SyntaxError as exc:
            raise _bad(
                path, where, "test_list", f"holds a line that does not parse: {exc.msg}"
            ) from None
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in defined
            ):
                return node.func.id
    raise _bad(path, where, "test_list", "calls no function the code defines")


def _mbpp_prompt(text: str, function: str, example: str) -> str:
    return (
        f"{text.strip()}\n\nWrite it as the function `{function}` in solution.py. "
        f"For example:\n\n```python\n{example.strip()}\n```\n"
    )


def _mbpp_check(setup: str, function: str, tests: list[str]) -> str:
    body = "\n".join(f"    {test.strip()}" for test in tests)
    return f"{setup}\n\ndef check(candidate):\n    {function} = candidate\n{body}\n"


def import_problems(
    problems: list[Problem],
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_problem: Callable[[], None] | None = None,
) -> Imported:
    """Turn each problem into a task (see the module's docstring), ``workers`` at a time."""
    family = CodeFamily()

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


def _import_one(
    problem: Problem, sandbox: Sandbox, family: CodeFamily
) -> tuple[Task | None, ProblemReport]:
    slug = _SLUG.sub("-", problem.task_id.lower()).strip("-")[:80] or "problem"
    if not slug.startswith(problem.benchmark):
        slug = f"{problem.benchmark}-{slug}"

    def report(outcome: Outcome, detail: str, **more: object) -> ProblemReport:
        return ProblemReport(problem.where, problem.task_id, outcome, detail, **more)  # type: ignore[arg-type]

    record = _extract(problem, sandbox)
    if isinstance(record, str):
        return None, report(Outcome.FAILED, record)
    fooled = record.get("always_equal") if isinstance(record.get("always_equal"), bool) else None
    status = record.get("status")
    if status == "failed":
        return None, report(Outcome.FAILED, str(record.get("reason", ""))[:500])
    try:
        task = _task(problem, slug, record)
    except (EncodingError, ValueError, TypeError) as exc:
        return None, report(Outcome.FAILED, f"the recorded calls are malformed: {exc}"[:500])
    verdict = family.verify(task, task.solutions["reference"], sandbox)
    if verdict.status is not Status.PASS:
        why = f"the task does not pass its own reference ({verdict.status.value}): "
        return None, report(Outcome.FAILED, why + verdict.summary[:300], fooled=fooled)
    if status == "legacy":
        why = f"kept as a legacy in-sandbox verifier: {str(record.get('reason', ''))[:300]}"
        return task, report(Outcome.LEGACY, why, task_id=task.id, fooled=fooled)
    count = len(record["calls"])  # type: ignore[arg-type]
    return task, report(
        Outcome.CASES, f"converted to {count} cases", task_id=task.id, cases=count, fooled=fooled
    )


def _extract(problem: Problem, sandbox: Sandbox) -> dict[str, object] | str:
    """The recorder's record for ``problem``, or why there is none."""
    nonce = f"@assay-record:{secrets.token_hex(8)}:"
    job = {
        "nonce": nonce,
        "program": problem.reference,
        "test": problem.test,
        "entry_point": problem.entry_point,
        "max_calls": MAX_CALLS,
    }
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", RECORDER],
        files={},
        limits=EXTRACT_LIMITS,
        stdin=json.dumps(job).encode(),
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
    if not isinstance(record, dict):
        return "recording the check gave a malformed result"
    return record


def _task(problem: Problem, slug: str, record: dict[str, object]) -> Task:
    hidden: dict[str, bytes]
    config: dict[str, object] = {"function": problem.entry_point}
    if record.get("status") == "legacy":
        config["legacy_check"] = LEGACY_CHECK
        hidden = {LEGACY_CHECK: _legacy_source(problem).encode()}
    else:
        calls = record["calls"]
        if not isinstance(calls, list):
            raise TypeError("calls is not a list")
        cases = [_case(index, call, problem) for index, call in enumerate(calls)]
        hidden = {"cases.json": cases_json(cases, min_format=ENCODED)}
        if isinstance(record.get("tolerance"), float):
            config["float_tolerance"] = record["tolerance"]
        if record.get("unordered") is True:
            config["compare"] = "unordered"
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


def _case(index: int, call: object, problem: Problem) -> Case:
    if not isinstance(call, dict) or not isinstance(call.get("args"), list):
        raise TypeError(f"call {index} is malformed")
    args = decode(call["args"])  # the record is the sandbox's output: read as hostile
    shown = call_text(problem.entry_point, args) in problem.prompt  # type: ignore[arg-type]
    fields: dict[str, object] = {
        "id": f"case-{index}",
        "args": normalize(call["args"]),
        "example": shown,
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
        lines.append(f"{r.outcome.value}: {r.where} {r.source_id}{target}: {r.detail}{weak}")
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
