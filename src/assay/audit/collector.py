"""Python's cyclic garbage collector during an audit: one collection a window, not full passes.

An audit keeps what it makes (each task's verdicts and findings, until its report) and holds a
thread per worker. The collector's full passes walk every object the process holds, and the
oldest generation grows with the audit, so the later passes took 0.3 s and more over 1,000
tasks, each with the lock the threads need held: 8 ms of the host's CPU a task, and the
sandbox's workers left without jobs meanwhile. While an audit runs, :func:`quiet_collector`
turns the automatic full passes off, and :func:`between_windows` collects once between windows
and moves what survives to the permanent generation (``gc.freeze``), so the next window's
collection walks only that window's objects; an audit of one window never walks the objects
the process held before it. Cyclic garbage made during a window waits for the window's end; an
object frozen then that becomes garbage later (the audit's own live to its report, but other
threads of the process may drop theirs) waits for the audit's end. When the last audit of the
process ends, the collector is as it was, frozen objects thawed.

The process may already keep objects in the permanent generation (``gc.freeze`` before forking
workers, say): then the audit leaves the collector alone, since thawing them is not its call.
Audits running at once in threads share one policy, undone when the last one ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_NEVER = 1 << 30
"""A third threshold that no count of younger collections reaches."""


class _Policy:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.audits = 0
        self.saved: tuple[int, int, int] | None = None
        """The thresholds before the first audit, or None where the audits leave the collector
        alone."""


_POLICY = _Policy()


@contextmanager
def quiet_collector() -> Iterator[None]:
    """No automatic full collection while the block runs (see the module docstring)."""
    with _POLICY.lock:
        if _POLICY.audits == 0:
            _POLICY.saved = None
            if gc.isenabled() and gc.get_freeze_count() == 0:
                _POLICY.saved = gc.get_threshold()
                first, second, _ = _POLICY.saved
                gc.set_threshold(first, second, _NEVER)
        _POLICY.audits += 1
    try:
        yield
    finally:
        with _POLICY.lock:
            _POLICY.audits -= 1
            if _POLICY.audits == 0 and _POLICY.saved is not None:
                gc.set_threshold(*_POLICY.saved)
                gc.unfreeze()
                _POLICY.saved = None


def between_windows() -> None:
    """Collect what the last window left, and freeze what survives (where the audits manage
    the collector)."""
    with _POLICY.lock:
        if _POLICY.saved is not None:
            gc.collect()
            gc.freeze()
