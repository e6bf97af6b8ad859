"""Sandboxes: where untrusted code runs.

Backends: ``pool`` (warm, isolated Python workers; the default for verification) and
``bubblewrap`` (a fresh bubblewrap sandbox per command), plus ``LocalSandbox``, an unisolated
stand-in for unit tests of trusted code.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.errors import InputError
from assay.sandbox._process import check_files
from assay.sandbox._pyenv import describe as python_environment
from assay.sandbox._pyenv import resolve
from assay.sandbox.bubblewrap import BubblewrapSandbox
from assay.sandbox.local import LocalSandbox
from assay.sandbox.pool import PoolSandbox
from assay.sandbox.protocol import PACKAGES_DIR, ExecResult, Sandbox

BACKENDS = ("pool", "bubblewrap")


def package_modules(packages: Sequence[str]) -> frozenset[str]:
    """The top-level modules that the named packages themselves (not their requirements) make
    importable in a sandbox. Raises :class:`assay.errors.InputError` (field ``packages``) for a
    name in the standard library or not installed in assay's environment."""
    return resolve(packages).declared_modules


def open_sandbox(
    backend: str, *, workers: int | None = None, trusted_code: Sequence[str] = ()
) -> BubblewrapSandbox | PoolSandbox:
    """The named backend, ready to use; close it with ``close()`` when done.

    Raises :class:`assay.errors.SandboxUnavailableError` with what is missing when the backend
    cannot run here: there is no silent fallback to a weaker one.
    """
    if backend == "pool":
        return PoolSandbox(max_workers=workers, trusted_code=trusted_code)
    if backend == "bubblewrap":
        return BubblewrapSandbox()
    raise InputError(
        f"unknown sandbox backend {backend!r}",
        field="sandbox",
        fix=f"use one of: {', '.join(BACKENDS)}",
    )


__all__ = [
    "BACKENDS",
    "PACKAGES_DIR",
    "BubblewrapSandbox",
    "ExecResult",
    "LocalSandbox",
    "PoolSandbox",
    "Sandbox",
    "check_files",
    "open_sandbox",
    "package_modules",
    "python_environment",
]
