"""``run_episode``: drive a policy through an episode and keep every step of it.

Waiting for the model holds no sandbox and no thread: the loop is a coroutine, and a thread is
taken only while the tool calls of a turn or the verification run in the sandbox. A turn takes one
thread for all its calls, and for the verification too when they end with a submit.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from assay.episodes.episode import Episode, Judged, Observation
from assay.episodes.prompts import PROMPT_VERSION, tools_version
from assay.episodes.records import (
    Budget,
    Cost,
    EndReason,
    Mode,
    Step,
    ToolStep,
    Trajectory,
    as_text_files,
    schema_names,
)
from assay.errors import AssayError, InputError, PolicyError, SandboxError, VerifierError
from assay.families.base import ToolResult
from assay.policies.base import Policy, PolicyIdentity, PolicyRequest, PolicyTurn, TurnClock
from assay.policies.messages import MAX_TOKEN_COUNT, Message, ToolCall
from assay.policies.prices import PriceTable
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Status, Verdict

MAX_CONVERSATION_CHARS = 16_000_000
"""The longest conversation an episode holds, in characters: its prompt, the model's messages
with their tool calls, and the tools' results. Past it the episode ends, a fail (``budget``), as
a server ends a conversation past its model's context (several million tokens is past any
model's). Without it an endpoint answering 30 MB of tool calls a turn, each turn resent whole,
took the run's process gigabytes an episode, and its trajectory could not be stored at all (a
text past SQLite's billion bytes), so that the run stopped and could never finish."""


async def run_episode(
    task: Task,
    policy: Policy,
    sandbox: Sandbox,
    *,
    mode: Mode = "tools",
    budget: Budget | None = None,
    prices: PriceTable | None = None,
) -> Trajectory:
    """One attempt by ``policy`` at ``task``, judged, as a :class:`Trajectory`.

    Infrastructure failures (the model endpoint after its retries, a sandbox that cannot run,
    a policy whose act or identity raises outside its protocol, or returns no turn or no
    identity, a family whose tools, verify or tool raises: the verifier crashed and judged
    nothing) end the episode with an ``error`` verdict, what failed in its ``end_detail``;
    whatever the policy answers ends in pass or fail, a turn that does not come within the
    budget's ``max_turn_s`` too (the act is cut off), and a conversation that grows past
    :data:`MAX_CONVERSATION_CHARS` (a fail, ``budget``).
    Raises :class:`assay.errors.InputError` when the task or the policy cannot form an episode
    at all (a family without tools, a ``bad:LABEL`` the task lacks).
    """
    started_at = datetime.now(UTC)
    episode, observation, broken = _opened(task, sandbox, mode, budget)
    messages = list(observation.messages)
    run = _Run(episode)
    if broken:
        run.end(broken, episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, broken))
    else:
        try:
            await run.drive(policy, messages, observation.tools)
        except (PolicyError, SandboxError, VerifierError) as exc:
            failed = episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, str(exc))
            run.end(str(exc), failed)
    await run.judge()
    identity = run.identify(policy)
    return run.trajectory(identity, observation, started_at=started_at, prices=prices)


def _opened(
    task: Task, sandbox: Sandbox, mode: Mode, budget: Budget | None
) -> tuple[Episode, Observation, str]:
    """The episode and its first observation, and "" or what failed: a family whose
    ``tools(task)`` or toolset's ``schemas()`` raises (a plugin's bug) gives an episode without
    tools, to be ended in error before the policy is asked anything, and the run goes on. Bad
    input (:class:`InputError`: a family without tools) passes as it is."""
    try:
        episode = Episode(task, sandbox, mode=mode, budget=budget)
        return episode, episode.reset(), ""
    except AssayError:
        raise
    except Exception as exc:  # noqa: BLE001 - a family's own failure is an episode's error
        problem = f"the family's tools raised {described(exc)}"
    episode = Episode(task, sandbox, mode=mode, budget=budget, toolset=_NoTools())
    return episode, episode.reset(), problem


class _NoTools:
    """The toolset of an episode whose family's tools failed: it offers nothing and is never
    called (the episode ends before the policy's first turn)."""

    fence = "text"

    def schemas(self) -> list[dict[str, Any]]:
        return []

    def call(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        return ToolResult(output="no tools: the family's tools failed", ok=False)

    def submission(self) -> Files:
        return {}

    def answer_files(self, code: str) -> Files:
        return {}

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        return []

    def script_answer(self, files: Files) -> str:
        return ""


class _Run:
    """The state of one drive through an episode."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.steps: list[Step] = []
        self.final: Message | None = None
        self.detail = ""
        self.judged: Judged | None = None
        self.model_s = 0.0
        self.chars = 0
        """Characters of the conversation so far (see :data:`MAX_CONVERSATION_CHARS`)."""

    def end(self, detail: str, judged: Judged) -> None:
        self.detail, self.judged = detail, judged

    async def drive(
        self, policy: Policy, messages: list[Message], tools: list[dict[str, object]]
    ) -> None:
        episode = self.episode
        self.chars += sum(_chars(message) for message in messages)
        while True:
            spent = episode.exhausted() or self._overlong()
            if spent:
                self.end(spent, episode.unjudged(EndReason.BUDGET, Status.FAIL, spent))
                return
            request = PolicyRequest(messages=tuple(messages), tools=tools, task=episode.task)
            turn = await self._act(policy, request)
            if turn is None:
                return
            episode.record_turn(turn.usage, turn.waited_s)
            self.chars += _chars(turn.message)
            if episode.mode == "tools":
                episode.record_dropped(turn.dropped_tool_calls)
            self.model_s += turn.latency_s
            messages.append(turn.message)
            self.final = turn.message
            if turn.failure is not None:
                self.steps.append(self._step(turn, (), 0.0))
                summary = f"the policy failed: {turn.failure}"
                failed = episode.unjudged(EndReason.POLICY_FAILED, Status.FAIL, summary)
                self.end(turn.failure, failed)
                return
            # what a turn did past a budget does not count
            spent = episode.overspent() or self._overlong()
            if spent:
                self.steps.append(self._step(turn, (), 0.0))
                self.end(spent, episode.unjudged(EndReason.BUDGET, Status.FAIL, spent))
                return
            calls = turn.message.tool_calls if episode.mode == "tools" else ()
            if not calls:
                self.steps.append(self._step(turn, (), 0.0))
                return
            asked = time.monotonic()
            tool_steps, tools_s = await asyncio.to_thread(
                self._run_calls, calls, messages, asked, turn.dropped_tool_calls
            )
            self.steps.append(self._step(turn, tool_steps, tools_s))
            if episode.submitted or self.judged is not None:
                return

    async def _act(self, policy: Policy, request: PolicyRequest) -> PolicyTurn | None:
        """:meth:`_answer`, with what a policy raises outside the :class:`Policy` protocol (a
        third-party policy's bug: a ``TypeError``, a ``RuntimeError``) or an answer that is no
        turn made a :class:`PolicyError`: the episode ends in error, retried and then kept
        apart, and the run goes on. :class:`assay.errors.AssayError` passes as it is (bad input
        stops the run); so do ``KeyboardInterrupt``, cancellation and exit."""
        try:
            return await self._answer(policy, request)
        except AssayError:
            raise
        except Exception as exc:  # a policy's own failure is an episode's error
            raise PolicyError(f"the policy raised {described(exc)}") from exc

    async def _answer(self, policy: Policy, request: PolicyRequest) -> PolicyTurn | None:
        """The policy's answer, or None when it did not come within the budget's time for a
        turn: the act is cancelled and left behind (one that ignores its cancellation runs on
        without holding the episode), and the episode ends, a fail. The time counted is the
        request's :class:`TurnClock`, which the policy stops while it waits on the
        infrastructure (a free request slot): a turn queued behind the run's
        other requests is not cut off before its own is sent. An act that blocks the event loop
        itself, never awaiting, cannot be cut off."""
        limit = self.episode.budget.max_turn_s
        if limit is None:
            return _turn_of(await policy.act(request))
        asked = time.monotonic()
        acting = asyncio.ensure_future(policy.act(request))
        try:
            await _within(acting, request.clock, limit, asked)
        finally:
            if not acting.done():
                acting.cancel()
                acting.add_done_callback(_forget)
        if acting.done():
            return _turn_of(acting.result())
        self.model_s += time.monotonic() - asked
        spent = (
            f"turn time limit passed ({limit:g} s): the policy had not answered, and was cut off"
        )
        self.end(spent, self.episode.unjudged(EndReason.BUDGET, Status.FAIL, spent))
        return None

    def _run_calls(
        self, calls: tuple[ToolCall, ...], messages: list[Message], asked: float, dropped: int
    ) -> tuple[tuple[ToolStep, ...], float]:
        """Run one turn's calls (on a thread, asked for at ``asked``: the wait for a free one
        is not the policy's time) and their seconds; after a submit, judge too. A call is not
        run once the calls before it spent the episode's CPU or wall-time budget: the episode
        ends there, a fail, whatever the rest of the turn would have done. The last result
        run says how many calls the policy ``dropped`` past the most a turn takes."""
        started = time.monotonic()
        self.episode.record_wait(started - asked)
        done: list[ToolStep] = []
        for call in calls:
            spent = self.episode.overspent() or self._overlong()
            if spent:
                self.end(spent, self.episode.unjudged(EndReason.BUDGET, Status.FAIL, spent))
                break
            result = self._tool(call)
            self.chars += len(result.output)
            done.append(ToolStep(call=call, result=result))
            messages.append(Message(role="tool", tool_call_id=call.id, content=result.output))
            if self.episode.submitted:
                break
        if dropped and done:
            done[-1] = _with_dropped(done[-1], dropped, len(calls))
            messages[-1] = messages[-1].model_copy(update={"content": done[-1].result.output})
        tools_s = time.monotonic() - started
        if self.episode.submitted and self.judged is None:
            self._judge()
        return tuple(done), tools_s

    def _overlong(self) -> str | None:
        """Why the conversation is too long to go on, or None while it is not."""
        if self.chars < MAX_CONVERSATION_CHARS:
            return None
        return (
            f"conversation length limit passed ({self.chars} of {MAX_CONVERSATION_CHARS} "
            "characters of messages, tool calls and tool results)"
        )

    def _tool(self, call: ToolCall) -> ToolResult:
        """The result of ``call``. What the family's tool raises besides a sandbox's failure or
        bad input (a plugin's bug, a :class:`VerifierError`) is a :class:`VerifierError`: the
        episode ends in error, its candidate never judged by a tool that crashed."""
        try:
            return self.episode.step(call)
        except (SandboxError, InputError):
            raise
        except Exception as exc:  # a family's own failure is an episode's error
            problem = f"the family's tool {call.name[:100]!r} raised {described(exc)}"
            raise VerifierError(problem) from exc

    def _step(self, turn: PolicyTurn, tools: tuple[ToolStep, ...], tools_s: float) -> Step:
        return Step(
            index=len(self.steps),
            message=turn.message,
            tools=tools,
            usage=turn.usage,
            model_s=turn.latency_s,
            tools_s=tools_s,
            retries=turn.retries,
            dropped_tool_calls=turn.dropped_tool_calls,
            failure=turn.failure,
        )

    async def judge(self) -> None:
        """Judge the episode on a thread, unless its last turn already did."""
        if self.judged is None:
            await asyncio.to_thread(self._judge)

    def _judge(self) -> None:
        """Judge the submission. A sandbox that fails, or a family's verify that raises (a
        plugin's bug, a :class:`VerifierError`: the verifier crashed, so the candidate is
        neither passed nor failed) or returns no verdict, ends the episode in error, the
        failure named in one line. Bad input (:class:`InputError`) passes as it is, and so do
        ``KeyboardInterrupt`` and exit, which are no ``Exception``."""
        try:
            judged = self.episode.judge(self.final)
        except SandboxError as exc:
            self._crashed(str(exc))
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a verifier's own failure is an episode's error
            self._crashed(f"the family's verify raised {described(exc)}")
        else:
            if isinstance(judged.verdict, Verdict):
                self.judged = judged
            else:
                shown = type(judged.verdict).__name__
                self._crashed(f"the family's verify returned a {shown}, not a Verdict")

    def _crashed(self, problem: str) -> None:
        self.end(problem, self.episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, problem))

    def identify(self, policy: Policy) -> PolicyIdentity:
        """``policy``'s identity. One that raises, or returns no identity, ends the episode in
        error (its trajectory could not say what produced it), unless it had ended in one
        already; the trajectory names the policy by its spec."""
        try:
            identity = policy.identity()
        except Exception as exc:  # noqa: BLE001 - a policy's own failure is an episode's error
            problem = f"the policy's identity() raised {described(exc)}"
        else:
            if isinstance(identity, PolicyIdentity):
                return identity
            problem = f"the policy's identity() returned a {type(identity).__name__}"
        if self.judged is None or self.judged.verdict.status is not Status.ERROR:
            failed = self.episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, problem)
            self.end(problem, failed)
        return PolicyIdentity(spec=str(getattr(policy, "spec", "")), kind="unknown")

    def trajectory(
        self,
        identity: PolicyIdentity,
        observation: Observation,
        *,
        started_at: datetime,
        prices: PriceTable | None,
    ) -> Trajectory:
        episode = self.episode
        judged = self.judged or episode.unjudged(
            EndReason.INFRASTRUCTURE, Status.ERROR, "the episode was never judged"
        )
        identity = identity.model_copy(
            update={
                "prompt_version": PROMPT_VERSION,
                "tools_version": tools_version(observation.tools),
            }
        )
        usd = (prices or PriceTable()).cost((identity.served_model, identity.model), episode.usage)
        cost = Cost(
            input_tokens=episode.usage.input_tokens,
            output_tokens=episode.usage.output_tokens,
            usd=usd,
            sandbox_cpu_s=episode.sandbox_cpu_s + judged.verdict.timings.sandbox_cpu_s,
            wall_s=episode.wall_s,
            model_s=self.model_s,
        )
        return Trajectory(
            episode_id=uuid.uuid4().hex,
            task_id=episode.task.id,
            task_version=episode.task.content_version(episode.label),
            family=episode.label,
            mode=episode.mode,
            policy=identity,
            prompt=observation.messages,
            tool_names=schema_names(observation.tools),
            budget=episode.budget,
            steps=tuple(self.steps),
            failed_tool_calls=episode.failed_calls,
            end=judged.end,
            end_detail=self.detail,
            submission=as_text_files(judged.submission),
            verdict=judged.verdict,
            cost=cost,
            started_at=started_at,
        )


def _chars(message: Message) -> int:
    """The characters ``message`` adds to the conversation: its text and its tool calls."""
    calls = sum(len(call.id) + len(call.name) + len(call.arguments) for call in message.tool_calls)
    return len(message.content or "") + calls


def _with_dropped(step: ToolStep, dropped: int, taken: int) -> ToolStep:
    """``step`` with its result saying that ``dropped`` calls past the first ``taken`` of the
    turn were not run: the model reads it, and the trajectory keeps what the model read."""
    calls = "call was" if dropped == 1 else "calls were"
    note = (
        f"\n\n[{dropped} more tool {calls} not run: a turn takes at most its first {taken} "
        "calls; make fewer calls a turn]"
    )
    result = step.result.model_copy(update={"output": step.result.output + note})
    return step.model_copy(update={"result": result})


def _turn_of(answer: object) -> PolicyTurn:
    """``answer``, which a policy's act returned, when it is a valid turn (one made with
    ``model_copy`` was never validated: a negative latency would fail the episode's records)
    whose token counts are counts: one past :data:`MAX_TOKEN_COUNT` could not be stored, nor
    summed in 64 bits."""
    if not isinstance(answer, PolicyTurn):
        shown = type(answer).__name__
        raise PolicyError(f"the policy's act returned a {shown}, not a PolicyTurn")
    try:
        answer = PolicyTurn.model_validate(
            {name: getattr(answer, name) for name in PolicyTurn.model_fields}
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        where = " ".join(".".join(str(part) for part in error["loc"]).split())[:200]
        raise PolicyError(
            f"the policy's act returned a turn whose {where} is wrong: {error['msg']}"
        ) from None
    for name in ("input_tokens", "output_tokens"):
        count = getattr(answer.usage, name, None)
        if type(count) is not int or not 0 <= count <= MAX_TOKEN_COUNT:
            shown = str(count)[:40] if type(count) is int else type(count).__name__
            raise PolicyError(
                f"the policy's act reported {name} {shown}, not a count of at most "
                f"{MAX_TOKEN_COUNT:.0e}"
            )
    return answer


def described(exc: BaseException) -> str:
    """``exc``'s type and message on one line, at most 500 characters of it (a message that
    cannot be read, its ``__str__`` raising, is said to be so)."""
    try:
        message = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 - a third party's exception may fail even at this
        message = "(its message could not be read)"
    if len(message) > 500:
        message = f"{message[:500]}..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


async def _within(
    acting: asyncio.Future[PolicyTurn], clock: TurnClock, limit: float, asked: float
) -> None:
    """Wait for ``acting`` until it is done or ``clock`` has run ``limit`` seconds since
    ``asked``; while the clock is stopped, the wait has no end but the act's or the clock's."""
    while not acting.done():
        if clock.is_paused:
            resumed = asyncio.ensure_future(clock.resumed())
            either: set[asyncio.Future[Any]] = {acting, resumed}
            try:
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            finally:
                resumed.cancel()
            continue
        left = limit - (time.monotonic() - asked - clock.paused_s())
        if left <= 0:
            return
        await asyncio.wait({acting}, timeout=left)


def _forget(acting: asyncio.Future[PolicyTurn]) -> None:
    """Take the outcome of an act that was cut off, so that what it raised is not reported as
    an exception nobody retrieved."""
    if not acting.cancelled():
        acting.exception()
