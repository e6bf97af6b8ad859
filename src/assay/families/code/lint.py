"""Static checks of a code task: settings, hidden cases, nothing hidden shown to the agent, and
a reference that imports only what the task declares.

A prompt may show some hidden cases on purpose, as examples: a case that says ``"example": true``
(case files of format 4) is not a leak. Any other hidden case shown is, and so is a prompt that
shows every hidden case (a candidate that hard-codes them passes: a case written with its
result on one line, as a table row, ``args -> result``, a JSON line or a sentence, or on the
line after its ``Input:`` line, counts) or shows, for a case's arguments, a result other than
the case expects. The reference's lines may repeat what the prompt itself gives (its import
lines, its docstrings, a helper function it shows whole): only
the rest of the reference showing is a leak. A case is shown however the call is written
(:mod:`assay.families.code.shown`).

The prompt's promises need something that checks them: an exception it promises needs a case that
expects it, unmodified inputs need ``code.inputs``, an order needs ``compare = "exact"``. A
reference that reads the wall clock is quarantined for a person: no run of the audit changes the
date; so is a float tolerance looser than :mod:`assay.families._tolerance` takes."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import PurePosixPath

from assay._ast import ast_parse
from assay.errors import TaskFormatError
from assay.families._leaks import hidden_copies
from assay.families._tolerance import loose_tolerance
from assay.families.code._codec import EncodingError, decode, encode
from assay.families.code.checking import checker_problem
from assay.families.code.clock import clock_reads
from assay.families.code.config import (
    Case,
    CaseFile,
    CodeConfig,
    code_config,
    hidden_case_file,
)
from assay.families.code.exploits import prompt_examples
from assay.families.code.legacy import legacy_finding
from assay.families.code.ordering import promised_order
from assay.families.code.raising import alternatives, promised_exceptions
from assay.families.code.rubric import task_rubric
from assay.families.code.shown import argument_key, parameters, shown_answers, shown_arguments
from assay.findings import Finding, Severity
from assay.sandbox import package_modules
from assay.tasks.model import Task

CHECK = "lint"
MIN_LEAK_LINE = 30


def lint_code_task(task: Task) -> list[Finding]:
    """Findings about the code-family parts of ``task``; empty when it is sound."""
    try:
        config = code_config(task)
        case_file = hidden_case_file(task)
        cases = () if case_file is None else case_file.cases
        task_rubric(task)
    except TaskFormatError as exc:
        return [_error(str(exc))]
    findings: list[Finding] = []
    problem = checker_problem(task, config)
    if problem is not None:
        findings.append(_error(str(problem)))
    legacy = legacy_finding(task, config)
    if legacy is not None:
        findings.append(legacy)
    if config.function not in task.prompt:
        findings.append(_error(f"prompt.md never names the function {config.function!r}"))
    for name, files in task.references().items():
        if config.entrypoint not in files:
            findings.append(_error(f"solutions/{name} has no {config.entrypoint}"))
    visible = {"prompt.md": task.prompt} | {
        f"workspace/{path}": data.decode(errors="replace") for path, data in task.workspace.items()
    }
    findings += _shown_cases(task, config, case_file, visible)
    encoded = case_file is not None and case_file.encoded
    findings += _contradicted_examples(task.prompt, config, cases, encoded=encoded)
    findings += _shown_reference(task, config, visible)
    findings += _copied_hidden(task)
    findings += _unexpected_promises(task, cases)
    findings += _unchecked_inputs(task, config)
    findings += _unchecked_order(task, config)
    findings += _undeclared_imports(task, config)
    findings += _clock_readers(task)
    findings += _loose_tolerance(config)
    return findings


def call_text(function: str, args: list[object]) -> str:
    """How a call is written in prompts: ``f('a', 1)``."""
    return f"{function}({', '.join(repr(arg) for arg in args)})"


def _args(case: Case) -> list[object]:
    """The case's arguments as values (decoded where the file encodes them)."""
    try:
        decoded = decode(case.args)
    except EncodingError:
        return case.args
    return decoded if isinstance(decoded, list) else case.args


def _shown_cases(
    task: Task, config: CodeConfig, case_file: CaseFile | None, visible: dict[str, str]
) -> list[Finding]:
    """A hidden case whose arguments a visible text passes to the function, however the call is
    written (see :mod:`assay.families.code.shown`); and every hidden case shown, by a call or
    with its result on a line (a table row, ``args -> result``): a case shown so, the result
    beside it, is an example, not a leak, but a candidate that looks them all up passes."""
    if case_file is None or not case_file.cases:
        return []
    names = _reference_parameters(task, config)
    encoded = case_file.encoded
    calls = {
        where: shown_arguments(text, config.function, names, encoded=encoded)
        for where, text in visible.items()
    }
    pairs = {
        where: shown_answers(text, config.function, names, encoded=encoded)
        for where, text in visible.items()
    }
    findings = []
    shown = 0
    for case in case_file.cases:
        key = argument_key(case.args, encoded=encoded, case_file=True)
        answer = (
            None
            if case.raises is not None
            else argument_key(case.expected, encoded=encoded, case_file=True)
        )
        places = {
            where: by_key[key]
            for where, by_key in calls.items()
            if key is not None and key in by_key
        }
        answered = any((key, answer) in by_pair for by_pair in pairs.values())
        shown += bool(places) or (key is not None and answer is not None and answered)
        if not case.example:
            findings += [
                _error(f"hidden case {case.id} is shown in {where}", written)
                for where, written in places.items()
            ]
    cases = case_file.cases
    if shown == len(cases):
        findings.append(
            _error(
                f"every hidden case ({len(cases)}) is shown to the agent: a candidate that "
                "hard-codes them passes (add cases the prompt does not show)"
            )
        )
    return findings


def _reference_parameters(task: Task, config: CodeConfig) -> tuple[str, ...] | None:
    """The parameters of the function as the first reference that defines it has them: they
    bind the keywords of a call the prompt shows."""
    for files in task.references().values():
        source = files.get(config.entrypoint, b"").decode(errors="replace")
        names = parameters(source, config.function)
        if names is not None:
            return names
    return None


def _contradicted_examples(
    prompt: str, config: CodeConfig, cases: tuple[Case, ...], *, encoded: bool
) -> list[Finding]:
    """An example of the prompt whose arguments are a case's but whose result is not the case's
    expected value (types included: ``2`` is not ``2.0``): the prompt and the verifier
    disagree. Without the encoding (formats 1 to 3) a shown tuple stands for a list."""
    examples = prompt_examples(prompt, config.function)
    findings = []
    for case in cases:
        if case.raises is not None:
            continue
        try:
            key = json.dumps(_args(case), sort_keys=True)  # as prompt_examples keys them
        except (TypeError, ValueError):
            continue
        if key not in examples:
            continue
        shown = examples[key]
        try:
            if encoded:
                same = _text(encode(shown)) == _text(encode(decode(case.expected)))
            else:
                same = _text(shown) == _text(case.expected)
        except (EncodingError, TypeError, ValueError):
            continue
        if not same:
            findings.append(
                _error(
                    f"prompt.md shows {_cut(call_text(config.function, _args(case)))} giving "
                    f"{_cut(repr(shown))}, but hidden case {case.id} expects "
                    f"{_cut(repr(decode(case.expected)))}",
                    "correct the example or the case",
                )
            )
    return findings


def _text(value: object) -> str:
    """JSON text that tells ``2`` from ``2.0`` and ``True`` from ``1``, as the judge does."""
    return json.dumps(value, sort_keys=True)


def _given_lines(source: str, prompt: str, function: str) -> set[int]:
    """Line numbers of the reference that repeat what the prompt gives: import statements,
    docstrings, and helper functions or classes (not ``function``) shown whole in the prompt."""
    try:
        tree = ast_parse(source)
    except (SyntaxError, ValueError):
        return set()
    lines = source.splitlines()
    given: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
        if _given(node) or (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node in tree.body
            and node.name != function
            and _dedented("\n".join(lines[span.start - 1 : span.stop - 1])) in _dedented(prompt)
        ):
            given.update(span)
    return given


def _given(node: ast.stmt) -> bool:
    """An import statement or a docstring."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _dedented(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _shown_reference(task: Task, config: CodeConfig, visible: dict[str, str]) -> list[Finding]:
    findings = []
    for name, files in task.references().items():
        source = files.get(config.entrypoint, b"").decode(errors="replace")
        given = _given_lines(source, task.prompt, config.function)
        for number, line in enumerate(source.splitlines(), start=1):
            stripped = line.strip()
            if len(stripped) < MIN_LEAK_LINE or stripped.startswith(("def ", "#", '"', "'")):
                continue
            if number in given:
                continue
            for where, text in visible.items():
                if stripped in text:
                    findings.append(
                        _error(f"a line of solutions/{name} appears in {where}", stripped)
                    )
    return findings


def _unexpected_promises(task: Task, cases: tuple[Case, ...]) -> list[Finding]:
    """A prompt that promises an exception needs a case that expects it, or nothing checks it."""
    expected = {name for case in cases if case.raises for name in alternatives(case.raises)}
    return [
        _error(
            f"prompt.md promises {name} but no hidden case expects it",
            f'add a case with "raises": "{name}" (cases.json format 2)',
        )
        for name in sorted(promised_exceptions(task.prompt) - expected)
    ]


_KEPT_INPUTS = re.compile(
    r"\b(?:not|never|without)\s+(?:be\s+)?(?:modif|mutat)\w*"
    r"|\bneither\b[^.;\n]{0,60}?\b(?:modif|mutat)\w*"
    r"|\bnot\s+(?:(?:be\s+)?(?:changed|altered)\s+)?in[ -]place\b"
    r"|\b(?:inputs?|arguments?)\b[^.;\n]{0,40}?\b(?:remains?|stays?|left|kept)\s+"
    r"(?:unchanged|unmodified|untouched)\b",
    re.IGNORECASE,
)
"""Words of a prompt that promise the arguments stay as they were: "Do not modify values",
"Neither input may be modified", "without mutating", "not in place", "the input is left
unchanged"."""


def _unchecked_inputs(task: Task, config: CodeConfig) -> list[Finding]:
    """A prompt that says the inputs must not be modified needs ``code.inputs``, or nothing
    checks it: a solution that changes them passes every case."""
    promise = _KEPT_INPUTS.search(task.prompt)
    if promise is None or config.inputs != "any" or config.legacy_check is not None:
        return []
    start = max(0, promise.start() - 60)
    return [
        _error(
            "prompt.md says the inputs must not be modified, but nothing checks it: set "
            'inputs = "unchanged" in the [code] table of task.toml',
            f"...{task.prompt[start : promise.end() + 20]}...",
        )
    ]


def _unchecked_order(task: Task, config: CodeConfig) -> list[Finding]:
    """A prompt that promises the order of the result needs ``compare = "exact"``: compared
    unordered or as a set, a result in the wrong order passes every case."""
    promise = promised_order(task.prompt)
    if config.compare == "exact" or promise is None:
        return []
    start = max(0, promise.start() - 60)
    return [
        _error(
            f"prompt.md promises an order ({promise.group(0)!r}), but compare = "
            f'"{config.compare}" in task.toml ignores it: a result in any order passes; '
            'set compare = "exact" in the [code] table (or say the order does not matter)',
            f"...{task.prompt[start : promise.end() + 20]}...",
        )
    ]


def _loose_tolerance(config: CodeConfig) -> list[Finding]:
    """A float tolerance looser than :mod:`assay.families._tolerance` takes, for results the
    cases judge: a wrong answer that close passes. A person decides (an estimate may rightly
    be that rough)."""
    tolerance = config.float_tolerance
    if tolerance is None or config.checker is not None or config.legacy_check is not None:
        return []  # no tolerance; or the cases' comparison, and its tolerance, judge nothing
    return loose_tolerance(tolerance, check=CHECK, kind="float", table="code")


def _clock_readers(task: Task) -> list[Finding]:
    """A reference that reads the wall clock: the flaky check never changes the date, so its
    answers may pass today and turn, with every verdict, later. A person decides."""
    findings = []
    for name, files in task.references().items():
        for path, data in sorted(files.items()):
            if not path.endswith(".py"):
                continue
            for read in clock_reads(data.decode(errors="replace")):
                findings.append(
                    Finding(
                        check=CHECK,
                        severity=Severity.WARNING,
                        review=True,
                        message=f"solutions/{name}/{path} reads the clock (line {read.line}: "
                        f"{read.call}): its answers, and the verdicts, may change with the "
                        "date; review it, and compute the answer from the arguments alone",
                        evidence=read.call[:300],
                    )
                )
    return findings


def _undeclared_imports(task: Task, config: CodeConfig) -> list[Finding]:
    """A reference that imports a package the task does not declare passes nowhere: the sandbox
    offers the standard library and ``code.imports`` only."""
    declared = set(config.imports) | package_modules(config.imports)
    findings = []
    for name, files in task.references().items():
        local = {_module_name(path) for path in [*files, *task.workspace]}
        allowed = declared | local | set(sys.stdlib_module_names) | {"__future__"}
        for path, data in sorted(files.items()):
            for module, line in _imported(path, data):
                if module not in allowed:
                    findings.append(
                        _error(
                            f"solutions/{name}/{path} imports {module!r}, which is neither in the "
                            "standard library nor in code.imports (declare it there, or use the "
                            "standard library)",
                            line,
                        )
                    )
    return findings


def _imported(path: str, data: bytes) -> list[tuple[str, str]]:
    """Top-level modules a Python file imports absolutely, each with its line."""
    if not path.endswith(".py"):
        return []
    try:
        text = data.decode()
        tree = ast_parse(text, filename=path)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []  # a reference that does not compile fails in the audit's own run
    lines = text.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        line = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
        found += [(name.partition(".")[0], line) for name in names]
    return found


def _module_name(path: str) -> str:
    """The top-level module a file of the solution or workspace provides."""
    top = PurePosixPath(path).parts[0]
    return top.removesuffix(".py")


def _copied_hidden(task: Task) -> list[Finding]:
    """A hidden file copied into the workspace: byte for byte, written another way, or encoded
    (see :mod:`assay.families._leaks`)."""
    return [_error(f"workspace/{path} is a copy of {name}") for path, name in hidden_copies(task)]


def _error(message: str, evidence: str = "") -> Finding:
    return Finding(
        check=CHECK, severity=Severity.ERROR, message=_cut(message, 2000), evidence=evidence[:300]
    )


def _cut(text: str, limit: int = 200) -> str:
    """``text``, or its start and how long it is: a value a prompt or a case holds may be of
    megabytes, and a finding is one line, kept in every report and the store."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"
