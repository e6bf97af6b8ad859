"""Limits no server can keep are refused when they are set, not met later as a 500 on every
health check or as sessions that are never reclaimed."""

from __future__ import annotations

import math

import pytest

from assay.errors import InputError
from assay.server import ServerLimits


@pytest.mark.parametrize(
    ("limits", "said"),
    [
        ({"max_sessions": 0}, "max_sessions: 0 is not a whole number of at least 1"),
        ({"max_sessions": True}, "max_sessions: True is not a whole number"),
        ({"max_body_bytes": -1}, "max_body_bytes: -1 is not a whole number"),
        ({"idle_timeout_s": math.nan}, "idle_timeout_s: nan is not a positive, finite number"),
        ({"idle_timeout_s": 0}, "idle_timeout_s: 0 is not a positive, finite number"),
        ({"max_sandbox_cpu_s": math.inf}, "max_sandbox_cpu_s: inf is not a positive"),
    ],
)
def test_limits_no_server_can_keep_are_refused(limits: dict[str, float], said: str) -> None:
    with pytest.raises(InputError) as refused:
        ServerLimits(**limits)  # type: ignore[arg-type]
    assert str(refused.value).startswith(said)


def test_sensible_limits_are_kept() -> None:
    limits = ServerLimits(max_sessions=1, idle_timeout_s=0.3, max_sandbox_cpu_s=None)
    assert (limits.max_sessions, limits.idle_timeout_s, limits.max_sandbox_cpu_s) == (1, 0.3, None)
