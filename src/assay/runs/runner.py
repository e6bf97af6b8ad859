"""The runner: takes a run's jobs from the store and runs their episodes, within two caps.

Episodes are asyncio tasks, at most ``2 * (max_sandboxes + max_requests)`` at once: enough to keep
every sandbox and every model request busy, even while as many episodes as there are requests in
flight wait for a sandbox after their answer came back (answers arrive in bursts); an episode
waiting for its model holds no thread and no sandbox. Tool calls and verifications run on a thread
pool of ``max_sandboxes`` threads (the sandbox cap; the pool sandbox is opened with as many
workers); model requests are capped by the policy's own semaphore (``max_requests``). Store calls
run on one thread of their own, so a store that is locked for a while delays writes without
stopping episodes.

Each job is claimed under a lease that a heartbeat renews. An episode that ends in ``error``
(infrastructure) is queued again with backoff until ``max_attempts``; then its error verdict is
kept, counted apart and never scored. So is one whose verdict has no score (``score_error``: a
rubric's judge could not be reached), kept after its attempts with its pass or fail and no score,
and run again when the run is resumed. A ``fail`` is never retried. A finished episode's verdict
and trajectory are written in the transaction that marks its job done, and only if this runner's
claim still holds the job.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Protocol, TypeVar, cast, runtime_checkable

from assay.episodes import Budget, run_episode
from assay.episodes.loop import described
from assay.episodes.records import Mode
from assay.errors import InputError, PolicyError, StoreError
from assay.policies.base import Policy, PolicyIdentity, PolicyRequest, PolicyTurn
from assay.policies.openai_chat import OpenAIPolicy
from assay.policies.prices import PriceTable
from assay.runs._owners import known_dead, new_owner
from assay.sandbox.protocol import Sandbox
from assay.store import Finished, Job, JobCounts, Store, StoreBusyError
from assay.store.patience import PATIENCE_S, waits
from assay.tasks.model import Task
from assay.verdicts import Status

T = TypeVar("T")
WRITE_GATHER_S = 0.005
"""How long the writer waits after an episode ends for others to share its commit."""


@dataclass(frozen=True)
class RunnerOptions:
    """Caps, retries, leases and the episodes' budget and prices."""

    max_sandboxes: int = 4
    """Tool calls and verifications at once (threads; the pool sandbox's workers)."""
    max_requests: int = 16
    """Model requests at once (the model policy's concurrency)."""
    max_attempts: int = 3
    """Attempts of an episode that keeps ending in error, before its error is kept."""
    backoff_s: float = 2.0
    """Wait before the first retry; doubled each further attempt."""
    max_backoff_s: float = 60.0
    """The longest wait before a retry."""
    lease_s: float = 60.0
    """How long a claim holds a job without a heartbeat (renewed every third of it)."""
    poll_s: float = 0.5
    """How often to look again while the run's other jobs are held by other runners."""
    store_patience_s: float = PATIENCE_S
    """How long a store locked by another writer is waited for before the run gives up."""
    budget: Budget | None = None
    """Each episode's budget; None for the default."""
    prices: PriceTable | None = None
    """Token prices for the episodes' cost."""


@dataclass(frozen=True)
class Outcome:
    """What became of one attempt at a job, as it happened."""

    task_id: str
    sample: int
    status: Status | None
    """The verdict's status when the episode was kept; None when it is queued for a retry."""
    detail: str = ""
    """The error, for an attempt that ended in one."""
    kept: bool = True
    """False when another runner had taken the job over (its lease had expired)."""


@runtime_checkable
class SampledPolicy(Protocol):
    """A policy whose episodes depend on the sample index (``replay:RUN``; ``openai:MODEL``
    with a seed, which asks sample i with ``seed + i``)."""

    def for_sample(self, sample: int) -> Policy:
        """The policy of the episodes of sample index ``sample``. Raises
        :class:`assay.errors.InputError` when there can be none (the run stops); anything else
        it raises ends that sample's episode in error, retried, and the run goes on."""
        ...


def run_rollouts(
    store: Store,
    run: str,
    *,
    tasks: Mapping[str, Task],
    policy: Policy,
    sandbox: Sandbox,
    options: RunnerOptions | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> JobCounts:
    """Run the jobs of ``run`` until none is left (:class:`Runner` on an event loop of its own,
    with a thread pool of ``max_sandboxes`` threads); a model policy's client is closed at the
    end. Check the policy first with :func:`assay.runs.check_policy`."""
    options = options or RunnerOptions()
    interrupted: list[bool] = []

    async def main() -> JobCounts:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(
            ThreadPoolExecutor(options.max_sandboxes, thread_name_prefix="assay-sandbox")
        )
        this = asyncio.current_task()
        assert this is not None  # noqa: S101 - main runs as asyncio.run's task

        def stop() -> None:
            interrupted.append(True)
            this.cancel()
            loop.call_soon_threadsafe(_nothing)  # wakes a loop that waits on its selector

        _STOPS[loop] = stop
        try:
            runner = Runner(
                store,
                run,
                tasks=tasks,
                policy=policy,
                sandbox=sandbox,
                options=options,
                on_outcome=on_outcome,
            )
            return await runner.run()
        finally:
            _STOPS.pop(loop, None)
            if isinstance(policy, OpenAIPolicy):
                await policy.aclose()

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if not interrupted:
            raise
        raise KeyboardInterrupt from None


_STOPS: dict[asyncio.AbstractEventLoop, Callable[[], None]] = {}
"""How to stop the :func:`run_rollouts` running on each event loop."""


def interrupt_rollouts() -> bool:
    """Stop the :func:`run_rollouts` on this thread's running event loop as Ctrl-C stops it, for
    a signal handler where Ctrl-C cannot (asyncio handles SIGINT only where it is not ignored):
    the run's main task is cancelled, so the episodes under way stop, those that ended are
    committed, the rest are given back, and :func:`run_rollouts` raises ``KeyboardInterrupt``.
    False when no run is on this thread's loop or it was interrupted already (a second signal
    then raises where it lands, as a second Ctrl-C does)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    stop = _STOPS.pop(loop, None)
    if stop is None:
        return False
    stop()
    return True


def _nothing() -> None:
    """A callback that does nothing."""


class Runner:
    """Runs the jobs of one run from one store; several runners may share the run."""

    def __init__(
        self,
        store: Store,
        run: str,
        *,
        tasks: Mapping[str, Task],
        policy: Policy,
        sandbox: Sandbox,
        options: RunnerOptions | None = None,
        on_outcome: Callable[[Outcome], None] | None = None,
    ) -> None:
        self.store = store
        self.run_name = run
        self.tasks = tasks
        self.policy = policy
        self.sandbox = sandbox
        self.options = options or RunnerOptions()
        self.on_outcome = on_outcome
        self.owner = new_owner()
        self._io = ThreadPoolExecutor(1, thread_name_prefix="assay-store")
        self._writes: asyncio.Queue[tuple[Finished, asyncio.Future[bool]] | None] | None = None
        self._sampled = policy if isinstance(policy, SampledPolicy) else None
        self._policies: dict[int, Policy] = {}

    async def run(self) -> JobCounts:
        """Run jobs until every job of the run is done; returns where the jobs are.

        Cancelling it (Ctrl-C) stops the episodes under way, keeps every episode that had
        ended, and gives the unfinished jobs back to the queue. Raises what an episode raises
        on bad input (:class:`assay.errors.InputError`), and :class:`StoreError` when the
        store cannot be written.
        """
        self._writes = asyncio.Queue()
        writer = asyncio.create_task(self._writer())
        heartbeat = asyncio.create_task(self._heartbeat())
        active: dict[asyncio.Task[None], Job] = {}
        try:
            await self._reclaim_dead()
            return await self._loop(active)
        finally:
            await self._stop(active, writer, heartbeat)

    async def _loop(self, active: dict[asyncio.Task[None], Job]) -> JobCounts:
        options = self.options
        slots = 2 * (options.max_sandboxes + options.max_requests)
        batch = max(1, min(options.max_sandboxes, slots // 2))
        ended: asyncio.Queue[asyncio.Task[None]] = asyncio.Queue()
        while True:
            room = slots - len(active)
            if room >= batch or not active:
                for job in await self._claim(room):
                    task = asyncio.create_task(self._episode(job))
                    task.add_done_callback(ended.put_nowait)
                    active[task] = job
            if not active:
                counts = await self._call(self.store.job_counts, self.run_name, now=time.time())
                if counts.unfinished == 0:
                    return counts
                await self._reclaim_dead()
                await asyncio.sleep(options.poll_s)
                continue
            with contextlib.suppress(TimeoutError):
                await self._ended(ended, active)

    async def _ended(
        self, ended: asyncio.Queue[asyncio.Task[None]], active: dict[asyncio.Task[None], Job]
    ) -> None:
        """Wait (up to ``poll_s``) for episodes to end; raise what one raised (bad input, a
        store that cannot be written): that ends the run."""
        # Not asyncio.wait_for: on Python 3.11 it loses a cancellation (Ctrl-C) that comes as
        # an episode ends, and the run goes on to its end; asyncio.timeout keeps it.
        async with asyncio.timeout(self.options.poll_s):
            done = [await ended.get()]
        while not ended.empty():
            done.append(ended.get_nowait())
        for task in done:
            del active[task]
            task.result()

    async def _claim(self, room: int) -> list[Job]:
        return await self._call(
            self.store.claim_jobs,
            self.run_name,
            owner=self.owner,
            claim_id=uuid.uuid4().hex,
            limit=room,
            lease_s=self.options.lease_s,
            now=time.time(),
        )

    async def _episode(self, job: Job) -> None:
        options = self.options
        trajectory = await run_episode(
            self.tasks[job.task_id],
            self._policy_for(job.sample),
            self.sandbox,
            mode=cast(Mode, job.mode),
            budget=options.budget,
            prices=options.prices,
        )
        verdict = trajectory.verdict
        status = verdict.status
        error = None
        if status is Status.ERROR:
            error = trajectory.end_detail or verdict.summary
        elif verdict.score_error is not None:  # a judge that could not be reached
            error = f"no score: {verdict.score_error}"
        if error is not None and job.attempts + 1 < options.max_attempts:
            delay = min(options.max_backoff_s, options.backoff_s * 2**job.attempts)
            await self._call(
                self.store.retry_later, job, error=error, not_before=time.time() + delay
            )
            self._emit(Outcome(job.task_id, job.sample, None, error))
            return
        kept = await self._keep(Finished(job=job, trajectory=trajectory, error=error))
        self._emit(Outcome(job.task_id, job.sample, status, error or "", kept))

    async def _keep(self, finished: Finished) -> bool:
        """Hand an episode to the writer and wait until it is committed."""
        assert self._writes is not None  # noqa: S101 - set by run() before any episode starts
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        await self._writes.put((finished, future))
        return await future

    async def _writer(self) -> None:
        """Commit finished episodes; those that end while a commit runs share the next one."""
        assert self._writes is not None  # noqa: S101 - set by run() before the writer starts
        while True:
            item = await self._writes.get()
            await asyncio.sleep(WRITE_GATHER_S)  # episodes ending meanwhile share the commit
            batch = [] if item is None else [item]
            stop = item is None
            while not self._writes.empty():
                more = self._writes.get_nowait()
                stop = stop or more is None
                if more is not None:
                    batch.append(more)
            if batch:
                await self._commit(batch)
            if stop:
                return

    async def _commit(self, batch: list[tuple[Finished, asyncio.Future[bool]]]) -> None:
        try:
            kept = await self._call(self.store.finish_jobs, [finished for finished, _ in batch])
        except Exception as exc:  # noqa: BLE001 - each waiting episode gets it, none waits forever
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), was_kept in zip(batch, kept, strict=True):
            if not future.done():
                future.set_result(was_kept)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.options.lease_s / 3)
            with contextlib.suppress(StoreError):
                await self._call(
                    self.store.renew_leases,
                    self.run_name,
                    self.owner,
                    lease_s=self.options.lease_s,
                    now=time.time(),
                    patience_s=0.0,
                )

    async def _reclaim_dead(self) -> None:
        """Give back at once the jobs held by runners on this host that no longer exist."""
        for owner in await self._call(self.store.lease_owners, self.run_name):
            if known_dead(owner):
                await self._call(self.store.release_jobs, self.run_name, owner)

    async def _stop(
        self,
        active: dict[asyncio.Task[None], Job],
        writer: asyncio.Task[None],
        heartbeat: asyncio.Task[None],
    ) -> None:
        """Stop the episodes under way, commit those that ended, give the rest back."""
        for task in active:
            task.cancel()
        await asyncio.gather(*active, return_exceptions=True)
        assert self._writes is not None  # noqa: S101 - set by run()
        await self._writes.put(None)
        await asyncio.gather(writer, return_exceptions=True)
        heartbeat.cancel()
        await asyncio.gather(heartbeat, return_exceptions=True)
        with contextlib.suppress(StoreError):
            await self._call(self.store.release_jobs, self.run_name, self.owner)
        self._io.shutdown(wait=True)

    async def _call(
        self,
        function: Callable[..., T],
        *args: object,
        patience_s: float | None = None,
        **kwargs: object,
    ) -> T:
        """``function`` on the store's thread; a locked store is waited for, with backoff,
        for up to ``patience_s`` (the options' ``store_patience_s`` by default)."""
        loop = asyncio.get_running_loop()
        pauses = waits(self.options.store_patience_s if patience_s is None else patience_s)
        while True:
            try:
                return await loop.run_in_executor(self._io, partial(function, *args, **kwargs))
            except StoreBusyError:
                pause = next(pauses, None)
                if pause is None:
                    raise
                await asyncio.sleep(pause)

    def _policy_for(self, sample: int) -> Policy:
        """The policy of sample ``sample``, made once. A ``for_sample`` that raises (but for
        bad input, which stops the run) gives a policy whose act raises it as a
        :class:`PolicyError`: the episode ends in error, as when an act raises, and the next
        attempt asks ``for_sample`` again."""
        if self._sampled is None:
            return self.policy
        if sample not in self._policies:
            try:
                self._policies[sample] = self._sampled.for_sample(sample)
            except InputError:
                raise
            except Exception as exc:  # noqa: BLE001 - a policy's own failure is an episode's error
                problem = f"the policy's for_sample({sample}) raised {described(exc)}"
                return _Unsampled(self.policy.spec, problem)
        return self._policies[sample]

    def _emit(self, outcome: Outcome) -> None:
        if self.on_outcome is not None:
            self.on_outcome(outcome)


class _Unsampled:
    """The policy of a sample whose ``for_sample`` raised: it fails every act with that."""

    def __init__(self, spec: str, problem: str) -> None:
        self.spec = spec
        self.problem = problem

    def identity(self) -> PolicyIdentity:
        return PolicyIdentity(spec=self.spec, kind="unknown")

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        raise PolicyError(self.problem)
