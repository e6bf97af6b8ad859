"""Benchmark files read into problems, in HumanEval's shape whatever the file's.

A HumanEval-style file is JSON lines (``.jsonl``, or gzip-compressed ``.jsonl.gz``), one problem a
line with ``task_id``, ``prompt``, ``canonical_solution``, ``test`` (source defining
``check(candidate)``) and ``entry_point``. An MBPP-style file has ``task_id``, ``text``, ``code``,
``test_list`` (``assert`` lines calling the function by name) and optionally ``test_setup_code``
and ``challenge_test_list`` (sanitized MBPP: ``prompt`` for ``text``, and ``test_imports``); its
asserts become a ``check(candidate)``. Either file may also be one JSON array of such objects
(sanitized MBPP is published so). The file is input: a malformed line or a missing field is one
:class:`InputError` naming the file, the line (or item) and the field.
"""

from __future__ import annotations

import ast
import gzip
import json
import keyword
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay._ast import ast_parse
from assay.errors import InputError

HUMANEVAL_FIELDS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")
MBPP_FIELDS = ("task_id", "text", "code", "test_list")
MAX_FILE_BYTES = 256 * 2**20
"""The most a problem file may hold, decompressed (HumanEval is 0.2 MiB, MBPP 0.6)."""
"""``text`` may be called ``prompt`` (sanitized MBPP, which also gives ``test_imports``)."""


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


def read_humaneval(path: Path) -> list[Problem]:
    """The problems of a HumanEval-style file; raises :class:`InputError` naming the line and
    field when it is malformed."""
    problems = []
    for where, row in _rows(path, HUMANEVAL_FIELDS):
        problems.append(
            Problem(
                where=where,
                task_id=str(row["task_id"]),
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
    for where, row in _records(path, _text(Path(path))):
        if not isinstance(row, dict):
            kind = "(item)" if where.endswith("]") else "(line)"
            raise _bad(path, where, kind, "is not a JSON object")
        for field in fields:
            if field == "text" and "text" not in row and "prompt" in row:
                continue  # sanitized MBPP
            _require(row, field, fields, path, where)
        rows.append((where, row))
    if not rows:
        raise InputError("holds no problems", path=path, fix="pass a file of JSON lines")
    return rows


def _records(path: Path, text: str) -> list[tuple[str, object]]:
    """Each record of ``text`` with where it is: one JSON value a line, or, for a file that is
    one JSON array (as sanitized MBPP is published), its items."""
    if text.lstrip().startswith("["):
        items = _json(text, path, "the file", "give one JSON array of objects, or JSON lines")
        if not isinstance(items, list):
            raise InputError("is not a JSON array", path=path, fix="give JSON lines instead")
        return [(f"{path.name}[{index}]", item) for index, item in enumerate(items)]
    records: list[tuple[str, object]] = []
    for number, line in enumerate(text.split("\n"), start=1):  # U+2028 is text
        if line.strip():
            fix = "give one JSON object a line"
            records.append((f"{path.name}:{number}", _json(line, path, f"line {number}", fix)))
    return records


def _json(text: str, path: Path, where: str, fix: str) -> object:
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(
            f"{where} is nested too deeply to read", path=path, field=where, fix=fix
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{where} is not JSON: {exc.msg} (line {exc.lineno})",
            path=path,
            field=where,
            fix=fix,
        ) from None
    except ValueError:  # an integer of more digits than Python converts
        raise InputError(
            f"{where} holds a number too long to read", path=path, field=where, fix=fix
        ) from None


def _text(path: Path) -> str:
    if not path.is_file():
        raise InputError("no such file", path=path, fix="pass a .jsonl or .jsonl.gz file")
    try:
        if path.name.endswith(".gz"):
            with gzip.open(path, "rb") as compressed:
                raw = compressed.read(MAX_FILE_BYTES + 1)
        else:
            with path.open("rb") as plain:
                raw = plain.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise InputError(
                f"holds more than {MAX_FILE_BYTES // 2**20} MiB of JSON lines",
                path=path,
                fix="split it into smaller files",
            )
        return raw.decode("utf-8-sig")  # a byte order mark is not part of the first line
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
    if field == "task_id" and isinstance(value, int) and not isinstance(value, bool):
        return
    if field == "test_list":
        return
    if not isinstance(value, str) or not value.strip():
        raise _bad(path, where, field, f"is empty or not text {needed}")


def _bad(path: Path, where: str, field: str, problem: str) -> InputError:
    line = where.rpartition(":")[2]
    return InputError(problem, path=path, field=f"line {line}: {field}", fix="correct the line")


def _identifier(name: str, path: Path, where: str, field: str) -> str:
    name = name.strip()
    if not name.isidentifier() or keyword.iskeyword(name):
        raise _bad(path, where, field, f"{name[:40]!r} is not a Python name a function can have")
    return name


def _mbpp_function(code: str, tests: list[str], path: Path, where: str) -> str:
    """The function the asserts call that the code defines."""
    try:
        defined = {node.name for node in ast_parse(code).body if isinstance(node, ast.FunctionDef)}
    except SyntaxError as exc:
        raise _bad(path, where, "code", f"does not parse: {exc.msg}") from None
    for test in tests:
        try:
            tree = ast_parse(test)
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
    """Source defining ``check(candidate)`` that runs the asserts in its body. An entry of
    ``test_list`` may hold several lines (``"assert f(1) == 2\\nassert f(2) == 4"``): every line
    is indented, not only the first, or the check does not load."""
    body = "\n".join(textwrap.indent(textwrap.dedent(test).strip(), "    ") for test in tests)
    return f"{setup}\n\ndef check(candidate):\n    {function} = candidate\n{body}\n"
