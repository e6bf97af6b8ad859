"""Sandboxes: where untrusted code runs.

Backends: ``pool`` (warm, isolated Python workers; the default for verification) and
``bubblewrap`` (a fresh bubblewrap sandbox per command), plus ``LocalSandbox``, an unisolated
stand-in for unit tests of trusted code.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.errors import InputError
from assay.sandbox.bubblewrap import BubblewrapSandbox
from assay.sandbox.local import LocalSandbox
from assay.sandbox.pool import PoolSandbox
from assay.sandbox.protocol import ExecResult, Sandbox

BACKENDS = ("pool", "bubblewrap")


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
    "BubblewrapSandbox",
    "ExecResult",
    "LocalSandbox",
    "PoolSandbox",
    "Sandbox",
    "open_sandbox",
]
