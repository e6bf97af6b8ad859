"""The runner in-process: every episode kept once, errors retried and kept apart, fails never
retried, sandbox crashes and a locked store recovered, resumes and replays."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import signal
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from assay.errors import PolicyError, SandboxError, StoreError
from assay.policies import (
    OpenAIPolicy,
    PolicyIdentity,
    PolicyRequest,
    PolicyTurn,
    Sampling,
    parse_policy,
)
from assay.runs import (
    RunnerOptions,
    RunSpec,
    run_rollouts,
    start_run,
)
from assay.sandbox import ExecResult, PoolSandbox
from assay.store import Store, StoreBusyError
from assay.store import sqlite as backend
from assay.tasks import Limits
from assay.verdicts import Status
from tests.conftest import BAD_NO_SORT, REFERENCE
from tests.policies.server import ModelServer, Reply, serve
from tests.runs.conftest import FAST, assert_each_episode_kept_once, median_tasks, run_tasks


class Flaky:
    """The reference policy, but the endpoint is down for the first ``failures`` requests."""

    spec = "reference"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.inner = parse_policy("reference")
        self.lock = threading.Lock()

    def identity(self) -> PolicyIdentity:
        return self.inner.identity()

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        with self.lock:
            self.failures -= 1
            down = self.failures >= 0
        if down:
            raise PolicyError("the model endpoint at http://test answered 503")
        return await self.inner.act(request)


class CrashingSandbox:
    """A pool whose first ``crashes`` runs fail as a sandbox that could not start."""

    def __init__(self, pool: PoolSandbox, crashes: int) -> None:
        self.pool, self.crashes = pool, crashes
        self.name, self.lock = "crashing", threading.Lock()

    @property
    def python(self) -> str:
        return self.pool.python

    @property
    def notes(self) -> tuple[str, ...]:
        return ()

    def close(self) -> None:
        """The pool belongs to the session."""

    def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes = b"",
        packages: Sequence[str] = (),
        sockets: bool = True,
    ) -> ExecResult:
        with self.lock:
            self.crashes -= 1
            crash = self.crashes >= 0
        if crash:
            raise SandboxError("the sandbox worker died")
        return self.pool.run(
            command, files=files, limits=limits, stdin=stdin, packages=packages, sockets=sockets
        )


def test_every_episode_runs_once_and_is_kept(tmp_path: Path, pool: PoolSandbox) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, outcomes = run_tasks(store, "r", median_tasks(3), parse_policy("reference"), pool)
        totals = store.episode_totals("r")
    assert (counts.done, counts.passed) == (6, 6)
    assert len(outcomes) == 6
    assert totals.pass_rate == 1.0
    assert_each_episode_kept_once(db, "r", 6)


def test_a_fail_is_kept_and_never_retried(tmp_path: Path, pool: PoolSandbox) -> None:
    with Store(tmp_path / "s.db") as store:
        counts, outcomes = run_tasks(
            store, "r", median_tasks(2), parse_policy("bad:unsorted"), pool
        )
        [stored] = store.verdicts(task_id="median-0", run_id="r")[:1]
    assert (counts.failed, counts.errors) == (4, 0)
    assert [o.status for o in outcomes] == [Status.FAIL] * 4
    assert stored.verdict.status is Status.FAIL


def test_an_endpoint_error_is_retried_and_then_scored_normally(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    db = tmp_path / "s.db"
    with Store(db) as store:
        counts, outcomes = run_tasks(store, "r", median_tasks(2), Flaky(failures=2), pool)
    assert (counts.passed, counts.errors) == (4, 0)
    assert [o.status for o in outcomes].count(None) == 2  # two attempts queued again
    assert_each_episode_kept_once(db, "r", 4)


def test_errors_past_the_attempt_limit_are_kept_as_errors_never_scored(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    db = tmp_path / "s.db"
    options = RunnerOptions(max_sandboxes=2, max_requests=2, max_attempts=2, backoff_s=0.01)
    with Store(db) as store:
        counts, outcomes = run_tasks(
            store, "r", median_tasks(1), Flaky(failures=100), pool, options=options
        )
        totals = store.episode_totals("r")
        kept = store.verdicts(run_id="r")
    assert (counts.done, counts.errors, counts.passed, counts.failed) == (2, 2, 0, 0)
    assert [o.status for o in outcomes].count(None) == 2
    assert totals.pass_rate is None
    assert all(v.verdict.status is Status.ERROR for v in kept)
    assert_each_episode_kept_once(db, "r", 2)


def test_a_crashing_sandbox_is_an_error_retried_never_a_score(
    tmp_path: Path, pool: PoolSandbox
) -> None:
    db = tmp_path / "s.db"
    crashing = CrashingSandbox(pool, crashes=3)
    with Store(db) as store:
        counts, outcomes = run_tasks(
            store, "r", median_tasks(2), parse_policy("reference"), crashing
        )
    assert (counts.passed, counts.failed, counts.errors) == (4, 0, 0)
    assert [o.status for o in outcomes].count(None) == 3
    assert_each_episode_kept_once(db, "r", 4)


def test_a_store_locked_for_a_while_delays_the_run_and_loses_nothing(
    tmp_path: Path, pool: PoolSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "s.db"
    tasks = median_tasks(2)
    with Store(db) as store:
        start_run(store, "r", RunSpec.of(tasks, root="t", policy="reference", k=2, mode="tools"))
    locked, met = threading.Event(), threading.Event()

    def hold() -> None:
        """Another connection holds the write lock until the runner has met it, and a while."""
        locker = sqlite3.connect(db, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")
        locked.set()
        met.wait(30)
        threading.Event().wait(1.0)  # and holds it a while longer
        locker.execute("COMMIT")
        locker.close()

    real = backend._busy_or_failed

    def noting(path: Path, exc: sqlite3.Error) -> StoreError:
        error = real(path, exc)
        if isinstance(error, StoreBusyError):
            met.set()
        return error

    monkeypatch.setattr(backend, "_busy_or_failed", noting)
    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(10)
    with Store(db, timeout_s=0.05) as store:
        counts = run_rollouts(
            store,
            "r",
            tasks={task.id: task for task in tasks},
            policy=parse_policy("reference"),
            sandbox=pool,
            options=FAST,
        )
    holder.join()
    assert met.is_set()
    assert counts.done == 4
    assert_each_episode_kept_once(db, "r", 4)


class Deterministic(ModelServer):
    """A server deterministic for a given seed: an even seed gets the reference, an odd one a
    median that never sorts."""

    def next_action(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
        source = BAD_NO_SORT if body.get("seed", 0) % 2 else REFERENCE
        return Reply(content=f"```python\n{source.decode()}```\n")


@pytest.fixture
def deterministic() -> Iterator[Deterministic]:
    yield from serve(Deterministic)


def test_sample_i_of_a_task_is_asked_with_seed_plus_i(
    tmp_path: Path, pool: PoolSandbox, deterministic: Deterministic
) -> None:
    policy = OpenAIPolicy("test-model", base_url=deterministic.base_url, sampling=Sampling(seed=10))
    with Store(tmp_path / "s.db") as store:
        counts, _ = run_tasks(store, "r", median_tasks(2), policy, pool, k=3, mode="single")
        episodes = store.episodes("r")
    assert sorted(body["seed"] for body in deterministic.requests) == [10, 10, 11, 11, 12, 12]
    assert {(e.sample, e.trajectory.policy.sampling.seed) for e in episodes} == {
        (0, 10),
        (1, 11),
        (2, 12),
    }
    by_sample = {(e.sample, e.trajectory.verdict.status) for e in episodes}
    assert by_sample == {(0, Status.PASS), (1, Status.FAIL), (2, Status.PASS)}
    assert (counts.passed, counts.failed) == (4, 2)


class SignalsFromASideTask:
    """The reference policy, whose second act starts a task of its own (as an HTTP client
    starts one to write a request) in which the process gets SIGTERM, and waits for an answer
    that does not come."""

    spec = "reference"

    def __init__(self) -> None:
        self.inner = parse_policy("reference")
        self.acts = 0

    def identity(self) -> PolicyIdentity:
        return self.inner.identity()

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        self.acts += 1
        if self.acts < 2:
            return await self.inner.act(request)

        async def write() -> None:
            os.kill(os.getpid(), signal.SIGTERM)  # its handler runs inside this task's step

        asyncio.get_running_loop().create_task(write())
        await asyncio.sleep(60)
        raise AssertionError("the run was not stopped")


def test_sigterm_with_ctrl_c_ignored_stops_the_run_in_order_wherever_it_lands(
    tmp_path: Path, pool: PoolSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    """A run started in background (SIGINT ignored) gets SIGTERM while a task nobody awaits
    runs: the run stops as Ctrl-C stops it, no task is left holding a KeyboardInterrupt, and
    the run's jobs are given back."""
    from assay.cli import _terminate_as_interrupt  # noqa: PLC0415

    ctrl_c = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with Store(tmp_path / "s.db") as store:
            with pytest.raises(KeyboardInterrupt), _terminate_as_interrupt():
                run_tasks(
                    store,
                    "bg",
                    median_tasks(2),
                    SignalsFromASideTask(),
                    pool,
                    k=1,
                    mode="single",
                    options=dataclasses.replace(FAST, max_sandboxes=1, max_requests=1),
                )
            counts = store.job_counts("bg", now=0)
        gc.collect()  # a task that ended holding an exception nobody read is reported now
    finally:
        signal.signal(signal.SIGINT, ctrl_c)
    assert counts.leased == 0
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
