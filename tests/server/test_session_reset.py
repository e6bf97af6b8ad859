"""A session whose next episode fails to start holds no episode: not the one it released."""

from __future__ import annotations

import time

import pytest

from assay.episodes.episode import Episode
from assay.errors import SandboxError
from assay.sandbox import PoolSandbox
from assay.server.sessions import RefusedError, Session
from tests.conftest import make_median_task

pytestmark = pytest.mark.sandbox


def test_a_reset_that_fails_leaves_no_released_episode_behind(
    pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(id="s", sandbox=pool, last_used=time.monotonic())
    session.reset(make_median_task())
    assert session.state().task_id == "median-1"

    def fails(self: Episode) -> object:
        raise SandboxError("the sandbox could not start")

    monkeypatch.setattr(Episode, "reset", fails)
    with pytest.raises(SandboxError):
        session.reset(make_median_task("median-2"))
    assert session.state().task_id is None
    with pytest.raises(RefusedError) as refused:
        session.step("read_file", {"path": "solution.py"})
    assert refused.value.status == 409
