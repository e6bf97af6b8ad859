"""Every attack in this directory runs against every sandbox backend.

To attack another backend, add one line to ``FACTORIES``, for example::

    "pool": imported("assay.sandbox.pool:PoolSandbox"),

Backends are created once per session; one with a ``close()`` method is closed at the end, before
the session-wide check that nothing any job started or created is left on the host.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator

import pytest

from assay.families import harness_code
from assay.sandbox import BubblewrapSandbox, PoolSandbox, Sandbox
from tests.sandbox.attacks._support import (
    assert_no_job_leftovers,
    descendants,
    job_cgroups,
    job_dirs,
)


def imported(spec: str) -> Callable[[], Sandbox]:
    """A factory for ``"module:Class"``, imported only when the backend is actually used."""
    module, _, name = spec.partition(":")

    def create() -> Sandbox:
        instance: Sandbox = getattr(importlib.import_module(module), name)()
        return instance

    return create


FACTORIES: dict[str, Callable[[], Sandbox]] = {
    "bubblewrap": BubblewrapSandbox,
    "pool": lambda: PoolSandbox(max_workers=2, trusted_code=harness_code()),
}
"""Backend name -> how to create it."""

BACKENDS: list[str] = list(FACTORIES)
"""The backends every attack is run against."""


@pytest.fixture(scope="package", autouse=True)
def host_stays_clean() -> Iterator[None]:
    """After the whole suite: no job process, directory, cgroup or marked file on the host.

    Processes that were already running when the suite started (warm workers of sandboxes that
    other tests share) are not the suite's.
    """
    processes_before = set(descendants(os.getpid()))
    dirs_before = job_dirs()
    groups_before = job_cgroups()
    yield
    left = [p for p in descendants(os.getpid()) if p not in processes_before]
    assert left == [], "processes started by the suite are still running"
    assert_no_job_leftovers(dirs_before, groups_before)


@pytest.fixture(scope="package", params=BACKENDS)
def backend(request: pytest.FixtureRequest, host_stays_clean: None) -> Iterator[Sandbox]:
    """One instance of each backend, shared by the suite and closed at its end."""
    instance = FACTORIES[request.param]()
    assert isinstance(instance, Sandbox)
    yield instance
    close = getattr(instance, "close", None)
    if callable(close):
        close()
