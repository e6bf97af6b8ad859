"""Sessions: one episode each, held by the server, reachable only through an unguessable id.

A session owns its episode (for code, the workspace's files; for workflow, its emulator) and
nothing else: the sandbox is shared and lent for one tool call at a time, and each call starts
from the session's own files, so no session can see another's state. Calls on one session run
one at a time. A session idle past the timeout is reclaimed with whatever its episode holds; past
the cap on open sessions a new one is refused. The verdict is computed here, by the family's
verifier in a fresh sandbox job, and only its agent view (:class:`AgentVerdict`) leaves.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import Any

from assay.episodes import EndReason, Episode, Judged
from assay.errors import AssayError, InputError
from assay.families import family_of
from assay.families.base import gives_tools
from assay.policies.messages import ToolCall
from assay.sandbox.protocol import Sandbox
from assay.server.models import (
    AgentVerdict,
    CreateSession,
    Message,
    Observation,
    SamplingSpec,
    SessionState,
    StepResult,
    TaskInfo,
)
from assay.server.sampling import draw
from assay.tasks.model import Task
from assay.verdicts import Status

LOG = logging.getLogger(__name__)


class RefusedError(AssayError):
    """A request the server refuses: its HTTP status, a stable code and one line."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class _NotJsonError(ValueError):
    """A value Python's parser reads but JSON has no room for (NaN, 1e309)."""


def _no_constant(name: str) -> float:
    raise _NotJsonError(f"holds {name}, which is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJsonError(f"holds the number {text[:40]}, too large for a double")
    return value


def decode_json(raw: str | bytes, what: str) -> object:
    """``raw`` parsed as standard JSON; :class:`RefusedError` (400, ``bad_json``) saying what
    is wrong with ``what`` (``"the body"``) otherwise. NaN, Infinity and numbers past a double
    are refused: Python's parser takes them, JSON does not."""
    try:
        return json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        problem = f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except UnicodeDecodeError:
        problem = "is not valid JSON (not UTF-8 text)"
    except RecursionError:
        problem = "is JSON nested too deeply"
    except _NotJsonError as exc:
        problem = str(exc)
    except ValueError:  # int() refuses to read more digits than sys.get_int_max_str_digits()
        problem = f"holds an integer of more than {sys.get_int_max_str_digits()} digits"
    raise RefusedError(400, "bad_json", f"{what} {problem}")


@dataclass(frozen=True)
class ServerLimits:
    """How many sessions, for how long, with how large requests."""

    max_sessions: int = 64
    """Sessions open at once; past it a new one is refused (503)."""
    idle_timeout_s: float = 600.0
    """Seconds without a request after which a session is reclaimed."""
    max_body_bytes: int = 4 * 1024 * 1024
    """Largest request body or WebSocket message, bytes (413 past it)."""
    max_sandbox_cpu_s: float | None = 60.0
    """CPU seconds an episode's tool calls may use together; past it the episode ends as a
    fail, as in ``assay run``. None: no limit beyond each call's own."""

    def __post_init__(self) -> None:
        """Refuse limits no server can keep (:class:`InputError`): a cap of no session (its
        health could not be answered), a timeout or budget that is not a positive number (NaN
        would keep every session forever), a body limit below one byte."""
        for name in ("max_sessions", "max_body_bytes"):
            count = getattr(self, name)
            if not _number(count, int) or count < 1:
                raise InputError(f"{count!r} is not a whole number of at least 1", field=name)
        for name in ("idle_timeout_s", "max_sandbox_cpu_s"):
            seconds = getattr(self, name)
            if seconds is None and name == "max_sandbox_cpu_s":
                continue
            if not _number(seconds, int | float) or not 0 < seconds < math.inf:
                problem = f"{seconds!r} is not a positive, finite number of seconds"
                raise InputError(problem, field=name)


def _number(value: object, kind: type | UnionType) -> bool:
    """Whether ``value`` is of ``kind`` and no boolean (which Python counts as an int)."""
    return isinstance(value, kind) and not isinstance(value, bool)


@dataclass
class Session:
    """One client's episode and where it stands."""

    id: str
    sandbox: Sandbox
    last_used: float
    cpu_budget_s: float | None = None
    episode: Episode | None = None
    judged: Judged | None = None
    steps: int = 0
    closed: bool = False
    busy: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by the request whose turn it is (reading its body, then its call on a worker
    thread): the session's other requests wait on the event loop, not on worker threads that
    every session shares, and with their bodies still unread."""

    def reset(self, task: Task) -> Observation:
        """Start a fresh episode of ``task``; the previous one, if any, is released."""
        with self.lock:
            self._check_open()
            self._release()
            # released: a session whose next episode fails to start holds none, not the old one
            self.episode, self.judged, self.steps = None, None, 0
            try:
                episode = Episode(task, self.sandbox)
            except InputError as exc:  # the server's task, not the client's request
                raise RefusedError(500, "task_unusable", str(exc)[:500]) from None
            try:
                start = episode.reset()
            except BaseException:
                _close(episode)
                raise
            self.episode = episode
            messages = tuple(Message(role=m.role, content=m.content or "") for m in start.messages)
            return Observation(
                session_id=self.id,
                task_id=task.id,
                family=episode.label,
                messages=messages,
                tools=start.tools,
            )

    def step(self, tool: str, arguments: Mapping[str, Any]) -> StepResult:
        """Run one tool call; a call that submits is judged at once."""
        with self.lock:
            episode = self._episode()
            if self.judged is not None:
                return StepResult(
                    output="the episode has ended: the work was submitted and judged",
                    ok=False,
                    done=True,
                    **_outcome(self.judged),
                )
            call = ToolCall(
                id=f"call-{self.steps}",
                name=tool,
                arguments=json.dumps(arguments, ensure_ascii=False),
            )
            self.steps += 1
            try:
                result = episode.step(call)
            except AssayError as exc:  # the sandbox failed: the episode ends in error
                self.judged = episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, str(exc))
                return StepResult(output=str(exc), ok=False, done=True, **_outcome(self.judged))
            if not result.submitted:
                return self._after(episode, result.output, ok=result.ok)
            self.judged = _judge(episode)
            return StepResult(output=result.output, ok=True, done=True, **_outcome(self.judged))

    def _after(self, episode: Episode, output: str, *, ok: bool) -> StepResult:
        """A call's result; the episode ends as a fail when its sandbox CPU budget is spent."""
        budget = self.cpu_budget_s
        if budget is None or episode.sandbox_cpu_s < budget:
            return StepResult(output=output, ok=ok, done=False)
        spent = f"sandbox CPU budget spent ({episode.sandbox_cpu_s:.2f} of {budget:g} CPU-seconds)"
        self.judged = episode.unjudged(EndReason.BUDGET, Status.FAIL, spent)
        output = f"{output}\n[the episode has ended: {spent}]"
        return StepResult(output=output, ok=ok, done=True, **_outcome(self.judged))

    def submit(self) -> StepResult:
        """Judge the episode's work as it stands (as a ``submit`` tool call would)."""
        with self.lock:
            episode = self._episode()
            if self.judged is None:
                episode.submitted = True
                self.judged = _judge(episode)
            return StepResult(output="submitted", ok=True, done=True, **_outcome(self.judged))

    def state(self) -> SessionState:
        """Where the session stands."""
        judged, episode = self.judged, self.episode  # read once: a close may run meanwhile
        return SessionState(
            session_id=self.id,
            task_id=episode.task.id if episode else None,
            steps=self.steps,
            done=judged is not None,
            verdict=AgentVerdict.of(judged.verdict) if judged else None,
        )

    def close(self) -> None:
        """Release the episode and what it holds; waits for a call in progress. Idempotent."""
        self.closed = True
        with self.lock:
            self._release()
            self.episode = None

    def _episode(self) -> Episode:
        self._check_open()
        if self.episode is None:
            raise RefusedError(409, "not_reset", "the session has no episode yet: reset it first")
        return self.episode

    def _check_open(self) -> None:
        if self.closed:
            raise RefusedError(404, "not_found", "no such session (closed, or reclaimed when idle)")

    def _release(self) -> None:
        if self.episode is not None:
            _close(self.episode)


def _close(episode: Episode) -> None:
    """Release what ``episode``'s tools hold (a workflow episode's emulator)."""
    close: Callable[[], object] | None = getattr(episode.toolset, "close", None)
    if callable(close):
        close()


def _judge(episode: Episode) -> Judged:
    """The episode judged; an infrastructure failure is an error verdict, never a fail."""
    try:
        return episode.judge(None)
    except AssayError as exc:
        return episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, str(exc)[:500])
    except Exception as exc:  # a defect of assay: the session ends in error, never stuck
        LOG.exception("judging session's episode of %s failed", episode.task.id)
        summary = f"internal error: {type(exc).__name__}"
        return episode.unjudged(EndReason.INFRASTRUCTURE, Status.ERROR, summary)


def _close_quietly(session: Session) -> None:
    """Close ``session``; a failure to release its episode is logged, never raised, so that
    the other sessions are reclaimed all the same."""
    try:
        session.close()
    except Exception:  # one episode's failure must not stop the reclaiming
        LOG.exception("closing session %s failed", session.id[:8])


def _outcome(judged: Judged) -> dict[str, Any]:
    verdict = AgentVerdict.of(judged.verdict)
    return {"reward": verdict.reward, "verdict": verdict}


def offered(tasks: Sequence[Task]) -> list[Task]:
    """The tasks a session can attempt: those whose family gives agents tools."""
    return [task for task in tasks if gives_tools(family_of(task))]


class SessionManager:
    """The open sessions of one server, under a cap and an idle timeout."""

    def __init__(
        self,
        tasks: Sequence[Task],
        sandbox: Sandbox,
        *,
        limits: ServerLimits | None = None,
        pass_rates: Mapping[str, float] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tasks = {task.id: task for task in offered(tasks)}
        self.unoffered = {task.id: task.family for task in tasks if task.id not in self.tasks}
        """Tasks of the set that no session can attempt (their family gives agents no tools),
        by id: their family, to say why when one is asked for."""
        self.sandbox = sandbox
        self.limits = limits or ServerLimits()
        self.pass_rates = dict(pass_rates or {})
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def open(self) -> Session:
        """A new session with no episode yet; refused (503) past the cap."""
        with self._lock:
            cap = self.limits.max_sessions
            if len(self._sessions) >= cap:
                raise RefusedError(
                    503,
                    "capacity",
                    f"the server holds {cap} sessions, its cap; close one or retry later",
                )
            session = Session(
                id=secrets.token_urlsafe(24),
                sandbox=self.sandbox,
                last_used=self._clock(),
                cpu_budget_s=self.limits.max_sandbox_cpu_s,
            )
            self._sessions[session.id] = session
            return session

    def get(self, session_id: str) -> Session:
        """The open session ``session_id``, its idle clock restarted; 404 when there is none."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                raise RefusedError(
                    404, "not_found", "no such session (closed, or reclaimed when idle)"
                )
            session.last_used = self._clock()
            return session

    def close(self, session_id: str) -> None:
        """Close the session and release its episode; 404 when there is none."""
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is None:
            raise RefusedError(404, "not_found", "no such session (closed, or reclaimed when idle)")
        session.close()

    def discard(self, session: Session) -> None:
        """Close ``session`` if it is still open (a WebSocket that went away)."""
        with self._lock:
            self._sessions.pop(session.id, None)
        session.close()

    def reap(self) -> list[str]:
        """Close every session idle past the timeout (not one in the middle of a call)."""
        deadline = self._clock() - self.limits.idle_timeout_s
        with self._lock:
            idle = [s for s in self._sessions.values() if s.busy == 0 and s.last_used <= deadline]
            for session in idle:
                del self._sessions[session.id]
        for session in idle:
            _close_quietly(session)
        return [session.id for session in idle]

    def close_all(self) -> None:
        """Close every session (the server is stopping)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            _close_quietly(session)

    def touch(self, session: Session, delta: int) -> None:
        """Mark a call on ``session`` begun (+1) or ended (-1); the idle clock restarts."""
        with self._lock:
            session.busy += delta
            session.last_used = self._clock()

    def choose(self, request: CreateSession) -> Task:
        """The task a new episode attempts: by id, or drawn by the sampling spec."""
        if request.task_id is not None:
            task = self.tasks.get(request.task_id)
            if task is None:
                raise RefusedError(404, "unknown_task", self._not_offered(request.task_id))
            return task
        sample = request.sample or SamplingSpec()
        try:
            return draw(list(self.tasks.values()), sample, self.pass_rates)
        except AssayError as exc:
            raise RefusedError(404, "no_task", str(exc)) from None

    def _not_offered(self, task_id: str) -> str:
        family = self.unoffered.get(task_id)
        if family is None:
            return f"no task {task_id[:200]!r} here"
        return f"task {task_id!r} is not offered: its family {family!r} gives agents no tools"

    def task_infos(self) -> list[TaskInfo]:
        """Every task offered, without prompt or hidden files."""
        return [
            TaskInfo(
                task_id=task.id,
                family=task.family,
                split=task.spec.split.value,
                tags=task.spec.tags,
                pass_rate=self.pass_rates.get(task.id),
            )
            for task in sorted(self.tasks.values(), key=lambda t: t.id)
        ]
