"""openai:MODEL against a real HTTP server on loopback: answers, retries and how failures count."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from assay.errors import ModelUnreachableError, PolicyError, PolicySpecError
from assay.policies import Message, OpenAIPolicy, PolicyRequest, PolicyTurn, Sampling
from assay.policies.messages import MAX_ARGUMENT_CHARS
from assay.policies.openai_chat import MAX_TOOL_CALLS
from tests.conftest import make_median_task
from tests.policies.server import Drop, ModelServer, Raw, Reply, Status, call, serve

T = TypeVar("T")
TOOLS = [{"type": "function", "function": {"name": "submit", "parameters": {"type": "object"}}}]


def _policy(server: ModelServer, **options: Any) -> OpenAIPolicy:
    options = {"retries": 3, "timeout_s": 5.0, **options}
    policy = OpenAIPolicy("test-model", base_url=server.base_url, **options)
    policy.backoff_s = 0.01
    return policy


def _run(policy: OpenAIPolicy, work: Coroutine[Any, Any, T]) -> T:
    async def go() -> T:
        try:
            return await work
        finally:
            await policy.aclose()

    return asyncio.run(go())


def _ask(policy: OpenAIPolicy, tools: list[dict[str, Any]] | None = None) -> PolicyTurn:
    request = PolicyRequest(
        messages=[Message(role="user", content="hello")],
        tools=TOOLS if tools is None else tools,
        task=make_median_task(),
    )
    return _run(policy, policy.act(request))


def test_answer_with_tool_calls_usage_and_served_model(model_server: ModelServer) -> None:
    model_server.play(
        Reply(content="writing", tool_calls=(call("write_file", path="a.py", content="x"),))
    )
    sampling = Sampling(temperature=0.3, top_p=0.9, max_tokens=64, seed=7)
    policy = _policy(model_server, sampling=sampling)
    turn = _ask(policy)
    assert turn.failure is None
    assert turn.message.content == "writing"
    assert [(c.name, json.loads(c.arguments)) for c in turn.message.tool_calls] == [
        ("write_file", {"path": "a.py", "content": "x"})
    ]
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (100, 20)
    assert turn.served_model == "served-model-v1"
    sent = model_server.requests[0]
    assert (sent["model"], sent["temperature"], sent["top_p"], sent["seed"]) == (
        "test-model",
        0.3,
        0.9,
        7,
    )
    assert sent["max_tokens"] == 64
    assert sent["tools"] == TOOLS
    identity = policy.identity()
    assert identity.served_model == "served-model-v1"
    assert identity.sampling.seed == 7
    assert identity.base_url == model_server.base_url


def test_single_turn_requests_send_no_tools(model_server: ModelServer) -> None:
    model_server.play(Reply(content="```python\nx = 1\n```"))
    _ask(_policy(model_server), tools=[])
    assert "tools" not in model_server.requests[0]


@pytest.mark.parametrize(
    "failure",
    [
        Status(500),
        Status(503),
        Status(429, "slow down", (("retry-after", "0"),)),
        Reply(content="late", delay_s=2.0),
    ],
)
def test_infrastructure_failures_are_retried(model_server: ModelServer, failure: Any) -> None:
    model_server.play(failure, failure, Reply(content="fine"))
    turn = _ask(_policy(model_server, timeout_s=0.5))
    assert turn.message.content == "fine"
    assert turn.retries == 2
    assert len(model_server.requests) == 3


def test_persistent_500_is_an_infrastructure_error(model_server: ModelServer) -> None:
    model_server.play(Status(500, "engine crashed"))
    with pytest.raises(PolicyError, match=r"answered 500: engine crashed after 4 attempts"):
        _ask(_policy(model_server))
    assert len(model_server.requests) == 4


def test_a_server_that_hangs_is_an_infrastructure_error(model_server: ModelServer) -> None:
    model_server.play(Reply(content="too late", delay_s=1.0))
    with pytest.raises(PolicyError, match=r"timed out after 2 attempts"):
        _ask(_policy(model_server, timeout_s=0.2, retries=1))


def test_a_server_that_closes_the_connection_is_retried_then_an_error(
    model_server: ModelServer,
) -> None:
    model_server.play(Drop(), Drop(), Reply(content="fine"))
    turn = _ask(_policy(model_server))
    assert turn.message.content == "fine"
    assert turn.retries == 2
    model_server.play(Drop())
    with pytest.raises(PolicyError) as caught:
        _ask(_policy(model_server, retries=1))
    assert not isinstance(caught.value, ModelUnreachableError)  # it answered the connection
    assert str(caught.value).endswith("closed the connection without an answer after 2 attempts")


def test_an_unreachable_endpoint_says_so_in_one_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    policy = OpenAIPolicy("m", base_url=f"http://127.0.0.1:{port}/v1", retries=1)
    policy.backoff_s = 0.01
    with pytest.raises(ModelUnreachableError) as caught:
        _ask(policy)
    message = str(caught.value)
    assert message == (
        f"cannot reach the model endpoint at http://127.0.0.1:{port}/v1 after 2 attempts "
        "(start the server, or set --base-url / OPENAI_BASE_URL)"
    )
    with pytest.raises(ModelUnreachableError):
        _run(policy, policy.check())


@pytest.mark.parametrize("code", [400, 413, 422])
def test_a_refused_conversation_is_the_policys_failure(
    model_server: ModelServer, code: int
) -> None:
    model_server.play(Status(code, "maximum context length is 4096 tokens"))
    turn = _ask(_policy(model_server))
    assert turn.failure == (
        f"the endpoint refused the conversation ({code}): maximum context length is 4096 tokens"
    )
    assert len(model_server.requests) == 1


@pytest.mark.parametrize("code", [401, 404])
def test_a_misconfigured_endpoint_is_not_retried_and_not_a_fail(
    model_server: ModelServer, code: int
) -> None:
    model_server.play(Status(code, "no such key"))
    with pytest.raises(PolicyError, match=f"answered {code}: no such key"):
        _ask(_policy(model_server))
    assert len(model_server.requests) == 1


@pytest.mark.parametrize(
    ("reply", "failure"),
    [
        (Reply(content=None), "the model gave an empty answer"),
        (Reply(content="  \n"), "the model gave an empty answer"),
        (Reply(content=None, refusal="I can't help"), "the model refused: I can't help"),
        (Raw(b'{"id": "x", "object": "chat.completion", "choices": [], "model": "m"}'), None),
        (Raw(b'{"choices": [{"message": "hi"}]}'), "the model gave an empty answer"),
        (
            Raw(b'{"choices": [{"message": {"content": 7, "tool_calls": {"a": 1}}}]}'),
            "the model gave an empty answer",
        ),
    ],
)
def test_what_the_model_does_wrong_is_a_failure_of_the_turn(
    model_server: ModelServer, reply: Any, failure: str | None
) -> None:
    model_server.play(reply)
    turn = _ask(_policy(model_server))
    assert turn.failure == (failure or "the model gave no answer")


def test_parts_of_an_answer_of_the_wrong_type_are_left_out(model_server: ModelServer) -> None:
    body = {
        "model": ["not", "a", "name"],
        "usage": {"prompt_tokens": "12", "completion_tokens": True},
        "choices": [
            {
                "message": {
                    "content": "ok",
                    "refusal": 3,
                    "tool_calls": [{"id": 5, "function": "write_file"}, "call", None],
                }
            }
        ],
    }
    model_server.play(Raw(json.dumps(body).encode()))
    turn = _ask(_policy(model_server))
    assert turn.failure is None
    assert turn.message.content == "ok"
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (0, 0)
    assert [(call.id, call.name) for call in turn.message.tool_calls] == [
        ("call-0", ""),
        ("call-1", ""),
        ("call-2", ""),
    ]


def test_malformed_tool_call_arguments_come_back_verbatim(model_server: ModelServer) -> None:
    model_server.play(Reply(tool_calls=(("write_file", '{"path": "a.py", "content": '),)))
    turn = _ask(_policy(model_server))
    assert turn.failure is None
    assert turn.message.tool_calls[0].arguments == '{"path": "a.py", "content": '


def test_the_concurrency_limit_holds(model_server: ModelServer) -> None:
    model_server.play(Reply(content="ok", delay_s=0.2))
    policy = _policy(model_server, concurrency=2)
    request = PolicyRequest(
        messages=[Message(role="user", content="hi")], tools=[], task=make_median_task()
    )

    async def many() -> float:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.gather(*(policy.act(request) for _ in range(6)))
        return loop.time() - started

    elapsed = _run(policy, many())
    assert elapsed >= 0.55  # six answers of 0.2 s, two at a time: three rounds


def test_check_lists_served_models_and_refuses_an_unserved_one(model_server: ModelServer) -> None:
    policy = _policy(model_server)
    model_server.models = ["test-model", "other"]
    assert _run(policy, policy.check()) == ["test-model", "other"]
    model_server.models = ["other"]
    with pytest.raises(PolicySpecError, match="does not serve 'test-model'"):
        _run(policy, policy.check())


def test_the_key_and_base_url_come_from_the_environment(
    model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", model_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    policy = OpenAIPolicy("test-model")
    assert policy.base_url == model_server.base_url
    model_server.play(Reply(content="hi"))
    assert _ask(policy).message.content == "hi"


def test_an_answer_that_is_not_json_is_retried_then_an_error(model_server: ModelServer) -> None:
    model_server.play(Raw(b"<html>bad gateway</html>"), Reply(content="fine"))
    assert _ask(_policy(model_server)).message.content == "fine"
    model_server.play(Raw(b"<html>bad gateway</html>"))
    with pytest.raises(PolicyError, match="sent an answer that is not a chat completion after 2"):
        _ask(_policy(model_server, retries=1))


def test_tool_arguments_sent_as_an_object_are_encoded(model_server: ModelServer) -> None:
    body = {
        "id": "x",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "a",
                            "type": "function",
                            "function": {"name": "run", "arguments": {"command": "ls"}},
                        },
                        {"id": "b", "type": "function", "function": {"name": 3, "arguments": 4}},
                    ],
                },
            }
        ],
    }
    model_server.play(Raw(json.dumps(body).encode()))
    first, second = _ask(_policy(model_server)).message.tool_calls
    assert (first.id, first.name, json.loads(first.arguments)) == ("a", "run", {"command": "ls"})
    assert (second.name, second.arguments) == ("", "4")


def test_sample_i_is_asked_with_seed_plus_i_and_records_it(model_server: ModelServer) -> None:
    model_server.play(Reply(content="ok"))
    policy = _policy(model_server, sampling=Sampling(temperature=0.7, seed=40))
    samples = [policy.for_sample(sample) for sample in range(3)]
    request = PolicyRequest(
        messages=[Message(role="user", content="hi")], tools=[], task=make_median_task()
    )

    async def each() -> None:
        for sample in samples:
            await sample.act(request)

    _run(policy, each())
    assert [sent["seed"] for sent in model_server.requests] == [40, 41, 42]
    assert {sent["temperature"] for sent in model_server.requests} == {0.7}
    assert [sample.identity().sampling.seed for sample in samples] == [40, 41, 42]
    assert policy.identity().sampling.seed == 40


def test_without_a_seed_every_sample_sends_none(model_server: ModelServer) -> None:
    model_server.play(Reply(content="ok"))
    policy = _policy(model_server)
    later = policy.for_sample(5)
    _ask(later)
    assert "seed" not in model_server.requests[0]
    assert later.identity().sampling.seed is None


class Crowded(ModelServer):
    """Answers after ``hold_s`` and counts the requests it holds at once."""

    hold_s = 0.5
    held = 0
    most = 0

    def next_action(self, body: dict[str, Any]) -> Reply | Status | Raw:
        with self._lock:
            self.held += 1
            self.most = max(self.most, self.held)
        time.sleep(self.hold_s)
        with self._lock:
            self.held -= 1
        return Reply(content="ok")


@pytest.fixture
def crowded() -> Iterator[Crowded]:
    yield from serve(Crowded)


def test_the_cap_holds_across_samples(crowded: Crowded) -> None:
    policy = _policy(crowded, concurrency=40)
    request = PolicyRequest(
        messages=[Message(role="user", content="hi")], tools=[], task=make_median_task()
    )
    samples = [policy.for_sample(sample) for sample in range(3)]

    async def sixty() -> list[PolicyTurn]:
        return await asyncio.gather(*(samples[i % 3].act(request) for i in range(60)))

    turns = _run(policy, sixty())
    assert [turn.message.content for turn in turns] == ["ok"] * 60
    assert crowded.most == 40  # every slot used, never more than the cap


@pytest.mark.parametrize("size", [300_000, MAX_ARGUMENT_CHARS + 50])
def test_long_arguments_are_not_cut_into_json_that_does_not_parse(
    model_server: ModelServer, size: int
) -> None:
    """Arguments the episode takes (up to its limit) arrive whole; longer ones keep enough to
    be told too long, never cut into text the episode would call malformed JSON."""
    arguments = json.dumps({"path": "big.py", "content": "x" * size})
    model_server.play(Reply(tool_calls=(("write_file", arguments),)))
    [sent] = _ask(_policy(model_server)).message.tool_calls
    if len(arguments) <= MAX_ARGUMENT_CHARS:
        assert sent.arguments == arguments
    else:
        assert len(sent.arguments) == MAX_ARGUMENT_CHARS + 1


def test_calls_past_the_most_a_turn_takes_are_counted(model_server: ModelServer) -> None:
    model_server.play(Reply(tool_calls=(call("run", command="true"),) * 70))
    turn = _ask(_policy(model_server))
    assert len(turn.message.tool_calls) == MAX_TOOL_CALLS == 64
    assert turn.dropped_tool_calls == 6
    assert turn.failure is None
