"""Calls of the task's function that a text shows, read with :mod:`ast`, and the arguments they
give as values.

A hidden case is shown when a text calls the function with the case's arguments, however the
call is written: ``median([9,7,8,6])`` shows the case ``median([9, 7, 8, 6])``, ``scale_up(2e0)``
shows ``scale_up(2)`` and ``scale_up(grams=7)`` shows ``scale_up(7)`` (a keyword is bound to its
place by the reference's signature). Arguments are compared as the case file encodes them
(format 4 tells a tuple from a list; older formats do not), with numbers by value: a candidate
that hard-codes ``2`` answers ``2.0`` too.

A case is shown with its result when a line of the text writes both: a table row
``| [6, 4, 9] | 6 |``, or ``[6, 4, 9] -> 6``, ``f([6, 4, 9]) returns 6``, ``[6, 4, 9]: 6``
(:func:`shown_pairs`).
"""

from __future__ import annotations

import ast
import bisect
import json
import math
import re
from dataclasses import dataclass

from assay._ast import ast_parse
from assay.families.code._codec import EncodingError, encode, normalize

MAX_CALL_CHARS = 10_000
"""The longest call read from a text; a longer one is not a call a person reads as an example."""
MAX_PARSE_TRIES = 5
"""Closing parentheses tried as a call's end (a string argument may hold parentheses)."""
MAX_CALLS_READ = 10_000
"""The most places a text writes the function that are read as calls: a text that writes it
more often is not one whose examples a person reads, and each read costs a parse."""


@dataclass(frozen=True)
class ShownCall:
    """One call of the function in a text, its arguments in the order of the parameters."""

    text: str
    """The call as the text writes it: ``median([9,7,8,6])``."""
    args: list[object]


def parameters(source: str, function: str) -> tuple[str, ...] | None:
    """The names of the parameters ``function`` takes by position, as ``source`` defines it at
    its top level; ``None`` when it does not."""
    try:
        tree = ast_parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function:
            return tuple(arg.arg for arg in [*node.args.posonlyargs, *node.args.args])
    return None


def shown_calls(text: str, function: str, names: tuple[str, ...] | None) -> list[ShownCall]:
    """The calls of ``function`` that ``text`` shows with literal arguments. Keywords are bound
    to their places by ``names`` (the reference's parameters); a call whose keywords cannot be
    bound so, or that leaves a place empty, is left out, as is one with ``*args``."""
    calls = []
    ends = _Ends(text)
    pattern = re.compile(rf"(?<!\w){re.escape(function)}\s*\(")
    for _, match in zip(range(MAX_CALLS_READ), pattern.finditer(text), strict=False):
        node, written = _call_at(text, match.start(), ends.after(match.end() - 1))
        if node is None or not isinstance(node.func, ast.Name) or node.func.id != function:
            continue
        args = _bound(node, names)
        if args is not None:
            calls.append(ShownCall(text=written, args=args))
    return calls


class _Ends:
    """Where the calls of a text may end, found in one pass over it: for each opening
    bracket, the bracket that closes it (any kind closes any kind, as a string argument may
    hold one), and every closing parenthesis in order."""

    def __init__(self, text: str) -> None:
        self._closing: dict[int, int] = {}
        self._parentheses: list[int] = []
        open_at: list[int] = []
        for match in re.finditer(r"[()\[\]{}]", text):
            at = match.start()
            if match.group() in "([{":
                open_at.append(at)
                continue
            if open_at:
                self._closing[open_at.pop()] = at
            if match.group() == ")":
                self._parentheses.append(at)

    def after(self, opening: int) -> list[int]:
        """The ends to try for a call whose parenthesis opens at ``opening``: the closing
        parenthesis that matches it, then the next ones (the first may close a parenthesis a
        string argument holds); none when nothing closes it."""
        closing = self._closing.get(opening)
        if closing is None:
            return []
        first = bisect.bisect_left(self._parentheses, closing)
        return self._parentheses[first : first + MAX_PARSE_TRIES]


def _call_at(text: str, start: int, ends: list[int]) -> tuple[ast.Call | None, str]:
    """The call written from ``start`` that ends at the first of ``ends`` where it parses."""
    for end in ends:
        if end >= start + MAX_CALL_CHARS:
            break
        written = text[start : end + 1]
        try:
            node = ast_parse(written, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        return (node, written) if isinstance(node, ast.Call) else (None, written)
    return None, ""


def _bound(call: ast.Call, names: tuple[str, ...] | None) -> list[object] | None:
    """The call's arguments as values in the order of ``names``; ``None`` when they are not all
    literals or do not fill the first places."""
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    slots: list[ast.expr | None] = list(call.args)
    for keyword in call.keywords:
        if names is None or keyword.arg not in names:
            return None
        place = names.index(keyword.arg)
        slots += [None] * (place + 1 - len(slots))
        if slots[place] is not None:
            return None
        slots[place] = keyword.value
    values = []
    for slot in slots:
        if slot is None:
            return None  # a default fills it: the case's arguments cannot be told
        try:
            values.append(ast.literal_eval(slot))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return values


def shown_arguments(
    text: str, function: str, names: tuple[str, ...] | None, *, encoded: bool
) -> dict[str, str]:
    """The arguments ``text`` passes to ``function``, each as its :func:`argument_key` with the
    first call that passes them as written."""
    shown: dict[str, str] = {}
    for call in shown_calls(text, function, names):
        key = argument_key(call.args, encoded=encoded, case_file=False)
        if key is not None:
            shown.setdefault(key, call.text)
    return shown


def examples(text: str, function: str, reference: str) -> dict[str, str]:
    """The arguments ``text`` passes to ``function``, keywords bound by the signature in
    ``reference``, keyed as :func:`argument_key` keys values (as a case file of format 4 holds
    them once decoded): what an importer marks as examples, read once for all of a problem's
    calls."""
    return shown_arguments(text, function, parameters(reference, function), encoded=True)


def shows(text: str, function: str, args: list[object], reference: str) -> bool:
    """Whether ``text`` calls ``function`` with ``args``: see :func:`examples`."""
    key = argument_key(args, encoded=True, case_file=False)
    return key is not None and key in examples(text, function, reference)


def argument_key(args: object, *, encoded: bool, case_file: bool) -> str | None:
    """Text that is equal for arguments equal by value, as a case file of that kind holds them;
    ``None`` when they cannot be held so. ``case_file``: ``args`` is read from the case file
    (encoded data, when ``encoded``), not values read from a text."""
    try:
        if encoded:
            data = normalize(args) if case_file else encode(args)
        else:
            data = args if case_file else json.loads(json.dumps(args))  # a tuple is a list
        return json.dumps(_by_value(data), sort_keys=True)
    except (EncodingError, TypeError, ValueError, RecursionError):
        return None


def _by_value(data: object) -> object:
    """Encoded data with each whole float written as an int (``2.0`` as ``2``), the members of
    sets and the pairs of dicts in one order; booleans stay booleans."""
    if isinstance(data, float) and math.isfinite(data) and data.is_integer():
        return int(data)
    if isinstance(data, list):
        return [_by_value(item) for item in data]
    if not isinstance(data, dict):
        return data
    items = {key: _by_value(value) for key, value in data.items()}
    for tag in ("$set", "$frozenset", "$dict"):
        members = items.get(tag)
        if len(items) == 1 and isinstance(members, list):
            items[tag] = sorted(members, key=lambda item: json.dumps(item, sort_keys=True))
    return items


MAX_PAIR_CHARS = 2 * MAX_CALL_CHARS
"""The longest line read for an argument and its result: longer is not an example a person
reads."""
MAX_PAIRS_READ = 10_000
"""The most arguments and results read from a text: one that writes more is not one whose
examples a person reads. (Each line costs a few parses of itself, whatever it holds.)"""
MAX_ROW_CELLS = 32
"""The most cells of a table row read as arguments and a result: a wider row is not one."""
_SEPARATORS = (
    re.compile(r"->|→|=>"),
    re.compile(
        r"\b(?:returns?|gives?|yields?|equals|evaluates\s+to|should\s+(?:be|return|give|yield)"
        r"|is)\b|==|(?<![=!<>])=(?!=)"
    ),
    re.compile(r"\b(?:output|result|expected|answer)\s*[:=]", re.IGNORECASE),
    re.compile(r":"),
)
"""What stands between the arguments and the result on a line: ``[6, 4, 9] -> 6``,
``f([6, 4, 9]) returns 6`` (or ``yields``, ``is``, ``==``, ``=``), ``Input: [6, 4, 9], Output:
6``, ``[6, 4, 9]: 6``."""
_INPUT_LINE = re.compile(r"[\W_]*(?:input|arguments?|args)\b[\W_]*?[:=]\s*(.+)", re.IGNORECASE)
_OUTPUT_LINE = re.compile(
    r"[\W_]*(?:output|result|expected|answer|returns?)\b[\W_]*?[:=]?\s+(.+)", re.IGNORECASE
)
"""An ``Input: nums = [6, 4, 9]`` line, and the ``Output: 6`` line that follows it."""
_JSON_ARGS = ("input", "inputs", "args", "arguments", "params", "in")
_JSON_RESULTS = ("output", "expected", "expected_output", "result", "answer", "out", "return")
"""The keys of a JSON line that hold the arguments and the result: ``{"input": [6, 4, 9],
"output": 6}``."""
_PROSE_START = re.compile(
    r"\b(?:for|given|with|on|if|when)\s+(?:the\s+)?(?:inputs?|arguments?|args|values?)?"
    r"\s*(?:is\s+|of\s+|=\s*|:\s*)?",
    re.IGNORECASE,
)
_PROSE_RESULT = re.compile(
    r",?\s*\b(?:the\s+)?(?:answer|output|result|function|it|we\s+get|you\s+get)\s+"
    r"(?:is|should\s+(?:be|return|give)|returns?|gives?|would\s+be|will\s+be|must\s+be)\s+",
    re.IGNORECASE,
)
"""An example in prose: ``for input 3 the answer is 9``, ``given [6, 4, 9], the function
should return 6``."""
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_CALL_START = re.compile(r"(?<!\w)[A-Za-z_]\w*\s*\(")
_PUNCTUATION = " \t`.,;*"
_MARKER = re.compile(
    r"\s*(?:[-*+]\s+|\d+[.)]\s+|>+\s*|(?:and|or)\s+)?(?:(?:input|arguments?|args)\s*[:=]\s*)?",
    re.IGNORECASE,
)
"""What a list item, a quote, a clause or its arguments start with: ``- ``, ``1. ``, ``> ``,
``and ``, ``Input: ``."""
_CLAUSE_END = re.compile(r"[()\[\]{},;]|\.\s")
"""Brackets, and what ends a clause outside them: a comma, a semicolon, a full stop."""


@dataclass(frozen=True)
class ShownPair:
    """Arguments and the result a text writes on one line, as a table row or on either side
    of an arrow, ``returns``, ``gives`` or a colon; both sides may read more than one way."""

    text: str
    """The line as the text writes it: ``| [6, 4, 9] | 6 |``."""
    args: list[list[object]]
    """The ways the arguments read: ``1, 2`` is the two arguments 1 and 2, or the tuple."""
    results: list[object]
    """The ways the result reads: the literal, or failing that the words themselves."""


def shown_pairs(text: str, function: str, names: tuple[str, ...] | None) -> list[ShownPair]:
    """The arguments and results ``text`` writes on one line: a table row (the last cell the
    result, each cell before it an argument), or the two sides of ``->``, ``=>``, ``returns``,
    ``gives`` or ``:`` (the arguments a literal or a call, its keywords bound by ``names`` when
    it calls ``function``). Each line costs a bounded number of parses of itself."""
    pairs: list[ShownPair] = []
    given: tuple[str, list[list[object]]] | None = None  # an input line's, awaiting its output
    for line in text.splitlines():
        if len(pairs) >= MAX_PAIRS_READ:
            break
        if len(line) > MAX_PAIR_CHARS or not line.strip():
            continue
        spans = [span.group(1) for span in _CODE_SPAN.finditer(line)]
        segments = [line, *spans, *_clauses(line)]
        found = [
            _row(line),
            _json_line(line, names),
            _prose(line, function, names),
            *(_sides(segment, function, names) for segment in segments),
        ]
        written = line.strip()
        output = _OUTPUT_LINE.match(line)
        if given is not None and output is not None:
            found.append((given[1], _results(output.group(1))))
            written = f"{given[0]} / {written}"
        given = _input_line(line, function, names)
        pairs += [
            ShownPair(text=written, args=args, results=results)
            for args, results in filter(None, found)
        ]
    return pairs


def _input_line(
    line: str, function: str, names: tuple[str, ...] | None
) -> tuple[str, list[list[object]]] | None:
    """The line and its arguments when it is an input line alone (``Input: nums = [6, 4, 9]``,
    its output on the next line), the arguments a literal or named as the parameters."""
    match = _INPUT_LINE.match(line)
    if match is None:
        return None
    written = match.group(1).strip(_PUNCTUATION)
    args = _arguments(written, function, names) or _arguments(
        f"{function}({written})", function, names
    )
    return (line.strip(), args) if args else None


def _json_line(
    line: str, names: tuple[str, ...] | None
) -> tuple[list[list[object]], list[object]] | None:
    """The arguments and result of a JSON (or Python) object on a line: ``{"input": [6, 4, 9],
    "output": 6}``; a list of arguments reads also as one argument, an object as the arguments
    by name."""
    stripped = line.strip().rstrip(",")
    if not stripped.startswith("{") or not stripped.endswith("}"):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        data = _literal(stripped)
    if not isinstance(data, dict):
        return None
    fields = {str(key).lower(): value for key, value in data.items()}
    args = next((fields[key] for key in _JSON_ARGS if key in fields), _NOTHING)
    result = next((fields[key] for key in _JSON_RESULTS if key in fields), _NOTHING)
    if args is _NOTHING or result is _NOTHING:
        return None
    if isinstance(args, dict):
        if names is None or set(args) != set(names[: len(args)]):
            return None
        return [[args[name] for name in names[: len(args)]]], [result]
    return ([args, [args]] if isinstance(args, list) else [[args]]), [result]


def _prose(
    line: str, function: str, names: tuple[str, ...] | None
) -> tuple[list[list[object]], list[object]] | None:
    """The arguments and result of an example in prose: the literal after the last ``for``,
    ``given``, ``if the input is``... before the first ``the answer is``, ``it returns``...,
    and what follows that (its first clause, when the rest is no literal)."""
    result = _PROSE_RESULT.search(line)
    if result is None:
        return None
    starts = [match.end() for match in _PROSE_START.finditer(line, 0, result.start())]
    if not starts:
        return None
    args = _arguments(line[starts[-1] : result.start()], function, names)
    if not args:
        return None
    rest = line[result.end() :]
    results = _results(rest)
    if results == [rest.strip(_PUNCTUATION)]:
        first = (_clauses(rest) or [rest])[0]
        results = _results(re.split(r"\s+(?:because|since|as|when)\s", first)[0])
    return args, results


def shown_answers(
    text: str, function: str, names: tuple[str, ...] | None, *, encoded: bool
) -> dict[tuple[str, str], str]:
    """The arguments and results ``text`` writes together on a line (see :func:`shown_pairs`),
    each pair as the :func:`argument_key` of the arguments and of the result, with the first
    line that writes it."""
    shown: dict[tuple[str, str], str] = {}
    for pair in shown_pairs(text, function, names):
        for args in pair.args:
            key = argument_key(args, encoded=encoded, case_file=False)
            for result in pair.results:
                answer = argument_key(result, encoded=encoded, case_file=False)
                if key is not None and answer is not None:
                    shown.setdefault((key, answer), pair.text)
    return shown


def _clauses(line: str) -> list[str]:
    """The parts of ``line`` between commas, semicolons and full stops outside brackets, when
    there are several: ``f(1) gives 2, f([3, 4]) gives 5``."""
    clauses = []
    depth = start = 0
    for match in _CLAUSE_END.finditer(line):
        mark = match.group()[0]
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            clauses.append(line[start : match.start()])
            start = match.end()
    return [*clauses, line[start:]] if clauses else []


def _row(line: str) -> tuple[list[list[object]], list[object]] | None:
    """A table row of literals: ``| [6, 4, 9] | 6 |``."""
    stripped = line.strip()
    if not stripped.startswith("|"):
        return None
    cells = stripped.strip("|").split("|", MAX_ROW_CELLS)
    if not 2 <= len(cells) <= MAX_ROW_CELLS:
        return None
    cells = [cell.strip(_PUNCTUATION) for cell in cells]
    values = [_literal(cell) for cell in cells[:-1]]
    if any(value is _NOTHING for value in values):
        return None
    results = _results(cells[-1])
    args = [values]
    if len(values) == 1 and isinstance(values[0], tuple):
        args.append(list(values[0]))
    return args, results


def _sides(
    segment: str, function: str, names: tuple[str, ...] | None
) -> tuple[list[list[object]], list[object]] | None:
    """The arguments and result either side of the first separator (of each kind, tried at
    its first and its last place) that parses on both sides."""
    marker = _MARKER.match(segment)
    segment = segment[marker.end() :] if marker else segment
    for separator in _SEPARATORS:
        matches = list(separator.finditer(segment))
        for match in dict.fromkeys([*matches[:1], *matches[-1:]]):
            args = _arguments(segment[: match.start()], function, names)
            if args:
                return args, _results(segment[match.end() :])
    return None


def _arguments(
    side: str, function: str, names: tuple[str, ...] | None
) -> list[list[object]] | None:
    """The ways the left side reads as arguments: a literal (a tuple also as its items), or
    the last call on it whose arguments are literals (``f([6, 4, 9])``, ``for f(3)``)."""
    side = side.strip(_PUNCTUATION)
    if not side:
        return None
    value = _literal(side)
    if value is not _NOTHING:
        return [[value], list(value)] if isinstance(value, tuple) else [[value]]
    starts = [match.start() for match in _CALL_START.finditer(side)]
    for start in reversed(starts[-MAX_PARSE_TRIES:]):
        try:
            node = ast_parse(side[start:], mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        bound = _bound(node, names if node.func.id == function else None)
        return None if bound is None else [bound]
    return None


def _results(side: str) -> list[object]:
    """The ways the right side reads as a result: the literal, or failing that its words."""
    side = side.strip(_PUNCTUATION)
    value = _literal(side)
    return [side] if value is _NOTHING else [value]


_NOTHING = object()


def _literal(text: str) -> object:
    """The literal ``text`` writes; :data:`_NOTHING` when it writes none."""
    if not text:
        return _NOTHING
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING
