"""Task families and their registry.

Families are found through the ``assay.families`` entry-point group (the built-in ``code``
family is declared there too) and through :func:`register_family`.
"""

from __future__ import annotations

import threading
from importlib.metadata import entry_points
from pathlib import Path

from assay.errors import UnknownFamilyError
from assay.families.base import Family
from assay.tasks.model import Task

ENTRY_POINT_GROUP = "assay.families"
_registry: dict[str, Family] = {}
_discovered = False
_lock = threading.Lock()


def register_family(family: Family) -> None:
    """Make ``family`` available by its name, replacing any family of the same name."""
    _registry[family.name] = family


def get_family(name: str) -> Family:
    """The family registered as ``name``; raises :class:`UnknownFamilyError` if there is none."""
    _discover()
    try:
        return _registry[name]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise UnknownFamilyError(
            f"unknown family {name!r}", field="family", fix=f"use one of: {known}"
        ) from None


def family_names() -> list[str]:
    """Names of every registered family."""
    _discover()
    return sorted(_registry)


def family_of(task: Task, where: Path | None = None) -> Family:
    """The family of ``task``; the error names ``where/task.toml`` (or the task id)."""
    try:
        return get_family(task.family)
    except UnknownFamilyError as exc:
        toml = where / "task.toml" if where is not None else f"{task.id}/task.toml"
        raise UnknownFamilyError(exc.problem, path=toml, field="family", fix=exc.fix) from None


def harness_code() -> tuple[str, ...]:
    """The trusted harness code of every registered family, for warm sandbox workers."""
    return tuple(code for name in family_names() for code in get_family(name).trusted_code)


def version_label(family: Family) -> str:
    """``name@version``, as recorded on verdicts."""
    return f"{family.name}@{family.version}"


def _discover() -> None:
    global _discovered  # noqa: PLW0603 - one lazy discovery per process
    with _lock:
        if _discovered:
            return
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            if entry.name not in _registry:
                register_family(entry.load()())
        _discovered = True


__all__ = [
    "Family",
    "family_names",
    "family_of",
    "get_family",
    "harness_code",
    "register_family",
    "version_label",
]
