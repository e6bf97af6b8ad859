"""What a project template is: a small, real-looking project and the changes asked of it.

The project's files are real files (``templates/projects/<name>/``), in their *correct* state:
ruff reads them, and the project's own tests pass on them. Each :class:`Change` says how the
workspace differs from that state (a bug put in, a feature taken out) as exact text
replacements, what the user saw (the prompt's material), and which calls into the project tell a
fix from a non-fix. Expected outcomes are never written by hand: the generator runs the reference
and the workspace in the sandbox and keeps what they give.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from importlib.resources.abc import Traversable
from typing import Literal

from assay.tasks.model import Files

PROJECTS = "assay.families.repo.templates"
_SKIPPED = ("__pycache__", ".ruff_cache", ".pytest_cache", ".mypy_cache")


@dataclass(frozen=True)
class Replace:
    """Replace the one occurrence of ``old`` in ``path`` with ``new``."""

    path: str
    old: str
    new: str

    def apply(self, files: Files) -> Files:
        """``files`` with the replacement made; raises ValueError unless ``old`` occurs once
        (``old`` empty: ``new`` is a new file, or is appended to the file)."""
        text = files.get(self.path, b"").decode("utf-8")
        if self.old and text.count(self.old) != 1:
            raise ValueError(f"{self.path}: {self.old[:60]!r} occurs {text.count(self.old)} times")
        changed = text.replace(self.old, self.new, 1) if self.old else text + self.new
        result = dict(files)
        if changed:
            result[self.path] = changed.encode("utf-8")
        else:
            result.pop(self.path, None)  # the replacement emptied the file: it goes
        return result


def apply_all(files: Files, replacements: tuple[Replace, ...]) -> Files:
    """``files`` with each replacement made in turn."""
    for replacement in replacements:
        files = replacement.apply(files)
    return files


@dataclass(frozen=True)
class Probe:
    """One way into the project: a function call, or its command line with input files."""

    call: str | None = None
    """``package.module:function``, called with ``args``."""
    args: tuple[object, ...] = ()
    """Positional arguments: plain data, tuples, sets and bytes round-trip (see the codec)."""
    cli: str | None = None
    """``package.module:main``, called with ``argv`` (a list) in a fresh directory."""
    argv: tuple[str, ...] = ()
    stdin: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    """Input files of a command line, by name relative to its working directory."""

    def shown(self) -> str:
        """How a user would write the call in a report."""
        if self.call is not None:
            module, function = self.call.split(":")
            arguments = ", ".join(repr(arg) for arg in self.args)
            return f"{function}({arguments})  # {module}"
        module = (self.cli or "").split(":")[0]
        line = " ".join(["python", "-m", module, *self.argv])
        return f"{line} < input" if self.stdin else line


@dataclass(frozen=True)
class Report:
    """What the prompt is made of, in the words each kind of writer would use."""

    title: str
    """A one-line summary, as a ticket title (``CSV import drops rows with a BOM``)."""
    complaint: str
    """What a user or customer says went wrong, in their words, without code."""
    expected: str
    """What should happen instead, in plain words."""
    request: str
    """The precise change a developer asks for: names, formats, edge cases."""
    translations: Mapping[str, Report] = field(default_factory=dict)
    """The same report in other prompt languages (``de``, ``fr``), by language."""


@dataclass(frozen=True)
class Change:
    """One bug to fix or feature to add, and everything needed to make tasks of it."""

    id: str
    """Kebab-case, part of the task id (``thousands-separator``)."""
    kind: Literal["bug", "feature"]
    undo: tuple[Replace, ...]
    """Replacements that turn the correct project into the workspace: they put the bug in, or
    take the feature (and its visible tests) out."""
    report: Report
    example: Callable[[random.Random], Probe]
    """The call the reporter made (shown in the prompt): the workspace gets it wrong."""
    fail_to_pass: Callable[[random.Random], list[Probe]]
    """Hidden calls the workspace gets wrong and the change must get right; other inputs than
    the example, so that special-casing the report fails."""
    pass_to_pass: Callable[[random.Random], list[Probe]] = lambda rng: []
    """Hidden calls near the change that already work and must keep working."""
    known_bad: Mapping[str, tuple[Replace, ...]] = field(default_factory=dict)
    """Wrong fixes by label (``breaks-en-amounts``), as replacements in the workspace. The
    generator adds the generic ones itself: doing nothing, editing the tests, special-casing
    the example, swallowing the error."""
    readings: Mapping[str, tuple[Replace, ...]] = field(default_factory=dict)
    """For a vague request, the other reasonable readings by name, each as replacements in the
    correct project: each becomes a ``reference-<name>`` that must pass too."""


@dataclass(frozen=True)
class ProjectTemplate:
    """A project and the changes that can be asked of it."""

    id: str
    """Kebab-case, part of every task id (``invoice-importer``)."""
    title: str
    """What the project is, for prompts (``the invoice importer``)."""
    project: str
    """Directory under ``templates/projects/`` holding the project's files."""
    cli: str
    """The project's entry point, ``package.module:main``."""
    locale: str
    """The locale of the project's data conventions (``de-DE``)."""
    changes: tuple[Change, ...]
    pass_to_pass: Callable[[random.Random], list[Probe]]
    """Hidden calls across the project that every task checks still work."""
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    tags: tuple[str, ...] = ()
    titles: Mapping[str, str] = field(default_factory=dict)
    """The title in other prompt languages (``de``: ``der Rechnungsimport``)."""

    def files(self) -> Files:
        """The correct project's files, by relative path."""
        root = package_files(PROJECTS).joinpath("projects", self.project)
        return dict(_walk(root, ""))


def _walk(node: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for child in sorted(node.iterdir(), key=lambda item: item.name):
        if child.name in _SKIPPED or child.name.endswith(".pyc"):
            continue
        path = f"{prefix}{child.name}"
        if child.is_dir():
            found += _walk(child, f"{path}/")
        else:
            found.append((path, child.read_bytes()))
    return found
