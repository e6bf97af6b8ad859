"""``openai:MODEL``: a model behind any OpenAI-compatible chat-completions endpoint.

vLLM, SGLang, llama.cpp's server, Ollama and hosted APIs all speak it. Outcomes are split the way
scoring needs them: transport failures, 5xx, 408/409/429, timeouts and 200s that are no chat
completion (a gateway's page or error object) are retried with backoff and, once the retries are
spent, raised as :class:`PolicyError` (infrastructure: the episode is an ``error``, never scored).
What the model itself does (a refusal, a context too long for it, an empty answer) comes back as a
turn with ``failure`` set, and the episode ends as ``fail``: a policy must not be able to turn its
failures into errors and so raise its pass rate. A server's settings are not the model's doing
either: a refusal of tool calls at all (vLLM without ``--enable-auto-tool-choice``), an answer
streamed when asked whole, or a gateway's ``finish_reason: error`` is raised as
:class:`PolicyError`; :meth:`OpenAIPolicy.probe` meets the first two, and options the server
refuses, once before a run, so that it stops with one line rather than scoring 0%.

Sample ``i`` of a task is asked with the seed ``seed + i`` (:meth:`OpenAIPolicy.for_sample`), so
the k samples of one task differ even under a server that is deterministic for a given seed; the
trajectory records the seed actually sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import random
import re
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import aiohttp
import httpx2
import openai

from assay.errors import ModelUnreachableError, PolicyError, PolicySpecError
from assay.policies.base import PolicyIdentity, PolicyRequest, PolicyTurn, Sampling, TurnClock
from assay.policies.messages import MAX_ARGUMENT_CHARS, MAX_TOKEN_COUNT, Message, ToolCall, Usage

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRIED_STATUS = frozenset({408, 409, 429})
REFUSED_STATUS = frozenset({400, 413, 422})
"""Statuses that mean the conversation itself was refused (too long, malformed): the policy's."""
MAX_TEXT_CHARS = 200_000
MAX_RESPONSE_BYTES = 32 * 2**20
"""The largest answer read: a chat completion of any context a model has is far smaller, and
a server that sends without end is cut off here rather than when memory runs out."""
MAX_TOOL_CALLS = 64
"""The most tool calls one answer is taken with; those past it are counted, never run
(:attr:`PolicyTurn.dropped_tool_calls`), and the model is told so."""
PROBE_PROMPT = "Reply with the one word: ready."
"""The question of the request :meth:`OpenAIPolicy.probe` sends before a run."""
_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ready",
        "description": "Say that you are ready.",
        "parameters": {"type": "object", "properties": {}},
    },
}
STREAMED = (
    "an answer streamed as server-sent events although asked for one whole answer (stream "
    "false); use a server or gateway that answers whole"
)
TOOLS_FIX = (
    "run with --mode single, or restart the server with tool calling on (vLLM: "
    "--enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja)"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def endpoint_origin(url: str) -> tuple[str, str, int] | None:
    """Scheme, host and port of the http or https ``url`` (the port its scheme implies when
    none is written); None when it is no such URL, or holds anything but printable ASCII (a
    host name beyond ASCII is written in its ``xn--`` form)."""
    if not all(33 <= ord(char) < 127 for char in url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a bracket left open, a port out of range or not a number
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return scheme, parts.hostname, port if port is not None else (80 if scheme == "http" else 443)


class NotACompletionError(ValueError):
    """A 200 answer that is not a chat completion: a proxy's page, an error object, garbage, an
    answer past :data:`MAX_RESPONSE_BYTES`."""


class _Bounded(httpx2.AsyncByteStream):
    """A response's body, cut off with :class:`NotACompletionError` past ``limit`` bytes."""

    def __init__(self, stream: httpx2.AsyncByteStream, limit: int) -> None:
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._stream:
            read += len(chunk)
            if read > self._limit:
                raise NotACompletionError(f"an answer longer than {self._limit} bytes")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


async def _bound(response: httpx2.Response) -> None:
    """Bound the body of ``response`` before it is read (every answer: a chat completion, an
    error, the list of models). A compressed body is refused, since it was asked for without
    compression and its size as sent says nothing of its size once decoded."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        await response.aclose()
        raise NotACompletionError(
            f"an answer compressed ({_brief(encoding[:40])}) although asked for uncompressed"
        )
    if not isinstance(response.stream, httpx2.AsyncByteStream):
        return
    response.stream = _Bounded(response.stream, MAX_RESPONSE_BYTES)


class OpenAIPolicy:
    """Asks an OpenAI-compatible endpoint for each turn, at most ``concurrency`` at a time."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        sampling: Sampling | None = None,
        concurrency: int = 16,
        retries: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        timeout_s: float = 120.0,
    ) -> None:
        if not model:
            raise PolicySpecError("openai needs a model name", field="policy", fix="openai:MODEL")
        if concurrency < 1 or retries < 0 or timeout_s <= 0:
            raise PolicySpecError(
                "concurrency must be at least 1, retries at least 0, the timeout positive",
                field="policy",
            )
        self.model = model
        self.spec = f"openai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        if endpoint_origin(self.base_url) is None:
            raise PolicySpecError(
                f"{self.base_url[:200]!r} is not a URL a request can be sent to",
                field="--base-url" if base_url else "OPENAI_BASE_URL",
                fix="give an http:// or https:// URL such as http://127.0.0.1:8000/v1",
            )
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.sampling = sampling or Sampling()
        self.concurrency = concurrency
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.timeout_s = timeout_s
        self._served: str | None = None
        self._clients = _Clients(self.base_url, self._api_key, concurrency)

    def for_sample(self, sample: int) -> OpenAIPolicy:
        """This policy for sample index ``sample``: the seed, when one is set, is ``seed +
        sample``. It shares this policy's clients and its cap on requests at once."""
        if self.sampling.seed is None or sample == 0:
            return self
        policy = copy.copy(self)
        policy.sampling = self.sampling.model_copy(update={"seed": self.sampling.seed + sample})
        return policy

    def identity(self) -> PolicyIdentity:
        """The model asked for and, once it answered, the model the server named."""
        return PolicyIdentity(
            spec=self.spec,
            kind="openai",
            model=self.model,
            served_model=self._served,
            base_url=self.base_url,
            sampling=self.sampling,
        )

    async def act(self, request: PolicyRequest) -> PolicyTurn:
        """One chat completion, retried on infrastructure failures; see the module docstring.

        The body is sent as it is (the client's ``post``, as for any endpoint): the messages are
        already in the wire format, and the SDK's parameter transform, which walks every message
        of the conversation on every request, would only cost this process CPU. The answer comes
        back as the plain JSON it is (``cast_to=object``), read field by field as untrusted data:
        the SDK's response model, built for every answer, would be read for four fields.
        """
        started = time.monotonic()
        body = self._body(request.messages, request.tools)
        retries, waited = 0, 0.0
        while True:
            attempt, queued = time.monotonic(), [0.0]
            try:
                response = await self._post(body, queued, request.clock)
                break
            except openai.APIStatusError as exc:
                if request.tools and _refuses_tools(exc):  # the server's setting, not the model
                    raise PolicyError(f"{_tools_line(exc, self.base_url)} ({TOOLS_FIX})") from None
                if exc.status_code in REFUSED_STATUS:
                    return self._refused(exc, started, retries, waited + queued[0])
                if exc.status_code < 500 and exc.status_code not in RETRIED_STATUS:
                    raise PolicyError(_status_line(exc, self.base_url)) from None
                failure: Exception = exc
            except (openai.APIConnectionError, TimeoutError, aiohttp.ClientError) as exc:
                failure = exc  # aiohttp's own: a response that is not HTTP, which it cannot parse
            except (ValueError, RecursionError) as exc:  # a body that is not a chat completion
                failure = exc
            if retries >= self.retries:
                raise _exhausted(failure, self.base_url, retries) from None
            await asyncio.sleep(self._delay(retries, failure))
            waited += time.monotonic() - attempt  # the whole failed attempt and its backoff
            retries += 1
        return self._turn(response, started, retries, waited + queued[0])

    def _body(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The request for ``messages`` with the sampling options, and ``tools`` if any."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_wire(message) for message in messages],
            **self.sampling.model_dump(exclude_none=True),
        }
        if tools:
            body["tools"] = list(tools)
        return body

    async def _post(
        self, body: dict[str, Any], queued: list[float], clock: TurnClock
    ) -> dict[str, Any]:
        """One request, cut off ``timeout_s`` after it was sent whatever the server does (the
        client's own timeout bounds each read, which a server sending a byte at a time never
        passes); ``queued[0]`` is set to the seconds it waited for a free slot, during which
        ``clock`` is stopped (the turn limit counts from when the request is sent). Raises
        :class:`NotACompletionError` for a 200 that is not a chat completion: a body that is
        not JSON (whatever its content type, which the client reads it by), or JSON without a
        list of choices (a gateway's error object); it is retried as the server's failure,
        never taken for the model's."""
        asked = time.monotonic()
        async with contextlib.AsyncExitStack() as held:
            with clock.paused():
                client = await held.enter_async_context(self._clients.slot())
            queued[0] = time.monotonic() - asked
            async with asyncio.timeout(self.timeout_s):
                response = await client.post(
                    "/chat/completions",
                    cast_to=object,
                    body=body,
                    options={"timeout": self.timeout_s},
                )
        if not isinstance(_field(response, "choices"), list):
            if _streamed(response):
                raise NotACompletionError(STREAMED)
            error = _field(_field(response, "error"), "message")
            said = f": {_brief(error)}" if isinstance(error, str) else ""
            raise NotACompletionError(f"an answer without choices{said}")
        if _finish(response) == "error":  # a gateway's: its upstream failed mid-answer
            raise NotACompletionError("an answer that ended in error (finish_reason error)")
        return cast(dict[str, Any], response)

    async def check(self) -> list[str]:
        """The models the endpoint serves. Raises :class:`ModelUnreachableError` when nothing
        answers there, :class:`PolicySpecError` when it does not serve this policy's model."""
        wait = min(self.timeout_s, 30.0)
        try:
            async with asyncio.timeout(wait):
                page = await self._clients.client().get(
                    "/models", cast_to=object, options={"timeout": wait}
                )
        except (openai.APIConnectionError, TimeoutError, aiohttp.ClientError) as exc:
            raise _exhausted(exc, self.base_url, 0) from None
        except openai.APIStatusError as exc:
            raise PolicyError(_status_line(exc, self.base_url)) from None
        except (ValueError, RecursionError):
            page = None
        served = _model_ids(page)
        if served is None:
            raise PolicyError(
                f"the model endpoint at {self.base_url} answered the list of models with "
                "something that is not one (is --base-url the API's root, such as "
                "http://localhost:8000/v1?)"
            )
        if served and self.model not in served:
            raise PolicySpecError(
                f"{self.base_url} does not serve {self.model!r}",
                field="policy",
                fix=f"it serves: {', '.join(served[:10])}",
            )
        return served

    async def probe(self, *, tools: bool) -> None:
        """Send one short request shaped as an episode's first (a system and a user message,
        the sampling options, and a tool when ``tools``), so that a server that would refuse
        every episode says so before any starts, rather than each episode failing one by one.

        Raises :class:`PolicySpecError` when the server refuses it: with ``tools``, a refusal
        of tool calls (vLLM started without ``--enable-auto-tool-choice``); otherwise any 400,
        413 or 422, which a two-line conversation cannot earn (an option the model does not
        take, a ``--max-tokens`` past its context). Raises :class:`PolicyError` for any other
        status that is not retried (a route or key refused), and for an answer streamed as
        events (a server that cannot answer whole). What the run's own retries judge (a
        timeout, a 5xx, a 429, another body that is no completion) passes unremarked.
        """
        system = Message(role="system", content="You are a helpful assistant.")
        messages = (system, Message(role="user", content=PROBE_PROMPT))
        body = self._body(messages, [_PROBE_TOOL] if tools else [])
        wait = min(self.timeout_s, 60.0)
        try:
            async with asyncio.timeout(wait):
                answer = await self._clients.client().post(
                    "/chat/completions", cast_to=object, body=body, options={"timeout": wait}
                )
        except openai.APIStatusError as exc:
            if tools and _refuses_tools(exc):
                raise PolicySpecError(
                    _tools_line(exc, self.base_url), field="mode", fix=TOOLS_FIX
                ) from None
            if exc.status_code in REFUSED_STATUS:
                raise PolicySpecError(
                    f"the model endpoint at {self.base_url} refused a two-line request, so it "
                    f"would refuse every episode ({exc.status_code}: {_error_text(exc)})",
                    field="policy",
                    fix="check --temperature, --top-p, --max-tokens and --seed against what the "
                    "server accepts",
                ) from None
            if exc.status_code < 500 and exc.status_code not in RETRIED_STATUS:
                raise PolicyError(_status_line(exc, self.base_url)) from None
        except (openai.APIConnectionError, TimeoutError, aiohttp.ClientError):
            pass  # reachable a moment ago (check); the run's retries judge the rest
        except (ValueError, RecursionError):
            pass  # a 200 that is no completion: retried in the run, then an error there
        else:
            if _streamed(answer):  # a setting of the server, which no retry changes
                raise PolicyError(f"the model endpoint at {self.base_url} sent {STREAMED}")

    async def aclose(self) -> None:
        """Close the HTTP clients of the running event loop, if any were opened (those of the
        policies :meth:`for_sample` made too)."""
        await self._clients.aclose()

    def _delay(self, attempt: int, failure: Exception) -> float:
        """Exponential backoff with jitter; a 429's Retry-After is obeyed up to the cap."""
        delay: float = min(self.max_backoff_s, self.backoff_s * 2**attempt) * random.uniform(
            0.5, 1.0
        )
        if isinstance(failure, openai.APIStatusError):
            asked = failure.response.headers.get("retry-after", "")
            with contextlib.suppress(ValueError):
                delay = max(delay, min(self.max_backoff_s, float(asked)))
        return delay

    def _refused(
        self, exc: openai.APIStatusError, started: float, retries: int, waited: float
    ) -> PolicyTurn:
        return PolicyTurn(
            message=Message(role="assistant", content=None),
            latency_s=time.monotonic() - started,
            waited_s=waited,
            retries=retries,
            failure=f"the endpoint refused the conversation ({exc.status_code}): "
            f"{_error_text(exc)}",
        )

    def _turn(self, response: Any, started: float, retries: int, waited: float) -> PolicyTurn:
        """The assistant message of ``response``, read defensively: servers differ."""
        self._served = _text(_field(response, "model"), 200) or self._served
        usage = _field(response, "usage")
        tokens = Usage(
            input_tokens=max(0, _int(_field(usage, "prompt_tokens"))),
            output_tokens=max(0, _int(_field(usage, "completion_tokens"))),
        )
        message, failure = _message(response)
        return PolicyTurn(
            message=message,
            usage=tokens,
            served_model=self._served,
            latency_s=time.monotonic() - started,
            waited_s=waited,
            retries=retries,
            dropped_tool_calls=_dropped_calls(response),
            failure=failure,
        )


class _Clients:
    """The HTTP client of one event loop and the cap on requests at once, shared by a policy
    and its per-sample copies.

    The client sends through aiohttp (the ``openai`` package's own aiohttp transport): the
    default pool looks at every connection it holds, and asks each idle one's socket, on every
    request and every response, so its CPU a request grew with the requests in flight, and each
    of those system calls let the sandbox threads take the interpreter from the event loop.
    """

    def __init__(self, base_url: str, api_key: str, concurrency: int) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.concurrency = concurrency
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: openai.AsyncOpenAI | None = None
        self._slots = asyncio.Semaphore(concurrency)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[openai.AsyncOpenAI]:
        """A free slot and the client, for one request."""
        client = self.client()
        async with self._slots:
            yield client

    def client(self) -> openai.AsyncOpenAI:
        """The client of the running event loop (opened anew, with the slots, when the loop is
        not the one it was opened on)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._client is None:
            self._loop = loop
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self.api_key,
                max_retries=0,
                http_client=openai.DefaultAioHttpClient(
                    headers={"accept-encoding": "identity"},
                    event_hooks={"response": [_bound]},
                ),
            )
            self._slots = asyncio.Semaphore(self.concurrency)
        return self._client

    async def aclose(self) -> None:
        """Close the client, if one was opened."""
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.close()


def _field(value: object, name: str) -> Any:
    """``value[name]`` where ``value`` is a JSON object, else None: an answer's parts may be of
    any type."""
    return value.get(name) if isinstance(value, dict) else None


def _model_ids(page: object) -> list[str] | None:
    """The ids of a list of models, read as untrusted data; None when ``page`` is not one (a web
    page, an error object: the base URL is not an OpenAI-compatible API's)."""
    data = _field(page, "data")
    if not isinstance(data, list):
        return None
    return [_clean(model_id) for item in data if isinstance(model_id := _field(item, "id"), str)]


def _message(response: object) -> tuple[Message, str | None]:
    choices = _field(response, "choices")
    if not isinstance(choices, list) or not choices:
        return Message(role="assistant"), "the model gave no answer"
    raw = _field(choices[0], "message")
    content = _content(_field(raw, "content"))
    refusal = _text(_field(raw, "refusal"), 2000)
    calls_sent = _field(raw, "tool_calls")
    calls = tuple(
        _tool_call(call, index)
        for index, call in enumerate(
            calls_sent[:MAX_TOOL_CALLS] if isinstance(calls_sent, list) else []
        )
    )
    message = Message(role="assistant", content=content, tool_calls=calls)
    if refusal:
        return message, f"the model refused: {_brief(refusal)}"
    if not calls and not (content or "").strip():
        return message, _EMPTY.get(_finish(response) or "", "the model gave an empty answer")
    return message, None


def _dropped_calls(response: object) -> int:
    """How many tool calls the answer held past :data:`MAX_TOOL_CALLS`."""
    choices = _field(response, "choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    sent = _field(_field(first, "message"), "tool_calls")
    return max(0, len(sent) - MAX_TOOL_CALLS) if isinstance(sent, list) else 0


_EMPTY = {
    "length": "the model reached its token limit before any text or tool call (finish_reason "
    "length: a reasoning model may have spent it thinking; see --max-tokens)",
    "content_filter": "the provider's content filter withheld the answer (finish_reason "
    "content_filter)",
}
"""Why an answer with neither text nor tool calls is empty, by its finish reason."""


def _finish(response: object) -> str | None:
    """The first choice's finish reason, as sent."""
    choices = _field(response, "choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return _text(_field(first, "finish_reason"), 40)


def _content(value: object) -> str | None:
    """The answer's text: a string, or a list of parts (as some servers send it) whose text
    parts are joined; None for anything else."""
    if isinstance(value, list):
        texts = [
            text
            for part in value
            if _field(part, "type") == "text" and isinstance(text := _field(part, "text"), str)
        ]
        value = "".join(texts) if texts else None
    return _text(value, MAX_TEXT_CHARS)


def _tool_call(call: object, index: int) -> ToolCall:
    """A tool call as sent; malformed parts become text the tool will refuse, never a crash."""
    function = _field(call, "function")
    arguments = _field(function, "arguments")
    return ToolCall(
        id=_text(_field(call, "id"), 200) or f"call-{index}",
        name=_text(_field(function, "name"), 200) or "",
        arguments=_arguments_text(arguments),
    )


def _arguments_text(arguments: object) -> str:
    """Arguments as JSON text: servers that send an object get it encoded; anything else is
    kept as text the tool will refuse."""
    if isinstance(arguments, str):
        return _clean(arguments[: MAX_ARGUMENT_CHARS + 1])
    if isinstance(arguments, dict):
        try:
            return json.dumps(arguments)[: MAX_ARGUMENT_CHARS + 1]
        except (TypeError, ValueError, RecursionError):
            pass
    return _clean(repr(arguments)[:2000])


def _wire(message: Message) -> dict[str, Any]:
    """``message`` as sent, but for the arguments of its tool calls that are no JSON object,
    sent as ``{}``: servers render the conversation's calls through the model's chat template,
    which needs objects, and some (vLLM's older releases) refuse the whole request for one
    that is not, so that one malformed call would end the episode at the next turn as the model's
    failure instead of the observation saying what was wrong. The trajectory keeps them as
    they came."""
    data = message.to_openai()
    for call in data.get("tool_calls", ()):
        function = call["function"]
        if not _is_object(function["arguments"]):
            function["arguments"] = "{}"
    return data


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _exhausted(failure: Exception, base_url: str, retries: int) -> PolicyError:
    tries = f"after {retries + 1} attempts" if retries else "on the first attempt"
    if _caused_by(failure, aiohttp.ClientConnectorError) or (
        isinstance(failure, openai.APIConnectionError)
        and not isinstance(failure, openai.APITimeoutError)
        and _unread(failure, base_url, tries) is None
    ):
        return ModelUnreachableError(
            f"cannot reach the model endpoint at {base_url} {tries} "
            "(start the server, or set --base-url / OPENAI_BASE_URL)"
        )
    if _caused_by(failure, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
        return PolicyError(
            f"the model endpoint at {base_url} closed the connection without an answer {tries}"
        )
    unread = _unread(failure, base_url, tries)
    if unread is not None:
        return unread
    if isinstance(failure, (openai.APITimeoutError, TimeoutError)):
        return PolicyError(f"the model endpoint at {base_url} timed out {tries}")
    if isinstance(failure, openai.APIStatusError):
        return PolicyError(f"{_status_line(failure, base_url)} {tries}")
    said = f" ({failure})" if isinstance(failure, NotACompletionError) else ""
    return PolicyError(
        f"the model endpoint at {base_url} sent an answer that is not a chat completion "
        f"{tries}{said}"
    )


def _unread(failure: Exception, base_url: str, tries: str) -> PolicyError | None:
    """The error for a response that came but could not be read as HTTP (cut off before its
    length, not HTTP at all, redirected without end), or None for any other failure: the
    endpoint was reached, so it is never "cannot reach"."""
    if _caused_by(failure, aiohttp.ClientPayloadError):
        return PolicyError(f"the model endpoint at {base_url} broke off its answer {tries}")
    if isinstance(failure, aiohttp.ClientResponseError):
        return PolicyError(
            f"the model endpoint at {base_url} sent a response that is not HTTP {tries} "
            f"({_brief(failure.message)})"
        )
    if _caused_by(failure, httpx2.TooManyRedirects):
        return PolicyError(f"the model endpoint at {base_url} redirected without end {tries}")
    return None


def _caused_by(failure: BaseException, *kinds: type[BaseException]) -> bool:
    """Whether ``failure`` or an exception that caused it is one of ``kinds``. The aiohttp
    transport reports a refused connection, a name that does not resolve and a connection the
    server closed all as connect timeouts; the cause says which it was."""
    seen: BaseException | None = failure
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, kinds):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _streamed(answer: object) -> bool:
    """Whether ``answer`` is a stream of server-sent events (what the client gives back, as
    text, for an ``text/event-stream`` answer)."""
    return isinstance(answer, str) and answer.lstrip().startswith(("data:", "event:"))


def _refuses_tools(exc: openai.APIStatusError) -> bool:
    """Whether the server's error says it takes no tools at all: vLLM's '"auto" tool choice
    requires --enable-auto-tool-choice and --tool-call-parser to be set', llama.cpp's 'tools
    param requires --jinja flag', Ollama's 'MODEL does not support tools', 'tools are not
    supported'. A conversation a model made wrong (a tool message left unanswered, a context
    too long) names no such setting."""
    text = _error_text(exc).lower()
    return "tool" in text and any(
        word in text for word in ("support", "requires", "enable", "--jinja", "parser")
    )


def _tools_line(exc: openai.APIStatusError, base_url: str) -> str:
    return (
        f"the model endpoint at {base_url} does not take tool calls (it answered "
        f"{exc.status_code}: {_error_text(exc)})"
    )


def _status_line(exc: openai.APIError, base_url: str) -> str:
    status = getattr(exc, "status_code", "?")
    return f"the model endpoint at {base_url} answered {status}: {_error_text(exc)}"


def _error_text(exc: openai.APIError) -> str:
    """The server's own error message, without the client's "Error code: N - " wrapping."""
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return _brief(body["message"])
    return _brief(exc.message)


def _brief(text: str) -> str:
    line = " ".join(_clean(str(text)).split())
    return line if len(line) <= 300 else f"{line[:300]}..."


def _text(value: object, limit: int) -> str | None:
    return _clean(value[:limit]) if isinstance(value, str) else None


def _clean(text: str) -> str:
    """``text`` with each lone surrogate (a ``\\ud800`` escape in the JSON, not a character)
    replaced by U+FFFD: no trajectory, database or file can hold one as it is."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _int(value: object) -> int:
    """A token count as sent; 0 for anything that is not one (a string, a bool, a number no
    database column holds)."""
    if isinstance(value, int) and not isinstance(value, bool) and value <= MAX_TOKEN_COUNT:
        return value
    return 0
