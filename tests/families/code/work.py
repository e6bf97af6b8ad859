"""The work a call does in :mod:`assay.families.code.shown`, counted instead of timed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType

from assay.families.code import shown


def lines_run(read: Callable[[], object]) -> int:
    """The lines of :mod:`assay.families.code.shown` that ``read()`` runs."""
    counted = [0]

    def trace(frame: FrameType, event: str, arg: object) -> object:
        if frame.f_code.co_filename == shown.__file__:
            counted[0] += event == "line"
            return trace
        return None

    sys.settrace(trace)
    try:
        read()
    finally:
        sys.settrace(None)
    return counted[0]
