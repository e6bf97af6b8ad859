"""Before a run: a model endpoint that would refuse every episode (no tool calling, an option it
does not take) stops the run with one line naming the cause and the fix, and a refusal of tools
met inside an episode is the server's error, never the model's fail."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from assay.errors import PolicyError, PolicySpecError
from assay.policies import Message, OpenAIPolicy, PolicyRequest, Sampling
from assay.runs import check_policy
from tests.conftest import make_median_task
from tests.policies.server import VLLM_NO_TOOLS, ModelServer, Raw, Reply, Status

TOOLS = [{"type": "function", "function": {"name": "submit", "parameters": {"type": "object"}}}]
REFUSALS = [
    VLLM_NO_TOOLS,
    "tools param requires --jinja flag",
    "registry.ollama.ai/library/gemma:2b does not support tools",
    "Tools are not supported for this model",
]


def _policy(server: ModelServer, **options: Any) -> OpenAIPolicy:
    server.models = ["test-model"]
    policy = OpenAIPolicy("test-model", base_url=server.base_url, **{"retries": 2, **options})
    policy.backoff_s = 0.01
    return policy


@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_server_without_tool_calling_stops_a_tools_run_before_any_episode(
    model_server: ModelServer, refusal: str
) -> None:
    model_server.tools_refused = refusal
    with pytest.raises(PolicySpecError) as caught:
        check_policy(_policy(model_server), [make_median_task()], 1, mode="tools")
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(f"mode: the model endpoint at {model_server.base_url} does not take")
    assert refusal[:40] in line
    assert "--mode single" in line
    assert "--enable-auto-tool-choice" in line
    [probe] = model_server.probes
    assert probe["tools"]
    assert model_server.requests == []  # no episode was asked


def test_the_same_server_runs_single_turn_episodes(model_server: ModelServer) -> None:
    model_server.tools_refused = VLLM_NO_TOOLS
    check_policy(_policy(model_server), [make_median_task()], 1, mode="single")
    [probe] = model_server.probes
    assert "tools" not in probe
    assert [m["role"] for m in probe["messages"]] == ["system", "user"]


def test_tools_refused_inside_an_episode_are_the_servers_error_not_the_models_fail(
    model_server: ModelServer,
) -> None:
    model_server.tools_refused = VLLM_NO_TOOLS
    policy = _policy(model_server)
    request = PolicyRequest(
        messages=[Message(role="user", content="hello")], tools=TOOLS, task=make_median_task()
    )

    async def go() -> None:
        try:
            await policy.act(request)
        finally:
            await policy.aclose()

    with pytest.raises(PolicyError, match=r"does not take tool calls .*--mode single"):
        asyncio.run(go())
    assert len(model_server.requests) == 1  # a setting: asking again would not change it


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'",
    ],
)
def test_a_conversation_the_model_made_too_long_or_wrong_is_still_its_failure(
    model_server: ModelServer, message: str
) -> None:
    model_server.play(Status(400, message))
    policy = _policy(model_server)
    request = PolicyRequest(
        messages=[Message(role="user", content="hello")], tools=TOOLS, task=make_median_task()
    )

    async def go() -> str | None:
        try:
            return (await policy.act(request)).failure
        finally:
            await policy.aclose()

    assert asyncio.run(go()) == f"the endpoint refused the conversation (400): {message}"


def test_an_option_the_server_refuses_stops_the_run_before_any_episode(
    model_server: ModelServer,
) -> None:
    said = "Unsupported value: 'temperature' does not support 0.3 with this model."
    model_server.probe_answer = Status(400, said)
    policy = _policy(model_server, sampling=Sampling(temperature=0.3, seed=5))
    with pytest.raises(PolicySpecError) as caught:
        check_policy(policy, [make_median_task()], 1)
    line = str(caught.value)
    assert line.startswith(f"policy: the model endpoint at {model_server.base_url} refused")
    assert said in line
    assert "--temperature" in line
    [probe] = model_server.probes
    assert (probe["temperature"], probe["seed"], probe["model"]) == (0.3, 5, "test-model")


def test_a_route_refused_to_the_probe_is_an_infrastructure_error(
    model_server: ModelServer,
) -> None:
    model_server.probe_answer = Status(404, "no such route")
    with pytest.raises(PolicyError, match="answered 404: no such route"):
        check_policy(_policy(model_server), [make_median_task()], 1, mode="tools")


@pytest.mark.parametrize(
    "answer", [Status(503, "loading"), Status(429), Reply(content="late", delay_s=5.0)]
)
def test_what_the_run_would_retry_does_not_stop_it_at_the_probe(
    model_server: ModelServer, answer: Any
) -> None:
    model_server.probe_answer = answer
    check_policy(_policy(model_server, timeout_s=2.0), [make_median_task()], 1, mode="tools")
    assert len(model_server.probes) == 1


CHUNK = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "hi"}}]}
STREAM = Raw(f"data: {json.dumps(CHUNK)}\n\ndata: [DONE]\n\n".encode(), "text/event-stream")


def test_a_server_that_only_streams_stops_the_run_before_any_episode(
    model_server: ModelServer,
) -> None:
    model_server.probe_answer = STREAM
    with pytest.raises(PolicyError) as caught:
        check_policy(_policy(model_server), [make_median_task()], 1, mode="single")
    assert str(caught.value) == (
        f"the model endpoint at {model_server.base_url} sent an answer streamed as server-sent "
        "events although asked for one whole answer (stream false); use a server or gateway "
        "that answers whole"
    )
    model_server.play(STREAM)
    policy = _policy(model_server)
    request = PolicyRequest(
        messages=[Message(role="user", content="hello")], tools=[], task=make_median_task()
    )

    async def go() -> None:
        try:
            await policy.act(request)
        finally:
            await policy.aclose()

    with pytest.raises(PolicyError, match="streamed as server-sent events"):
        asyncio.run(go())
