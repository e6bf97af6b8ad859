"""A task's checker (``hidden/<checker>``): read statically by lint, run in its own sandbox.

A checker is task code and is not trusted: it never runs in the assay process, and never in the
candidate's sandbox. Each verification that needs it runs one more sandbox job holding only the
checker's file and plain data (arguments, the candidate's outputs, the expected outputs), with
:mod:`assay.families.code._checker_runner` as the harness. Its records are read as strictly as
the candidate's. A checker that does not load or defines no ``check`` is the task's fault
(:class:`TaskFormatError`); a checker that raises or returns something other than a bool on a
candidate's output fails that case, with the reason as evidence, since the output that upset it
came from the candidate (the audit's ``checker-crash`` check finds such checkers).

A checker whose run ends before it answers (its time, memory or CPU limit, a signal) is asked
again, about the task's own expected outputs for the same cases, which the candidate has no say
in. If it answers there, the candidate's outputs stopped it and the unanswered cases fail; if it
does not, the checker cannot judge the task within its limits whatever the candidate does, and
:class:`CheckerError` makes the verdict ``error``. So a candidate cannot turn its own fail into
an error by making the checker slow, and a slow checker is never blamed on a candidate.
"""

from __future__ import annotations

import ast
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files

from assay._ast import ast_parse
from assay.errors import CheckerError, TaskFormatError
from assay.families.code.config import CodeConfig, hidden_case_file
from assay.families.code.records import MAX_DEPTH, NotPlainError, parse_plain
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.model import Task

_SOURCES = package_files("assay.families.code")
CHECKER_RUNNER = _SOURCES.joinpath("_codec.py").read_text(encoding="utf-8") + _SOURCES.joinpath(
    "_checker_runner.py"
).read_text(encoding="utf-8")
CHECK_ARGUMENTS = 3


@dataclass(frozen=True)
class CheckItem:
    """One call of ``check(args, output, expected)``."""

    case_id: str
    args: list[object]
    output: object
    expected: object


@dataclass(frozen=True)
class CheckAnswer:
    """What the checker said about one output."""

    passed: bool
    """Whether the output counts as right."""
    evidence: str
    """What the checker did, for the criterion."""
    judged: bool = True
    """False when the checker raised, returned a non-bool or never answered."""
    returned_non_bool: bool = False
    """The checker returned something other than a bool: always the task's fault."""
    answered: bool = True
    """False when the checker's run ended (a limit, a signal) before it answered on this."""


def checker_problem(task: Task, config: CodeConfig) -> TaskFormatError | None:
    """Why the task's checker cannot work, read from its source without running it, or None."""
    if config.checker is None:
        return None
    where = checker_path(task, config)
    source = task.hidden.get(config.checker)
    if source is None:
        return TaskFormatError(
            "checker file is missing", path=where, fix="add it or drop code.checker"
        )
    try:
        tree = ast_parse(source, filename=config.checker)
    except (SyntaxError, ValueError) as exc:
        return TaskFormatError(f"checker does not compile: {exc}", path=where, fix="fix it")
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            if len(node.args.posonlyargs + node.args.args) >= CHECK_ARGUMENTS or node.args.vararg:
                return None
            return TaskFormatError(
                "check takes fewer than 3 arguments", path=where, fix="take args, output, expected"
            )
    return TaskFormatError(
        "defines no check(args, output, expected)", path=where, fix="define the function"
    )


def checker_path(task: Task, config: CodeConfig) -> str:
    """Where the checker is, as errors name it."""
    return f"{task.id}/hidden/{config.checker}"


def run_checker(
    sandbox: Sandbox, task: Task, config: CodeConfig, items: Sequence[CheckItem]
) -> tuple[dict[str, CheckAnswer], ExecResult | None]:
    """The checker's answer on each item, and its run; raises :class:`TaskFormatError` when
    the checker is missing or does not load, :class:`CheckerError` when it gives no verdict on
    the task's own expected outputs either, :class:`assay.errors.SandboxError` when the
    sandbox fails."""
    if config.checker is None or not items:
        return {}, None
    problem = checker_problem(task, config)
    if problem is not None:
        raise problem
    where = checker_path(task, config)
    checker = config.checker
    answers, result = _check(sandbox, task, checker, items, where)
    if all(answer.answered for answer in answers.values()):
        return answers, result
    # The checker ended without answering. Whose fault is it? Ask it again about the task's own
    # outputs, where the candidate has no say: answering there means the candidate's outputs
    # stopped it (those cases fail); not answering there means the task cannot be judged.
    own = [CheckItem(i.case_id, i.args, i.expected, i.expected) for i in items]
    calibration, rerun = _check(sandbox, task, checker, own, where)
    if not all(answer.answered for answer in calibration.values()):
        raise CheckerError(
            f"{where}: the checker gives no verdict on the task's own expected outputs either "
            f"({_ended(rerun)}), so no attempt at this task can be judged within its limits "
            "(make the checker faster, or raise the task's limits)"
        )
    return answers, result


def _check(
    sandbox: Sandbox, task: Task, checker: str, items: Sequence[CheckItem], where: str
) -> tuple[dict[str, CheckAnswer], ExecResult]:
    """One sandbox job of the checker ``hidden/<checker>`` over ``items``."""
    nonce = f"@assay-check:{secrets.token_hex(8)}:"
    case_file = hidden_case_file(task)
    job = {
        "nonce": nonce,
        "checker": checker,
        "encoded": case_file is not None and case_file.encoded,
        "cases": [
            {"id": i.case_id, "args": i.args, "output": i.output, "expected": i.expected}
            for i in items
        ],
    }
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", CHECKER_RUNNER],
        files={checker: task.hidden[checker]},
        limits=task.spec.limits,
        stdin=json.dumps(job).encode(),
    )
    return _answers(result, nonce, [i.case_id for i in items], where), result


def _answers(result: ExecResult, nonce: str, ids: list[str], where: str) -> dict[str, CheckAnswer]:
    lines = [line[len(nonce) :] for line in result.stdout.split("\n") if line.startswith(nonce)]
    answers: dict[str, CheckAnswer] = {}
    for index, line in enumerate(lines):
        try:
            record = parse_plain(line, max_depth=MAX_DEPTH)
        except NotPlainError:
            break
        if not isinstance(record, dict):
            break
        if index == 0 and set(record) == {"load_error"}:
            reason = str(record["load_error"])[-300:]
            raise TaskFormatError(f"checker does not load: {reason}", path=where, fix="fix it")
        answer = _answer(record)
        if answer is None or index >= len(ids) or record.get("id") != ids[index]:
            break
        answers[ids[index]] = answer
    missing = CheckAnswer(
        False,
        f"the task's checker gave no verdict on this output ({_ended(result)}; it does on "
        "the expected outputs)",
        judged=False,
        answered=False,
    )
    return {case_id: answers.get(case_id, missing) for case_id in ids}


def _answer(record: dict[str, object]) -> CheckAnswer | None:
    keys = set(record) - {"id"}
    if keys == {"verdict"} and type(record["verdict"]) is bool:
        passed = bool(record["verdict"])
        return CheckAnswer(passed, f"{'accepted' if passed else 'rejected'} by the checker")
    if keys == {"returned"}:
        kind = str(record["returned"])[:80]
        return CheckAnswer(
            False,
            f"the task's checker returned {kind}, not a bool",
            judged=False,
            returned_non_bool=True,
        )
    if keys == {"raised"}:
        raised = str(record["raised"])[-300:]
        return CheckAnswer(False, f"the task's checker raised: {raised}", judged=False)
    return None


def _ended(result: ExecResult) -> str:
    if result.timed_out:
        return "it passed its time limit"
    if result.out_of_memory:
        return "it passed its memory limit"
    if result.cpu_exceeded:
        return "it passed its CPU-time limit"
    if result.signal is not None:
        return f"it was killed by signal {result.signal}"
    return f"it ended with status {result.exit_code}"
