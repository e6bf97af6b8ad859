"""The Python environment of a sandboxed job: the standard library, plus the packages a run names.

What a job can import is defined, not whatever the host happens to have installed:

- hidden: every ``site-packages`` and ``dist-packages`` directory on the system trees a sandbox
  mounts (the host's, the interpreter's own, any other Python's) is covered by an empty,
  read-only mount, so no path trick finds a package there; assay's own environment (a venv, say)
  is never mounted at all;
- shown: the interpreter's standard library and its compiled modules (``lib-dynload``);
- exposed on request: the distributions a run names, with their runtime requirements as assay's
  own environment resolves them (through :mod:`importlib.metadata`), each file and directory they
  install bound read-only under :data:`assay.sandbox.protocol.PACKAGES_DIR`. Jobs run
  ``python -I -S``, so nothing puts that directory on ``sys.path`` by itself: a harness does.

:func:`describe` names the result (interpreter, platform, every exposed ``name==version``), for a
verdict to record.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

from assay.errors import InputError
from assay.sandbox.protocol import PACKAGES_DIR
from assay.verdicts import PythonEnvironment

PACKAGE_DIR_NAMES = frozenset({"site-packages", "dist-packages"})
"""Directories where Python installations keep third-party packages."""
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BINARY_SUFFIXES = (".dist-info", ".egg-info", ".libs", ".data")


@dataclass(frozen=True)
class Distribution:
    """One installed distribution, as a sandbox exposes it."""

    name: str
    """Canonical name (lowercase, ``-`` for runs of ``-_.``)."""
    version: str
    root: Path
    """The directory it is installed in (a site-packages)."""
    entries: tuple[str, ...]
    """Paths, relative to ``root``, that it installs and that are bound into the sandbox."""
    modules: tuple[str, ...]
    """Top-level names it makes importable."""


@dataclass(frozen=True)
class Exposure:
    """The distributions one set of names brings into a sandbox."""

    distributions: tuple[Distribution, ...]
    """Sorted by name; empty for the standard library only."""
    declared_modules: frozenset[str]
    """Top-level modules of the distributions named (not of their requirements)."""

    @property
    def pinned(self) -> tuple[str, ...]:
        """``name==version`` of every exposed distribution."""
        return tuple(f"{d.name}=={d.version}" for d in self.distributions)

    def mount_args(self) -> list[str]:
        """bubblewrap arguments binding each entry read-only under PACKAGES_DIR."""
        if not self.distributions:
            return []
        args = ["--dir", PACKAGES_DIR]
        made: set[str] = set()
        bound: set[str] = set()
        for dist in self.distributions:
            for entry in dist.entries:
                if entry in bound:
                    continue  # a namespace directory's part that another distribution holds
                bound.add(entry)
                for parent in reversed(PurePosixPath(entry).parents[:-1]):
                    if str(parent) not in made:
                        made.add(str(parent))
                        args += ["--dir", f"{PACKAGES_DIR}/{parent}"]
                args += ["--ro-bind", str(dist.root / entry), f"{PACKAGES_DIR}/{entry}"]
        return args


STANDARD_LIBRARY = Exposure(distributions=(), declared_modules=frozenset())


def canonical(name: str) -> str:
    """A distribution name as packaging compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def resolve(names: Sequence[str]) -> Exposure:
    """The distributions that ``names`` (distribution or top-level module names) bring, with
    their runtime requirements. Raises :class:`InputError` (field ``packages``) for a name that
    is in the standard library or not installed in assay's environment."""
    if not names:
        return STANDARD_LIBRARY
    return _resolve(tuple(sorted(set(names))))


@functools.lru_cache(maxsize=64)
def _resolve(names: tuple[str, ...]) -> Exposure:
    chosen: dict[str, metadata.Distribution] = {}
    for name in names:
        for dist in _named(name):
            chosen.setdefault(canonical(dist.metadata["Name"]), dist)
    declared = frozenset(m for d in chosen.values() for m in _describe(d).modules)
    pending = list(chosen.values())
    while pending:
        for requirement in pending.pop().requires or ():
            found = _requirement(requirement)
            if found is not None and canonical(found.metadata["Name"]) not in chosen:
                chosen[canonical(found.metadata["Name"])] = found
                pending.append(found)
    exposed = tuple(_describe(chosen[key]) for key in sorted(chosen))
    return Exposure(distributions=exposed, declared_modules=declared)


def describe(names: Sequence[str]) -> PythonEnvironment:
    """The environment a job that asked for ``names`` runs in, for a verdict to record."""
    return _environment(tuple(sorted(set(names))))


@functools.lru_cache(maxsize=64)
def _environment(names: tuple[str, ...]) -> PythonEnvironment:
    libc, libc_version = platform.libc_ver()
    where = sysconfig.get_platform() + (f" {libc} {libc_version}" if libc else "")
    return PythonEnvironment(
        implementation=f"{platform.python_implementation()} {platform.python_version()}",
        platform=where,
        packages=resolve(names).pinned,
    )


def hiding_args(roots: Iterable[Path]) -> list[str]:
    """bubblewrap arguments covering every package directory under ``roots`` with an empty
    read-only tmpfs; to follow the mounts of those roots."""
    args: list[str] = []
    for path in package_dirs(tuple(str(root) for root in roots)):
        args += ["--perms", "0555", "--size", "4096", "--tmpfs", path, "--remount-ro", path]
    return args


@functools.lru_cache(maxsize=8)
def package_dirs(roots: tuple[str, ...]) -> tuple[str, ...]:
    """Every ``site-packages`` or ``dist-packages`` directory under ``roots`` (real directories,
    not symbolic links: a link's target is found where it really is, when it is mounted).
    Walked once per process: about 0.2 s over a large /usr."""
    found: list[str] = []
    for root in roots:
        for directory, subdirectories, _files in os.walk(root):
            keep = []
            for name in subdirectories:
                if name in PACKAGE_DIR_NAMES and not Path(directory, name).is_symlink():
                    found.append(str(Path(directory, name)))
                else:
                    keep.append(name)
            subdirectories[:] = keep
    return tuple(sorted(found))


def _named(name: str) -> list[metadata.Distribution]:
    """The installed distributions a task's name means: the distribution of that name, else
    those that install a top-level module of that name."""
    if name in sys.stdlib_module_names:
        raise InputError(
            f"{name!r} is in the standard library, which is always available",
            field="packages",
            fix=f"remove {name!r}",
        )
    if not _IDENTIFIER.match(name) and not _NAME.fullmatch(name):
        raise InputError(f"{name!r} is not a package name", field="packages", fix="remove it")
    try:
        return [metadata.distribution(name)]
    except metadata.PackageNotFoundError:
        pass
    owners = _module_owners().get(name, [])
    if not owners:
        raise InputError(
            f"{name!r} is not installed in assay's Python environment ({sys.prefix})",
            field="packages",
            fix=f"install it there (pip install {name}) or remove it",
        )
    return [metadata.distribution(owner) for owner in owners]


@functools.lru_cache(maxsize=1)
def _module_owners() -> dict[str, list[str]]:
    return dict(metadata.packages_distributions())


def _requirement(text: str) -> metadata.Distribution | None:
    """The installed distribution a runtime requirement names; None for an extra's
    requirement, or one whose marker leaves it uninstalled here."""
    spec, _, marker = text.partition(";")
    if "extra" in marker:
        return None
    match = _NAME.match(spec)
    if match is None:
        return None
    try:
        return metadata.distribution(match.group(1))
    except metadata.PackageNotFoundError:
        return None


def _describe(dist: metadata.Distribution) -> Distribution:
    root = Path(str(dist.locate_file(""))).resolve()
    files = [PurePosixPath(str(f)) for f in dist.files or ()]
    installed = [f for f in files if f.parts and f.parts[0] not in ("..", "__pycache__")]
    installed = [f for f in installed if not (len(f.parts) == 1 and f.suffix == ".pth")]
    entries = tuple(sorted(_entries(root, installed)))
    modules = tuple(sorted(_modules(entries)))
    if not modules:
        raise InputError(
            f"{dist.metadata['Name']!r} installs no module a sandbox can bind (an editable or "
            "egg install?)",
            field="packages",
            fix="install it as a wheel, or remove it",
        )
    return Distribution(
        name=canonical(dist.metadata["Name"]),
        version=dist.version,
        root=root,
        entries=entries,
        modules=modules,
    )


def _entries(root: Path, files: list[PurePosixPath], prefix: str = "") -> set[str]:
    """The paths to bind: top-level files and packages whole; a directory without
    ``__init__.py`` (a namespace package others may share) part by part."""
    entries: set[str] = set()
    tops: dict[str, list[PurePosixPath]] = {}
    for path in files:
        tops.setdefault(path.parts[0], []).append(path)
    for top, under in tops.items():
        where = f"{prefix}{top}"
        if not (root / where).exists():
            continue
        nested = [PurePosixPath(*p.parts[1:]) for p in under if len(p.parts) > 1]
        shared = (
            nested
            and _IDENTIFIER.match(top)
            and not (root / where / "__init__.py").exists()
            and not top.endswith(_BINARY_SUFFIXES)
        )
        if shared:
            entries |= _entries(root, nested, f"{where}/")
        else:
            entries.add(where)
    return entries


def _modules(entries: Iterable[str]) -> set[str]:
    modules = set()
    for entry in entries:
        top = entry.split("/")[0]
        if top.endswith(_BINARY_SUFFIXES):
            continue
        name = top.split(".")[0]
        if _IDENTIFIER.match(name):
            modules.add(name)
    return modules
