"""OpenEnv's session protocol at ``/ws``: one connection, one session.

Messages in: ``{"type": "reset", "data": {...}}`` (``{"task_id": ...}``, or a sampling spec's
fields: family, split, tags, weights, curriculum, seed; OpenEnv's ``episode_id`` is ignored, any
other field refused), ``{"type": "step", "data": {"tool": ..., "arguments": {...}}}`` (an
OpenEnv ``Action``'s ``metadata`` beside them is ignored), ``{"type": "state"}``,
``{"type": "close"}``. Messages out:
``{"type": "observation", "data": {"observation": {...}, "reward": ..., "done": ...}}``,
``{"type": "state", "data": {...}}`` or ``{"type": "error", "data": {"message", "code"}}``, the
codes OpenEnv's own server uses. After ``submit`` the reply is done, its reward the verdict's
score; an ``error`` verdict is done with a null reward and the status in ``metadata``.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from assay.server.models import (
    CreateSession,
    Observation,
    SamplingSpec,
    StepResult,
    ToolCallRequest,
    first_problem,
)
from assay.server.sessions import RefusedError, Session, SessionManager, decode_json

LOG = logging.getLogger(__name__)
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
SAMPLING_KEYS = frozenset(SamplingSpec.model_fields)


class Runner(Protocol):
    """Runs blocking work for a session on a worker thread, the session marked busy."""

    def __call__(self, session: Session, work: Callable[[], T]) -> Awaitable[T]:
        """The work's result."""
        ...


async def openenv_session(websocket: WebSocket, manager: SessionManager, run: Runner) -> None:
    """Serve one OpenEnv client until it closes, goes away, or its session is reclaimed."""
    await websocket.accept()
    try:
        session = manager.open()
    except RefusedError as refused:
        with contextlib.suppress(WebSocketDisconnect):
            await _send_error(websocket, refused.message, "CAPACITY_REACHED")
        await _close(websocket)
        return
    try:
        await _serve(websocket, manager, session, run)
    except WebSocketDisconnect:
        pass  # the client went away before its reply was sent: its session ends all the same
    finally:
        await run_in_threadpool(manager.discard, session)
        await _close(websocket)


async def _close(websocket: WebSocket) -> None:
    """Close the connection, unless the client has already closed or dropped it (a close
    sent then fails, and the server would log it as a crash)."""
    gone = WebSocketState.DISCONNECTED
    if gone in (websocket.client_state, websocket.application_state):
        return
    with contextlib.suppress(WebSocketDisconnect):
        await websocket.close()


async def _serve(
    websocket: WebSocket, manager: SessionManager, session: Session, run: Runner
) -> None:
    while True:
        try:
            raw = await websocket.receive_text()
        except WebSocketDisconnect:
            return
        except KeyError:  # a binary frame: the protocol is text
            await _send_error(websocket, "send messages as text frames", "INVALID_JSON")
            continue
        try:
            message = decode_json(raw, "the message")
        except RefusedError as refused:
            await _send_error(websocket, refused.message, "INVALID_JSON")
            continue
        if not isinstance(message, dict):
            what = 'a message is a JSON object: {"type": ..., "data": {...}}'
            await _send_error(websocket, what, "VALIDATION_ERROR")
            continue
        kind = message.get("type")
        if kind == "close":
            return
        try:
            manager.get(session.id)  # gone when reclaimed for idleness
        except RefusedError as refused:
            await _send_error(websocket, refused.message, "SESSION_ERROR")
            return
        try:
            reply = await _answer(kind, message, manager, session, run)
        except RefusedError as refused:
            await _send_error(websocket, refused.message, _code(refused))
            continue
        except Exception as exc:  # one bad message must not end the session
            LOG.exception("a %r message failed", str(kind)[:20])  # a defect: logged, as over HTTP
            await _send_error(websocket, f"internal error: {type(exc).__name__}", "EXECUTION_ERROR")
            continue
        await websocket.send_text(json.dumps(reply))


async def _answer(
    kind: object, message: dict[str, Any], manager: SessionManager, session: Session, run: Runner
) -> dict[str, Any]:
    data = message.get("data", {})
    if kind == "reset":
        task = manager.choose(_create(data))
        observation = await run(session, lambda: session.reset(task))
        return _observation_reply(_start(observation))
    if kind == "step":
        call = _validated(ToolCallRequest, _action(data))
        result = await run(session, lambda: session.step(call.tool, call.arguments))
        return _step_reply(result, call.tool)
    if kind == "state":
        state = session.state()
        return {
            "type": "state",
            "data": {
                **state.model_dump(mode="json", exclude={"session_id"}),
                "step_count": state.steps,
            },
        }
    raise RefusedError(400, "unknown_type", f"Unknown message type: {str(kind)[:100]!r}")


def _create(data: object) -> CreateSession:
    """A reset's data as a session request: a task id, or the fields of a sampling spec.
    OpenEnv's ``episode_id`` is taken and ignored, and so is a ``seed`` beside a task id;
    anything else that would be left unread is refused, since a misspelt ``task_id`` or a
    filter beside one would otherwise start an episode of another task than the one meant."""
    if not isinstance(data, dict):
        raise RefusedError(422, "invalid", "reset data must be a JSON object")
    known = SAMPLING_KEYS | {"task_id", "episode_id"}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        message = (
            f"reset takes no {unknown[0][:100]!r}: give task_id, or a sampling spec's fields ("
            + ", ".join(sorted(SAMPLING_KEYS))
            + ")"
        )
        raise RefusedError(422, "invalid", message)
    if "task_id" in data:
        beside = sorted(key for key in data if key in SAMPLING_KEYS - {"seed"})
        if beside:
            message = f"reset takes task_id or {beside[0]!r}, not both: a task id names the task"
            raise RefusedError(422, "invalid", message)
        return _validated(CreateSession, {"task_id": data["task_id"]})
    sample = {key: value for key, value in data.items() if key in SAMPLING_KEYS}
    return _validated(CreateSession, {"sample": sample})


def _action(data: object) -> object:
    """A step's data as a tool call. Every OpenEnv action carries ``metadata`` (a field of its
    ``Action`` base class, which a typed action sends with its own fields); it says nothing to
    the tools and is left out."""
    if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
        return {key: value for key, value in data.items() if key != "metadata"}
    return data


def _validated(model: type[M], data: object) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RefusedError(422, "invalid", first_problem(exc, "(the data)")) from None


def _start(observation: Observation) -> dict[str, Any]:
    return {
        "task_id": observation.task_id,
        "family": observation.family,
        "messages": [message.model_dump() for message in observation.messages],
        "tools": observation.tools,
        "output": "",
        "ok": True,
    }


def _observation_reply(
    observation: dict[str, Any],
    *,
    reward: float | None = None,
    done: bool = False,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = {"observation": observation, "reward": reward, "done": done}
    if metadata:
        data["metadata"] = metadata
    return {"type": "observation", "data": data}


def _step_reply(result: StepResult, tool: str) -> dict[str, Any]:
    observation: dict[str, Any] = {"tool": tool, "output": result.output, "ok": result.ok}
    if result.verdict is None:
        return _observation_reply(observation)
    verdict = result.verdict.model_dump(mode="json")
    observation["verdict"] = verdict
    metadata = {"status": verdict["status"], "summary": verdict["summary"]}
    return _observation_reply(observation, reward=result.reward, done=True, metadata=metadata)


def _code(refused: RefusedError) -> str:
    """OpenEnv's error code for a refused."""
    if refused.code in ("invalid", "bad_json"):
        return "VALIDATION_ERROR"
    if refused.code == "unknown_type":
        return "UNKNOWN_TYPE"
    return "EXECUTION_ERROR"


async def _send_error(websocket: WebSocket, message: str, code: str) -> None:
    reply = {"type": "error", "data": {"message": message, "code": code}}
    await websocket.send_text(json.dumps(reply))
