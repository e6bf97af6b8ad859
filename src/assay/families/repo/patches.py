"""Unified diffs against a project: read, applied and written on the host, in pure Python.

A submission may be a patch (``assay verify TASK --solution fix.patch``, or the fenced ``diff``
block of a single-turn answer) instead of the changed project. :func:`parse_patch` reads one,
:func:`apply_patch` applies it to the task's workspace and :func:`make_patch` writes one.

The patch is hostile text, so applying it is careful: every path must be a plain relative path
inside the project (no ``..``, no absolute path, no link: a diff that creates a symbolic link is
refused), each hunk must match the file's lines exactly (at the stated line, or the nearest place
the context matches), and a file is created only where none exists and deleted only where it
does. A ``diff -ruN old/ new/`` of two copies of the project applies as ``patch -p1`` would
take it: the copies' directory names are left out, and a file it shows coming from or going to
nothing (a hunk at line 0, a date of 1970-01-01) is created or deleted. Lines end at ``\\n``
only, as ``diff`` and ``patch`` cut them (a CRLF file's ``\\r`` and a
form feed stay in their lines; a patch saved with CRLF throughout is read without them). A
``git diff``'s extended headers count too: a file renamed unchanged, an empty file created or
deleted; a binary change (but of a compiled file, which a project leaves out) or a copy is
refused rather than left out. Applying one takes a bounded time, whatever its hunks state
(:data:`MAX_WORK`), and the project it leaves has no file where a directory is. Any problem
raises :class:`PatchError`, one line naming the patch file, the project file and the hunk, and
saying how to fix it. Nothing is written to disk: files are bytes in a dict.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from assay.errors import SolutionFormatError
from assay.families.code.rewards import compiled
from assay.families.code.tools import path_problem
from assay.tasks.model import Files

PATCH_SUFFIXES = (".patch", ".diff")
"""A submission that is one file with one of these names is a patch against the workspace."""
MAX_PATCH_BYTES = 4 * 1024 * 1024
MAX_WORK = 20_000_000
"""Line steps applying one patch may take: each place a hunk is tried at (a hunk is tried at its
stated line, then ever further away) and each line of a file read for a change count 4, each
line moved by a hunk that changes the number of lines 1 (a copy in C). Hunks stated far from
where their lines are, or thousands of them over a file the patch itself made long, would
otherwise keep the host busy for minutes or hours; a patch made by ``diff`` takes a small share
of this."""
_STEP = 4
MAX_DIFF_CELLS = 10_000_000
"""Old lines times new lines, between the first and the last that differ in each file, all
files of a change together, past which changed lines are not looked for one by one
(:func:`_changes`)."""
MAX_DIFF_WORK = 200_000
"""Pairs of equal lines, one old and one new, past which a file's are not looked for either."""
_HUNK = re.compile(r"^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@")
"""A hunk header; no project file has a billion lines, and a longer number is no line number
(past 4,300 digits, not even an ``int`` Python reads)."""
_DATE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? ([+-]\d{4})$")
"""A ``diff -u`` header's date: ``1970-01-01 00:00:00.000000000 +0000``."""
_NO_NEWLINE = "\\ No newline at end of file"
_FIX = "make it with `diff -ruN workspace/ changed/` or `git diff` against the task's workspace"
_REFUSED_HEADERS = ("new file mode 120000", "old mode 120000", "new mode 120000")
_BINARY = ("Binary files ", "GIT binary patch")
_GIT = "diff --git "


class PatchError(SolutionFormatError):
    """A patch that cannot be read or does not apply; the message is one line."""


@dataclass
class Hunk:
    """One ``@@`` block: where it starts in the old file, the lines it expects and writes."""

    start: int
    """First old line, counted from 1 (0 for a file that is created)."""
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)


@dataclass
class FilePatch:
    """The hunks of one file; ``old_path`` None creates it, ``new_path`` None deletes it."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)
    gone: bool = False
    """Whether the new side's header is dated at the epoch: ``diff -N``'s mark of a file that
    is not there (a deleted file, where git writes ``/dev/null``)."""

    @property
    def path(self) -> str:
        """The project file the patch changes."""
        return self.new_path or self.old_path or ""


def is_patch_submission(files: Files) -> bool:
    """Whether ``files`` is one patch file, to be applied to the workspace."""
    return len(files) == 1 and next(iter(files)).endswith(PATCH_SUFFIXES)


def parse_patch(text: str, name: str = "fix.patch") -> list[FilePatch]:
    """The file patches in ``text``; raises :class:`PatchError` naming ``name``."""
    if len(text.encode()) > MAX_PATCH_BYTES:
        raise PatchError(f"larger than {MAX_PATCH_BYTES} bytes", path=name, fix="send less")
    lines = [line.removesuffix("\n") for line in text_lines(text)]
    if lines and all(line.endswith("\r") for line in lines):  # saved with CRLF, as patch does
        lines = [line.removesuffix("\r") for line in lines]
    patches: list[FilePatch] = []
    index = 0
    about = ""  # the last ``diff`` line: the file a binary change is of
    while index < len(lines):
        line = lines[index]
        if line.startswith(_REFUSED_HEADERS):
            raise PatchError(
                "the patch makes a symbolic link", path=name, fix="make the diff of regular files"
            )
        if line.startswith("diff "):
            about = line
        if line.startswith(_BINARY) and not _compiled(f"{about} {line}"):
            raise PatchError(
                f"the patch changes a binary file ({line[:80]!r})",
                path=name,
                fix="send the changed project's directory: a diff cannot carry a binary file",
            )
        if line.startswith(_GIT) and (bare := _git_only(lines, index, name)) is not None:
            patches.append(bare)
        if line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1][:4] == "+++ ":
            new_header = lines[index + 1]
            patch = FilePatch(
                _header_path(line, name),
                _header_path(new_header, name),
                gone=_dated_at_epoch(new_header),
            )
            if not patch.path:
                raise PatchError(
                    f"names no file ({line[:40]!r} and {lines[index + 1][:40]!r})",
                    path=name,
                    fix=_FIX,
                )
            index = _read_hunks(lines, index + 2, patch, name)
            patches.append(patch)
            continue
        index += 1
    if not patches:
        raise PatchError("holds no unified diff (no ---/+++ file headers)", path=name, fix=_FIX)
    return patches


def _compiled(text: str) -> bool:
    """Whether a binary change (its line, and the ``diff`` line of its file) is of a compiled
    file, which a submission's project leaves out anyway."""
    return any(compiled(word) for word in text.split())


def _git_only(lines: list[str], index: int, name: str) -> FilePatch | None:
    """The change a ``diff --git`` block makes with its extended headers alone (no ``---``
    and ``+++`` lines follow): a file renamed unchanged, or an empty file created or deleted.
    None when the block has hunks (read as any diff's) or changes only a file's mode."""
    headers = []
    for line in lines[index + 1 :]:
        if line.startswith((_GIT, "--- ", "@@")):
            if line.startswith("--- "):
                return None
            break
        headers.append(line)
    found = {
        key: line[len(key) :]
        for line in headers
        for key in ("rename from ", "rename to ", "copy to ", "new file mode", "deleted file mode")
        if line.startswith(key)
    }
    if "copy to " in found:
        raise PatchError("the patch copies a file", path=name, fix="make the diff without -C")
    if "rename from " in found and "rename to " in found:
        old, new = found["rename from "], found["rename to "]
        return FilePatch(_header_path(f"--- {old}", name), _header_path(f"+++ {new}", name))
    if "new file mode" in found or "deleted file mode" in found:
        path = _git_path(lines[index], name)
        return FilePatch(None, path) if "new file mode" in found else FilePatch(path, None)
    return None


def _git_path(line: str, name: str) -> str | None:
    """The one file a ``diff --git a/PATH b/PATH`` line names."""
    both = line[len(_GIT) :].rstrip()
    half = (len(both) - 5) // 2
    if not both.startswith("a/") or both[2 : 2 + half] != both[5 + half :]:
        raise PatchError(f"cannot read the file name in {line[:80]!r}", path=name, fix=_FIX)
    return _header_path(f"--- {both[2 : 2 + half]}", name)


def _header_path(line: str, name: str) -> str | None:
    raw = line[4:].split("\t", maxsplit=1)[0].strip()
    if raw == "/dev/null":
        return None
    if raw.startswith(("a/", "b/")):
        raw = raw[2:]
    problem = _path_problem(raw)
    if problem:
        raise PatchError(f"bad file name in {line[:80]!r}: {problem}", path=name, fix=_FIX)
    return raw


def _dated_at_epoch(line: str) -> bool:
    """Whether a ``---``/``+++`` header's date (after a tab) is the epoch, in any zone."""
    _, _, date = line.partition("\t")
    match = _DATE.match(date.strip())
    if match is None:
        return False
    try:
        when = datetime.strptime(f"{match[1]} {match[2]}", "%Y-%m-%d %H:%M:%S %z")
    except ValueError:
        return False
    return when.timestamp() == 0


def _path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a project file, as the tools' paths go (:func:`path_problem`),
    except that a part may start with dots: a project's ``.gitignore`` or ``.github/`` is
    changed by diffs too, and a diff of it is no less plain."""
    parts = path.split("/")
    if any(part.strip(".") == "" for part in parts):  # ``.``, ``..``, an empty part
        return path_problem(path) or f"{path[:100]!r} is not a plain relative path"
    return path_problem("/".join(part.lstrip(".") for part in parts)) and path_problem(path)


def _read_hunks(lines: list[str], index: int, patch: FilePatch, name: str) -> int:
    while index < len(lines) and lines[index].startswith("@@"):
        match = _HUNK.match(lines[index])
        if match is None:
            raise PatchError(f"malformed hunk header {lines[index][:80]!r}", path=name, fix=_FIX)
        old_count = int(match.group(2) or "1")
        new_count = int(match.group(4) or "1")
        hunk = Hunk(start=int(match.group(1)))
        index += 1
        while len(hunk.old) < old_count or len(hunk.new) < new_count:
            if index >= len(lines):
                raise PatchError(f"a hunk of {patch.path} ends early", path=name, fix=_FIX)
            line = lines[index]
            tag, body = (line[:1], line[1:]) if line else (" ", "")
            if tag not in " +-":
                raise PatchError(
                    f"a hunk of {patch.path} holds {line[:60]!r}, not a context, + or - line "
                    "(its line counts are wrong)",
                    path=name,
                    fix=_FIX,
                )
            if tag in " -":
                hunk.old.append(body + "\n")
            if tag in " +":
                hunk.new.append(body + "\n")
            index += 1
            index = _no_newline(lines, index, hunk, tag)
        patch.hunks.append(hunk)
    return index


def _no_newline(lines: list[str], index: int, hunk: Hunk, tag: str) -> int:
    """Strip the newline of the line just read when a ``\\ No newline`` marker follows it."""
    if index < len(lines) and lines[index].startswith(_NO_NEWLINE[:10]):
        if tag in " -":
            hunk.old[-1] = hunk.old[-1][:-1]
        if tag in " +":
            hunk.new[-1] = hunk.new[-1][:-1]
        return index + 1
    return index


@dataclass
class _Budget:
    """What is left of :data:`MAX_WORK` for applying one patch."""

    name: str
    left: int = MAX_WORK

    def spend(self, steps: int, path: str) -> None:
        """Count ``steps`` done on ``path``; raises :class:`PatchError` past the budget."""
        self.left -= steps
        if self.left < 0:
            raise PatchError(
                f"applying it to {path} takes more than {MAX_WORK} line steps (hunks far "
                "from the lines they state, or one file changed over and over)",
                path=self.name,
                fix=_FIX,
            )


def apply_patch(workspace: Files, text: str, name: str = "fix.patch") -> Files:
    """``workspace`` with the patch ``text`` applied; raises :class:`PatchError`."""
    files = dict(workspace)
    budget = _Budget(name)
    for patch in _without_copy_names(parse_patch(text, name), workspace):
        _apply_file(files, _from_nothing(patch, files), name, budget)
    for path in files:
        parts = path.split("/")
        for end in range(1, len(parts)):
            if (directory := "/".join(parts[:end])) in files:
                raise PatchError(
                    f"leaves {path} inside {directory}, which is a file", path=name, fix=_FIX
                )
    return files


def _without_copy_names(patches: list[FilePatch], workspace: Files) -> list[FilePatch]:
    """The patches of a ``diff -ruN old/ new/`` (every old path under one directory, every new
    path under another, and the project has no directory of the old one's name) with those
    directories left out, as ``patch -p1`` reads them; others as they are."""
    olds = [p.old_path for p in patches if p.old_path is not None]
    news = [p.new_path for p in patches if p.new_path is not None]
    old_tops = {path.split("/")[0] for path in olds if "/" in path}
    new_tops = {path.split("/")[0] for path in news if "/" in path}
    if (
        len(old_tops) != 1
        or len(new_tops) != 1
        or old_tops == new_tops
        or any("/" not in path for path in olds + news)
        or any(path.startswith(f"{next(iter(old_tops))}/") for path in workspace)
    ):
        return patches
    return [
        FilePatch(
            _inner(patch.old_path),
            _inner(patch.new_path),
            patch.hunks,
            patch.gone,
        )
        for patch in patches
    ]


def _inner(path: str | None) -> str | None:
    return None if path is None else path.split("/", maxsplit=1)[1]


def _from_nothing(patch: FilePatch, files: Files) -> FilePatch:
    """The patch as the creation it is where it only adds lines at line 0 to a file that is
    not there (``diff -N`` names the missing file where git writes ``/dev/null``)."""
    if patch.old_path is None or patch.old_path in files or not patch.hunks:
        return patch
    if all(hunk.start == 0 and not hunk.old for hunk in patch.hunks):
        return FilePatch(None, patch.new_path, patch.hunks)
    return patch


def _apply_file(files: Files, patch: FilePatch, name: str, budget: _Budget) -> None:
    path = patch.path
    if patch.old_path is None and path in files:
        raise PatchError(f"creates {path}, which exists already", path=name, fix=_FIX)
    if patch.old_path is not None and patch.old_path not in files:
        raise PatchError(f"changes {patch.old_path}, which does not exist", path=name, fix=_FIX)
    old = b"" if patch.old_path is None else files[patch.old_path]
    if not patch.hunks:  # renamed unchanged, or an empty file created or deleted
        if patch.old_path not in (None, path) and patch.new_path is not None and path in files:
            raise PatchError(f"renames a file to {path}, which exists", path=name, fix=_FIX)
        if patch.old_path is not None:
            del files[patch.old_path]
        if patch.new_path is not None:
            files[path] = old
        return
    budget.spend(_STEP * (old.count(b"\n") + 1), path)
    try:
        lines = text_lines(old.decode("utf-8"))
    except UnicodeDecodeError:
        raise PatchError(f"{path} is not UTF-8 text", path=name, fix="change it whole") from None
    offset = 0  # how far the hunks before this one moved the old file's lines
    for number, hunk in enumerate(patch.hunks, 1):
        at = _locate(lines, hunk, offset, budget.spend, path)
        if at is None:
            raise PatchError(_mismatch(lines, hunk, number, path), path=name, fix=_FIX)
        if len(hunk.new) != len(hunk.old):
            budget.spend(len(lines) - at, path)
        lines[at : at + len(hunk.old)] = hunk.new
        offset = at - _base(hunk) + len(hunk.new) - len(hunk.old)
    if patch.old_path is not None and patch.old_path != path:
        del files[patch.old_path]
    if patch.new_path is None or (patch.gone and not lines):
        files.pop(path, None)
        return
    files[path] = "".join(lines).encode("utf-8")


def _base(hunk: Hunk) -> int:
    """The index the hunk's old lines start at; a hunk that only adds comes after its line."""
    return max(hunk.start - 1, 0) if hunk.old else hunk.start


def _locate(
    lines: list[str], hunk: Hunk, offset: int, spend: Callable[[int, str], None], path: str
) -> int | None:
    """Where the hunk's old lines are: at the stated line (moved by the hunks before it) or
    the nearest place they match; None when they match nowhere. Each place tried and each line
    compared is spent."""
    wanted = _base(hunk) + offset
    if not hunk.old:
        return min(max(wanted, 0), len(lines))
    first, size = hunk.old[0], len(hunk.old)
    for at in _nearest(wanted, len(lines) - size):
        if lines[at] == first:
            spend(_STEP + size, path)
            if lines[at : at + size] == hunk.old:
                return at
        else:
            spend(_STEP, path)
    return None


def _nearest(wanted: int, last: int) -> Iterator[int]:
    """The places 0 to ``last``, nearest to ``wanted`` first. A line stated far past the end
    (or before the start) is taken from the end (or the start): the places tried are the same,
    in the same order, and no time goes on the distance to them."""
    wanted = min(max(wanted, 0), max(last, 0))
    for distance in range(max(wanted, last - wanted) + 1):
        for at in (wanted - distance, wanted + distance):
            if 0 <= at <= last:
                yield at
            if distance == 0:
                break


def _mismatch(lines: list[str], hunk: Hunk, number: int, path: str) -> str:
    start = max(hunk.start - 1, 0)
    expected = hunk.old[0].rstrip("\n") if hunk.old else ""
    found = lines[start].rstrip("\n") if start < len(lines) else "the end of the file"
    return (
        f"hunk {number} of {path} does not match the file at line {start + 1} "
        f"(expected {expected[:60]!r}, found {found[:60]!r})"
    )


def make_patch(old: Files, new: Files) -> str:
    """A unified diff (``a/`` and ``b/`` prefixes) that turns ``old`` into ``new``."""
    chunks: list[str] = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        if not before and not after:  # an empty file made or deleted: git's headers alone
            made = "new" if before is None else "deleted"
            chunks.append(f"diff --git a/{path} b/{path}\n{made} file mode 100644\n")
            continue
        chunks.extend(
            difflib.unified_diff(
                _lines(before),
                _lines(after),
                fromfile="/dev/null" if before is None else f"a/{path}",
                tofile="/dev/null" if after is None else f"b/{path}",
            )
        )
    return "".join(_terminated(chunk) for chunk in chunks)


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else text_lines(data.decode("utf-8", errors="replace"))


def text_lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n``, as ``diff`` and ``patch`` cut it: a ``\\r`` (of a
    CRLF file) or a form feed stays inside its line, where ``str.splitlines`` would cut."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _terminated(line: str) -> str:
    if line.endswith("\n"):
        return line
    return f"{line}\n{_NO_NEWLINE}\n"


@dataclass
class DiffBudget:
    """What is left of :data:`MAX_DIFF_CELLS` for the files of one change."""

    cells: int = MAX_DIFF_CELLS


def changed_lines(
    before: bytes | None, after: bytes, margin: int = 0, budget: DiffBudget | None = None
) -> set[int]:
    """The lines (from 1) of ``after`` that differ from ``before``, and ``margin`` lines around
    each; a deletion marks the line after it. Pass one ``budget`` for the files of a change."""
    lines: set[int] = set()
    for _, _, start, end in _changes(_lines(before), _lines(after), budget or DiffBudget()):
        lines.update(range(start + 1 - margin, max(end, start + 1) + margin + 1))
    return lines


def lines_changed(old: Files, new: Files) -> int:
    """How many lines a change from ``old`` to ``new`` removes and adds, all files together."""
    total = 0
    budget = DiffBudget()
    for path in sorted(set(old) | set(new)):
        if old.get(path) != new.get(path):
            changes = _changes(_lines(old.get(path)), _lines(new.get(path)), budget)
            total += sum(i2 - i1 + j2 - j1 for i1, i2, j1, j2 in changes)
    return total


def _changes(old: list[str], new: list[str], budget: DiffBudget) -> list[tuple[int, int, int, int]]:
    """The ranges ``old[i1:i2]`` that become ``new[j1:j2]``, as ``difflib`` finds them between
    the first and the last line that differ. Where that would take too long (``difflib`` is
    quadratic, and a submitted file of thousands of blank lines amid the old ones would keep
    the host busy for hours: :data:`MAX_DIFF_CELLS`, :data:`MAX_DIFF_WORK`), all lines between
    count as changed: more than the least change, never fewer."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    if not a and not b:
        return []
    counts = Counter(b)
    if len(a) * len(b) > budget.cells or sum(counts[line] for line in a) > MAX_DIFF_WORK:
        return [(head, head + len(a), head, head + len(b))]
    budget.cells -= len(a) * len(b)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [
        (head + i1, head + i2, head + j1, head + j2)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
