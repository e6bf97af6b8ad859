"""YAML files turned into Kubernetes objects: read inside a sandbox, decoded here as hostile text.

Submitted YAML is parsed by PyYAML on attacker-chosen bytes, so it is parsed in a sandbox job
(:mod:`._parser`), never in the trusted process. That job's output is hostile bytes too: each
record line is read with the bounded, strict decoder of :mod:`assay.families.code.records` and
checked against the only shapes the reader writes, in the job's order. What comes back is plain
JSON data, which is exactly what a submission could have written itself: a reader subverted by
its input can forge nothing a submission could not. Nothing here raises for a bad submission:
every problem is a :class:`Unreadable` with the reason.

Bounds, checked here before the sandbox sees anything and again by the reader:
:data:`MAX_FILE_BYTES` a file, :data:`MAX_TOTAL_BYTES` all files, :data:`MAX_FILES` files;
per file :data:`MAX_DOCUMENTS` documents, :data:`MAX_NODES` nodes and :data:`MAX_CHARS`
characters of scalars once aliases are expanded, :data:`MAX_DEPTH` levels of nesting.
"""

from __future__ import annotations

import json
import secrets
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files
from typing import Any

from assay.errors import VerifierError
from assay.families.code.records import NotPlainError, parse_plain
from assay.sandbox import PACKAGES_DIR
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.spec import Limits

PARSER = package_files("assay.families.config").joinpath("_parser.py").read_text(encoding="utf-8")
PACKAGES = ("pyyaml",)
"""What the reader imports besides the standard library."""
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 4 << 20
MAX_FILES = 32
MAX_DOCUMENTS = 256
MAX_NODES = 200_000
MAX_CHARS = 4_000_000
MAX_DEPTH = 64
MAX_TEXT = 500
YAML_SUFFIXES = (".yaml", ".yml")

Object = dict[str, Any]


@dataclass(frozen=True)
class Documents:
    """The objects of one file, in order (empty documents skipped)."""

    name: str
    objects: tuple[Object, ...]


@dataclass(frozen=True)
class Unreadable:
    """A file that gave no objects, and why."""

    name: str
    reason: str
    stopped: bool = False
    """The reader stopped before it judged the file (a limit of the run, garbled output)."""


Parsed = Documents | Unreadable


@dataclass(frozen=True)
class Placed:
    """A document of a file, or an item of a list document, as kubectl takes it."""

    where: str
    """``document N``, or ``document N item M`` for an item of a list (from 1)."""
    value: object
    """The object, or whatever the document was (a list, a text...)."""
    problem: str | None = None
    """Why kubectl would refuse the list document this stands for; None when it would not."""


def placed(documents: Sequence[object]) -> list[Placed]:
    """The objects of a file's documents as ``kubectl apply`` takes them: a document with an
    ``items`` field (``kind: List``, or ``ConfigMapList``...) is a list, and stands for its
    items, each in its place; an item with neither ``kind`` nor ``apiVersion`` has the
    list's (``kind`` less its ``List``), as kubectl gives it. A list whose ``items`` is not a
    list of objects, or that holds a list, is one :class:`Placed` with its ``problem``."""
    found: list[Placed] = []
    for index, document in enumerate(documents):
        where = f"document {index + 1}"
        if not isinstance(document, dict) or "items" not in document:
            found.append(Placed(where, document))
            continue
        items = document["items"]
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            found.append(Placed(where, document, "a list whose items are not all objects"))
            continue
        if any("items" in item for item in items):
            found.append(Placed(where, document, "a list that holds a list: list the objects"))
            continue
        kind = document.get("kind")
        inherited = {
            "kind": kind.removesuffix("List") if isinstance(kind, str) else "",
            "apiVersion": document.get("apiVersion", ""),
        }
        for number, item in enumerate(items):
            named = "kind" in item or "apiVersion" in item
            found.append(Placed(f"{where} item {number + 1}", item if named else inherited | item))
    return found


def oversized(files: Sequence[tuple[str, bytes]]) -> list[Unreadable]:
    """The bounds ``files`` break before any parsing, one entry each; empty when within."""
    problems = [
        Unreadable(name, f"{len(data)} bytes, more than the limit of {MAX_FILE_BYTES}")
        for name, data in files
        if len(data) > MAX_FILE_BYTES
    ]
    total = sum(len(data) for _name, data in files)
    if total > MAX_TOTAL_BYTES:
        problems.append(
            Unreadable("(all files)", f"{total} bytes, more than the limit of {MAX_TOTAL_BYTES}")
        )
    if len(files) > MAX_FILES:
        problems.append(
            Unreadable("(all files)", f"{len(files)} files, more than the limit of {MAX_FILES}")
        )
    return problems


@dataclass(frozen=True)
class ReadRun:
    """What a sandboxed read gave for each file, and the run itself."""

    parsed: tuple[Parsed, ...]
    result: ExecResult


def read_yaml(
    sandbox: Sandbox,
    files: Sequence[tuple[str, bytes]],
    limits: Limits,
    *,
    kubectl_from: int | None = None,
) -> ReadRun:
    """Read every file of ``files`` (name, bytes), in order, in one sandbox job.

    The files from index ``kubectl_from`` on (a submission) are read with every reading kubectl
    has, a plain ``y`` or ``n`` a boolean among them; the files before it (a task's own, or
    manifests given to the command line, which PyYAML writes with ``y`` and ``n`` unquoted)
    read those as text. The caller checks :func:`oversized` first. Raises
    :class:`VerifierError` when the reader could not start (PyYAML missing), and
    :class:`SandboxError` when the sandbox failed.
    """
    nonce = f"@assay:{secrets.token_hex(8)}:"
    job = {
        "nonce": nonce,
        "files": [f"in/{index}.yaml" for index in range(len(files))],
        "path": [PACKAGES_DIR],
        "max_documents": MAX_DOCUMENTS,
        "max_nodes": MAX_NODES,
        "max_chars": MAX_CHARS,
        "max_depth": MAX_DEPTH,
        "kubectl_from": len(files) if kubectl_from is None else kubectl_from,
    }
    total = sum(len(data) for _name, data in files)
    output_kb = min(65536, max(limits.max_output_kb, 3 * (total + MAX_CHARS) // 1000 + 64))
    result = sandbox.run(
        [sandbox.python, "-I", "-S", "-c", PARSER],
        files={f"in/{index}.yaml": data for index, (_name, data) in enumerate(files)},
        limits=limits.model_copy(update={"max_output_kb": output_kb}),
        stdin=json.dumps(job).encode(),
        packages=PACKAGES,
        sockets=False,  # the parser needs none
    )
    return ReadRun(_decode(result, nonce, [name for name, _data in files]), result)


def _decode(result: ExecResult, nonce: str, names: list[str]) -> tuple[Parsed, ...]:
    lines = [line[len(nonce) :] for line in result.stdout.split("\n") if line.startswith(nonce)]
    found: list[Parsed] = []
    max_chars = 3 * MAX_CHARS + MAX_FILE_BYTES
    for index, line in enumerate(lines):
        try:
            record = parse_plain(line, max_chars=max_chars, max_depth=MAX_DEPTH + 4)
        except NotPlainError as exc:
            return _garbled(names, found, f"a record of the reader is not plain data: {exc}")
        if index == 0:
            if isinstance(record, dict) and set(record) == {"setup_error"}:
                raise VerifierError(f"the YAML reader did not start: {_text(record)}")
            if record != {"ready": True}:
                return _garbled(names, found, "the reader's first record is not its own")
            continue
        parsed = _file_record(record, len(found), names)
        if parsed is None:
            return _garbled(names, found, f"record {index} is not one the reader writes")
        found.append(parsed)
    if not lines:
        raise VerifierError(f"the YAML reader reported nothing ({_ending(result)})")
    return tuple(found) + tuple(
        Unreadable(name, f"not read: {_ending(result)}", stopped=True)
        for name in names[len(found) :]
    )


def _file_record(record: object, index: int, names: list[str]) -> Parsed | None:
    if not isinstance(record, dict) or record.get("file") != index or index >= len(names):
        return None
    if set(record) == {"file", "error"} and isinstance(record["error"], str):
        return Unreadable(names[index], record["error"][:MAX_TEXT])
    documents = record.get("documents")
    if set(record) != {"file", "documents"} or not isinstance(documents, list):
        return None
    return Documents(names[index], tuple(documents))


def _garbled(names: list[str], found: list[Parsed], reason: str) -> tuple[Parsed, ...]:
    return tuple(found) + tuple(
        Unreadable(name, reason, stopped=True) for name in names[len(found) :]
    )


def _text(record: dict[str, object]) -> str:
    value = record.get("setup_error")
    return value[:MAX_TEXT] if isinstance(value, str) else "?"


def _ending(result: ExecResult) -> str:
    """How a run that stopped reporting ended."""
    if result.timed_out:
        return "the reader passed its time limit"
    if result.out_of_memory:
        return "the reader passed its memory limit"
    if result.cpu_exceeded or result.signal == signal.SIGXCPU:
        return "the reader passed its CPU-time limit"
    if result.stdout_truncated:
        return "the reader passed its output limit"
    if result.signal is not None:
        return f"the reader was killed by signal {result.signal}"
    return f"the reader ended with status {result.exit_code}"
