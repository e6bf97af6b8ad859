"""openai:MODEL against a server that sends what no well-behaved one would: the answer comes
back as text that can be kept, an infrastructure error, or a failure of the model, never a crash
or a wait without end."""

from __future__ import annotations

import asyncio
import gzip
import json
import time
from typing import Any

import pytest

from assay.errors import ModelUnreachableError, PolicyError, PolicySpecError
from assay.policies import Message, OpenAIPolicy, PolicyRequest, PolicyTurn
from assay.policies.openai_chat import MAX_RESPONSE_BYTES
from tests.conftest import make_median_task
from tests.policies.server import ModelServer, Raw, Reply, Trickle, Wire


def _policy(server: ModelServer, **options: Any) -> OpenAIPolicy:
    policy = OpenAIPolicy("test-model", base_url=server.base_url, **{"retries": 1, **options})
    policy.backoff_s = 0.01
    return policy


def _ask(policy: OpenAIPolicy) -> PolicyTurn:
    request = PolicyRequest(
        messages=[Message(role="user", content="hello")], tools=[], task=make_median_task()
    )

    async def go() -> PolicyTurn:
        try:
            return await policy.act(request)
        finally:
            await policy.aclose()

    return asyncio.run(go())


def _check(policy: OpenAIPolicy) -> list[str]:
    async def go() -> list[str]:
        try:
            return await policy.check()
        finally:
            await policy.aclose()

    return asyncio.run(go())


def _completion(message: dict[str, Any], **fields: Any) -> bytes:
    body = {"model": "m", "choices": [{"index": 0, "message": message}], **fields}
    return json.dumps(body).encode()  # ensure_ascii: lone surrogates travel as \ud800 escapes


def test_lone_surrogates_anywhere_in_an_answer_become_text_a_trajectory_can_hold(
    model_server: ModelServer,
) -> None:
    message = {
        "role": "assistant",
        "content": "a\ud800b",
        "tool_calls": [
            {
                "id": "call\udc00",
                "type": "function",
                "function": {"name": "write_file\ud800", "arguments": "\udfff"},
            }
        ],
    }
    model_server.play(Raw(_completion(message, model="served\ud800")))
    turn = _ask(_policy(model_server))
    [tool_call] = turn.message.tool_calls
    assert turn.message.content == "a\ufffdb"
    assert (tool_call.id, tool_call.name, tool_call.arguments) == (
        "call\ufffd",
        "write_file\ufffd",
        "\ufffd",
    )
    assert turn.served_model == "served\ufffd"
    turn.model_dump_json()  # what the store writes; raised on a lone surrogate


def test_an_answer_nested_too_deep_to_parse_is_retried_then_an_error(
    model_server: ModelServer,
) -> None:
    model_server.play(Raw(b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"))
    with pytest.raises(PolicyError, match="not a chat completion after 2 attempts"):
        _ask(_policy(model_server))
    assert len(model_server.requests) == 2


def test_token_counts_no_database_can_hold_are_taken_as_not_given(
    model_server: ModelServer,
) -> None:
    usage = {"prompt_tokens": 10**30, "completion_tokens": 2**63}
    model_server.play(Raw(_completion({"content": "hi"}, usage=usage)))
    turn = _ask(_policy(model_server))
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (0, 0)


def test_a_server_that_trickles_its_answer_is_cut_off_at_the_timeout(
    model_server: ModelServer,
) -> None:
    model_server.play(Trickle(Reply(content="too slow"), pause_s=0.05))  # some 15 s in all
    started = time.monotonic()
    with pytest.raises(PolicyError, match="timed out after 2 attempts"):
        _ask(_policy(model_server, timeout_s=0.5))
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    "answer",
    [
        Raw(b"<html><body>502 Bad Gateway</body></html>", content_type="text/html"),
        Raw(b"data: {garbage\n\ndata: [DONE]\n\n", content_type="text/event-stream"),
        Raw(b'{"error": {"code": 502, "message": "upstream provider failed"}}'),
        Raw(b"null"),
        Raw(b"[1, 2]"),
        Raw(b'"a chat completion"'),
        Raw(b'{"choices": {"0": {"message": {"content": "hi"}}}}'),
    ],
)
def test_a_200_that_is_not_a_chat_completion_is_retried_then_an_error_never_a_fail(
    model_server: ModelServer, answer: Raw
) -> None:
    model_server.play(answer, Reply(content="fine"))
    assert _ask(_policy(model_server)).message.content == "fine"
    model_server.play(answer)
    with pytest.raises(PolicyError, match="not a chat completion after 2 attempts"):
        _ask(_policy(model_server))


def test_an_answer_larger_than_any_completion_is_cut_off_then_an_error(
    model_server: ModelServer,
) -> None:
    flood = Raw(_completion({"content": "a" * (MAX_RESPONSE_BYTES + 1)}))
    model_server.play(flood, Reply(content="fine"))
    assert _ask(_policy(model_server)).message.content == "fine"
    model_server.play(flood)
    with pytest.raises(PolicyError, match=f"longer than {MAX_RESPONSE_BYTES} bytes"):
        _ask(_policy(model_server))
    assert len(model_server.requests) == 2


def test_answers_are_asked_uncompressed_and_a_compressed_one_is_not_decoded(
    model_server: ModelServer,
) -> None:
    bomb = gzip.compress(_completion({"content": "a" * 10_000_000}))  # 10 MB, sent as 10 kB
    model_server.play(Raw(bomb, headers=(("content-encoding", "gzip"),)))
    with pytest.raises(PolicyError, match=r"compressed \(gzip\) although asked for uncompressed"):
        _ask(_policy(model_server))
    assert [headers["accept-encoding"] for headers in model_server.headers] == ["identity"] * 2


def test_an_answer_sent_as_a_list_of_parts_is_its_text(model_server: ModelServer) -> None:
    parts = [
        {"type": "text", "text": "the answer: "},
        {"type": "image_url", "image_url": {"url": "data:,"}},
        {"type": "text", "text": "42"},
        {"type": "text", "text": 7},
        "stray",
    ]
    model_server.play(Raw(_completion({"content": parts})))
    turn = _ask(_policy(model_server))
    assert (turn.message.content, turn.failure) == ("the answer: 42", None)


BODY = b'{"model": "m", "choices": [{"message": {"content": "hi"}}]}'


@pytest.mark.parametrize(
    ("wire", "said"),
    [
        (b"hello there\r\n\r\n", "sent a response that is not HTTP"),
        (BODY, "sent a response that is not HTTP"),  # the body without a status line
        (b"HTTP/1.1 abc OK\r\ncontent-length: 0\r\n\r\n", "sent a response that is not HTTP"),
        (
            b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 5\r\n\r\n" + BODY,
            "sent a response that is not HTTP",
        ),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "sent a response that is not HTTP"),
        (
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
            "sent a response that is not HTTP",
        ),
        (b"HTTP/1.1 200 OK\r\ncontent-length: 999\r\n\r\n" + BODY, "broke off its answer"),
    ],
)
def test_a_response_http_cannot_read_is_retried_then_an_error_never_a_crash(
    model_server: ModelServer, wire: bytes, said: str
) -> None:
    model_server.play(Wire(wire), Reply(content="fine"))
    assert _ask(_policy(model_server)).message.content == "fine"
    model_server.play(Wire(wire))
    with pytest.raises(PolicyError, match=f"{said} after 2 attempts") as err:
        _ask(_policy(model_server))
    assert not isinstance(err.value, ModelUnreachableError)  # it answered; it can be reached
    model_server.models_answer = Wire(wire)
    with pytest.raises(PolicyError, match=said):
        _check(_policy(model_server))


def test_the_error_a_200_carries_is_named(model_server: ModelServer) -> None:
    model_server.play(Raw(b'{"error": {"code": 502, "message": "upstream provider failed"}}'))
    with pytest.raises(PolicyError, match="upstream provider failed"):
        _ask(_policy(model_server, retries=0))


@pytest.mark.parametrize(
    "answer",
    [
        Raw(b"<html><body>Open WebUI</body></html>", content_type="text/html"),
        Raw(b'{"object": "list", "data": "test-model"}'),
        Raw(b'{"error": "not found"}'),
        Raw(b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ],
)
def test_a_list_of_models_that_is_not_one_is_one_line_before_any_episode(
    model_server: ModelServer, answer: Raw
) -> None:
    model_server.models_answer = answer
    policy = _policy(model_server)
    with pytest.raises(PolicyError, match="answered the list of models with something that is not"):
        _check(policy)


def test_models_of_the_wrong_shape_in_the_list_are_left_out(model_server: ModelServer) -> None:
    body = b'{"data": [{"id": 5}, "x", null, {"id": "other\\ud800"}, {"id": "test-model"}]}'
    model_server.models_answer = Raw(body)
    assert _check(_policy(model_server)) == ["other\ufffd", "test-model"]
    model_server.models_answer = Raw(body.replace(b"test-model", b"more"))
    with pytest.raises(PolicySpecError, match="does not serve 'test-model'"):
        _check(_policy(model_server))


def test_an_answer_a_gateway_ended_in_error_is_retried_then_an_error_never_a_fail(
    model_server: ModelServer,
) -> None:
    broken = Raw(
        json.dumps(
            {"model": "m", "choices": [{"message": {"content": ""}, "finish_reason": "error"}]}
        ).encode()
    )
    model_server.play(broken, Reply(content="fine"))
    assert _ask(_policy(model_server)).message.content == "fine"
    model_server.play(broken)
    with pytest.raises(
        PolicyError,
        match=r"after 2 attempts \(an answer that ended in error \(finish_reason error\)\)",
    ):
        _ask(_policy(model_server))


@pytest.mark.parametrize(
    ("finish", "said"),
    [
        ("length", "the model reached its token limit before any text or tool call"),
        ("content_filter", "the provider's content filter withheld the answer"),
        ("stop", "the model gave an empty answer"),
    ],
)
def test_an_empty_answer_says_why_it_is_empty(
    model_server: ModelServer, finish: str, said: str
) -> None:
    body = {
        "model": "m",
        "choices": [
            {
                "message": {"content": None, "reasoning_content": "Let me think. " * 50},
                "finish_reason": finish,
            }
        ],
    }
    model_server.play(Raw(json.dumps(body).encode()))
    turn = _ask(_policy(model_server))
    assert turn.failure is not None
    assert turn.failure.startswith(said)
    assert turn.message.content is None  # the reasoning is not taken for the answer
