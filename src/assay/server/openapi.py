"""The OpenAPI description of the HTTP API, served at ``/openapi.json``.

The paths are written here; every body's schema comes from the pydantic model the server
validates it with, so the description cannot say one thing while the server checks another.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from assay.server.models import (
    CreateSession,
    Health,
    Observation,
    Problem,
    SessionState,
    StepResult,
    TaskList,
    ToolCallRequest,
)

_REF = "#/components/schemas/{model}"
_MODELS: tuple[type[BaseModel], ...] = (
    CreateSession,
    ToolCallRequest,
    Observation,
    StepResult,
    SessionState,
    TaskList,
    Health,
    Problem,
)
_SESSION_ID = {
    "name": "session_id",
    "in": "path",
    "required": True,
    "description": "The id the session was created with.",
    "schema": {"type": "string"},
}


def openapi(*, secured: bool = True) -> dict[str, Any]:
    """The description, as a JSON-able dict of the caller's own (changing it changes nothing a
    server serves); ``secured``: every operation needs the bearer token (a server started with
    one), else none does."""
    return copy.deepcopy(_description(secured))


@cache
def _description(secured: bool) -> dict[str, Any]:
    """The description, made once: shared, so never handed out as it is."""
    from assay import __version__  # noqa: PLC0415 - avoids an import cycle at module load

    modes: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (model, "validation" if model in _INPUTS else "serialization") for model in _MODELS
    ]
    _, top = models_json_schema(modes, ref_template=_REF)
    description: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "assay environment server",
            "version": __version__,
            "description": "Sessions over assay's tasks: reset, step with a tool call, submit "
            "for a verdict computed by the server. With a token configured, every request "
            "needs `Authorization: Bearer <token>`. OpenEnv's WebSocket protocol is served at "
            "/ws (or /token/<token>/ws for clients that send no headers).",
        },
        "paths": _paths(secured),
        "components": {"schemas": top.get("$defs", {})},
    }
    if secured:
        description["components"]["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer"}
        }
        description["security"] = [{"bearer": []}]
    return description


_INPUTS = (CreateSession, ToolCallRequest)


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": _REF.format(model=model.__name__)}


def _body(model: type[BaseModel], required: bool = True) -> dict[str, Any]:
    return {
        "required": required,
        "content": {"application/json": {"schema": _ref(model)}},
    }


def _answer(description: str, model: type[BaseModel]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(model)}}}


def _problems(secured: bool, *statuses: int) -> dict[str, Any]:
    words = {
        400: "The body is not JSON.",
        401: "The token is missing or wrong.",
        403: "The request came from a web page of another site (its Origin header), or named "
        "a host that is not loopback (its Host header: a page whose name was rebound here).",
        404: "No such session (closed, or reclaimed when idle), or no such task.",
        409: "The session has no episode yet.",
        413: "The body is too large.",
        422: "The JSON has the wrong shape.",
        503: "The cap on open sessions is reached.",
    }
    shown = (401, *statuses) if secured else (403, *statuses)
    return {str(status): _answer(words[status], Problem) for status in shown}


def _paths(secured: bool) -> dict[str, Any]:
    session = [_SESSION_ID]
    return {
        "/health": {
            "get": {
                "summary": "The server is up.",
                "operationId": "health",
                "responses": {"200": _answer("Up.", Health), **_problems(secured)},
            }
        },
        "/tasks": {
            "get": {
                "summary": "The tasks offered (no prompt, nothing hidden).",
                "operationId": "listTasks",
                "responses": {"200": _answer("The tasks.", TaskList), **_problems(secured)},
            }
        },
        "/sessions": {
            "post": {
                "summary": "Open a session on a task (by id or drawn by a sampling spec).",
                "operationId": "createSession",
                "requestBody": _body(CreateSession),
                "responses": {
                    "201": _answer("The session, reset: prompt and tools.", Observation),
                    **_problems(secured, 400, 404, 413, 422, 503),
                },
            }
        },
        "/sessions/{session_id}": {
            "parameters": session,
            "get": {
                "summary": "Where the session stands.",
                "operationId": "getSession",
                "responses": {
                    "200": _answer("The state.", SessionState),
                    **_problems(secured, 404),
                },
            },
            "delete": {
                "summary": "Close the session and release what it holds.",
                "operationId": "closeSession",
                "responses": {"204": {"description": "Closed."}, **_problems(secured, 404)},
            },
        },
        "/sessions/{session_id}/reset": {
            "parameters": session,
            "post": {
                "summary": "Start the episode again: the same task without a body, or another.",
                "operationId": "resetSession",
                "requestBody": _body(CreateSession, required=False),
                "responses": {
                    "200": _answer("The prompt and tools.", Observation),
                    **_problems(secured, 400, 404, 413, 422),
                },
            },
        },
        "/sessions/{session_id}/step": {
            "parameters": session,
            "post": {
                "summary": "Run one tool call; a submit ends the episode with its verdict.",
                "operationId": "step",
                "requestBody": _body(ToolCallRequest),
                "responses": {
                    "200": _answer("What the call gave back.", StepResult),
                    **_problems(secured, 400, 404, 409, 413, 422),
                },
            },
        },
        "/sessions/{session_id}/submit": {
            "parameters": session,
            "post": {
                "summary": "Submit the work as it stands; the verdict, computed by the server.",
                "operationId": "submit",
                "responses": {
                    "200": _answer("The verdict.", StepResult),
                    **_problems(secured, 404, 409, 413),
                },
            },
        },
    }
