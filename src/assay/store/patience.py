"""Waiting out a store that another writer holds: SQLite's own timeout waits 30 s, and a long
audit or run that ends while another command writes should be kept, not thrown away."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from assay.store.sqlite import StoreBusyError

T = TypeVar("T")

PATIENCE_S = 600.0
"""How long a finished audit, or a run's start and its records, wait for a locked store."""


def waits(patience_s: float = PATIENCE_S) -> Iterator[float]:
    """The pauses between tries, doubling from 50 ms to 2 s, while ``patience_s`` lasts."""
    deadline = time.monotonic() + patience_s
    delay = 0.05
    while time.monotonic() + delay <= deadline:
        yield delay
        delay = min(2.0, delay * 2)


def patiently(call: Callable[[], T], patience_s: float = PATIENCE_S) -> T:
    """``call()``, tried again while the store is locked (:class:`StoreBusyError`), for up to
    ``patience_s``; then the error is raised."""
    pauses = waits(patience_s)
    while True:
        try:
            return call()
        except StoreBusyError:
            pause = next(pauses, None)
            if pause is None:
                raise
            time.sleep(pause)
