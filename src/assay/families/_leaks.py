"""Hidden files shown to the agent: a copy in ``workspace/``, byte for byte or the same data
written another way. The families' lints name them (a task that hands out its expected state or
its cases pays for copying them).

The same data written another way: JSON and TOML files that parse to the same value (minified,
reindented, keys reordered), and text that is the same once comment lines (``#``, ``--``,
``//``) and blank lines are left out and runs of spaces made one; and any of these hidden in a
workspace file encoded once: reversed, gzip- or zlib-compressed, or as a run of base64 or hex
in it (a workspace note that was the base64 of the hidden cases passed the audit).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import itertools
import json
import re
import zlib
from collections.abc import Iterator

from assay import _toml
from assay.tasks.model import Task

MIN_BYTES = 40
"""Files shorter than this are not compared: a few words in common are not a copy."""
_COMMENT = re.compile(r"^\s*(#|--|//)")
_SPACES = re.compile(r"\s+")


def hidden_copies(task: Task, *, solutions: bool = False) -> Iterator[tuple[str, str]]:
    """Each ``(workspace path, secret)`` where the workspace file holds a hidden one (the secret
    named ``hidden/PATH``); with ``solutions``, a solution's file too (``solutions/NAME/PATH``),
    for a family whose solutions are not the workspace changed."""
    forms = {path: _held(path, data) for path, data in task.workspace.items()}
    secret = {f"hidden/{path}": data for path, data in task.hidden.items()}
    if solutions:
        for label, files in task.solutions.items():
            secret |= {f"solutions/{label}/{path}": data for path, data in files.items()}
    for name, data in sorted(secret.items()):
        wanted = _forms(name, data)
        for path, held in sorted(forms.items()):
            if wanted & held:
                yield path, name
                break


def hidden_copies_rewritten(task: Task, *, solutions: bool = False) -> Iterator[tuple[str, str]]:
    """:func:`hidden_copies` but for byte-for-byte copies of hidden files (which the lints
    name already)."""
    for path, name in hidden_copies(task, solutions=solutions):
        if task.workspace[path] != task.hidden.get(name.removeprefix("hidden/")):
            yield path, name


def _forms(path: str, data: bytes) -> set[object]:
    """What a file holds in every form compared: its bytes, its parsed value, its words; none
    for a file too small to tell a copy from a coincidence."""
    if len(data.strip()) < MIN_BYTES:
        return set()
    forms: set[object] = {("bytes", data)}
    text = data.decode("utf-8", errors="replace")
    for parse, kind in ((json.loads, "json"), (_toml.loads, "toml")):
        if path.endswith(f".{kind}") or kind == "json":
            with contextlib.suppress(ValueError, TypeError, RecursionError):
                forms.add((kind, _canonical(parse(text))))
    words = " ".join(
        _SPACES.sub(" ", line).strip()
        for line in text.splitlines()
        if line.strip() and not _COMMENT.match(line)
    )
    if len(words) >= MIN_BYTES:
        forms.add(("words", words))
    return forms


MAX_DECODED = 16 * 2**20
"""Most bytes a compressed workspace file is read to."""
MAX_RUNS = 64
"""Most base64 or hex runs of one file decoded."""
_BASE64 = re.compile(rb"[A-Za-z0-9+/_-]{40,}={0,2}")
_HEX = re.compile(rb"(?:[0-9a-fA-F]{2}){20,}")


def _held(path: str, data: bytes) -> set[object]:
    """The forms of a workspace file and of what it holds encoded once."""
    held = _forms(path, data)
    for decoded in _decodings(data):
        held |= _forms(path, decoded)
    return held


def _decodings(data: bytes) -> Iterator[bytes]:
    """``data`` reversed, decompressed, and each long run of base64 or hex in it, decoded."""
    yield data[::-1]
    if data[:2] == b"\x1f\x8b" or data[:1] == b"\x78":  # gzip, or zlib's usual first byte
        with contextlib.suppress(zlib.error):
            unpacked = zlib.decompressobj(wbits=47)  # either header
            yield unpacked.decompress(data, MAX_DECODED)
    for run in itertools.islice(_BASE64.finditer(data), MAX_RUNS):
        text = run.group()
        with contextlib.suppress(binascii.Error, ValueError):
            if b"-" in text or b"_" in text:
                yield base64.urlsafe_b64decode(text + b"=" * (-len(text) % 4))
            else:
                yield base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
    for run in itertools.islice(_HEX.finditer(data), MAX_RUNS):
        yield bytes.fromhex(run.group().decode("ascii"))


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)
