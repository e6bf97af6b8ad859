"""The warm parent of the emulators: run as ``python -m assay.families.workflow._emulator_process``.

It imports moto's server and answers one request of each supported service once, so that
everything an emulator needs is loaded; then it reads commands, one JSON object a line, on
standard input and answers each with one line on standard output:

- ``{"op": "start", "socket": PATH, "token": T}``: fork an emulator that serves the AWS API on
  the Unix socket ``PATH`` (made connectable by any uid: the directory holding it is the
  access control) and answer ``{"pid": N, "start_s": S}`` once it accepts connections; it
  counts the requests it serves and tells the count to whoever presents ``T`` at
  :data:`COUNT_PATH`, when each of its resources was made at :data:`BIRTHS_PATH`, and what a
  queue holds at :data:`MESSAGES_PATH`;
- ``{"op": "stop", "pid": N}``: kill that emulator and reap it, answer ``{"stopped": N}``.

An emulator is a process of its own because moto's backends are global to a process: two
emulators never share state. It serves only the services of :data:`SERVICES`, signed the way
the SDK signs, and the regional ones in :data:`REGION` only; moto's own control endpoints
(``/moto-api``, which can reset or dump every backend), anything unsigned and anything sent
to another account (:data:`ACCOUNT_HEADER`) get a 403; a
queue attribute that the real SQS does not let a request set is refused (see
:data:`SQS_SETTABLE`), and so is a standard queue named ``*.fifo`` or a queue's ``FifoQueue``
changed after its creation (see :func:`fifo_by_name_only`), and so is a batch of log events
past :data:`MAX_LOG_BATCH_BYTES`. It writes no file (what it holds
is in its memory, under :data:`MEMORY_LIMIT_BYTES`; see :data:`KEY_BUFFER_VARIABLE`). It dies
with its parent, and the parent dies when its standard input closes.
"""

from __future__ import annotations

import ctypes
import hmac
import json
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

COUNT_PATH = "/_assay/requests"
"""Where the trusted side asks how many requests an emulator served."""
BIRTHS_PATH = "/_assay/births"
"""Where the trusted side asks when each bucket, queue, table and log group was made, to the
microsecond (a JSON object of ``bucket:NAME``... to the time): the APIs tell it to the second (a
bucket) or the millisecond, so one deleted and made again within that time would look like the
one that was there."""
MESSAGES_PATH = "/_assay/messages"
"""Where the trusted side reads the messages of a queue (``?account=ID&queue=NAME``) without
receiving them, as a JSON object ``{"messages": [{"body", "attributes", "state"}...]}`` in the
order they were sent (``state``: ``visible``, ``in_flight`` or ``delayed``), or
``{"too_large": REASON}``. Receiving is no way to read a queue: a FIFO queue gives no more of a
group while some of it is in flight (ten messages at most), and a queue with a redrive policy
moves a message received often enough to its dead-letter queue, the reading itself changing
what is read."""
MAX_QUEUE_MESSAGES = 5_000
MAX_QUEUE_BYTES = 64 * 2**20
"""The most messages, and bytes of JSON, :data:`MESSAGES_PATH` answers of one queue."""
SERVICES = frozenset({"s3", "sqs", "dynamodb", "logs"})
"""The services an emulator answers; requests signed for any other are refused."""
ACCOUNT_HEADER = "HTTP_X_MOTO_ACCOUNT_ID"
"""moto's header that names the account a request acts in (as the WSGI environment names it):
what a request made in another account would be out of the verdict's sight, so a request
carrying it is refused."""
REGION = "us-east-1"
"""The region of an emulator's regional services, the one the verdict reads."""
REGIONAL = frozenset({"sqs", "dynamodb", "logs"})
"""Services that keep each region apart: a request for another region is refused, since what
it made there would be out of the verdict's sight (S3's buckets are listed in every region)."""
MEMORY_LIMIT_BYTES = 2 * 2**30
"""Address space an emulator may use; past it, requests fail inside moto, not on the host."""
CPU_LIMIT_S = 300
"""CPU seconds an emulator may use in its life: agent code cannot make it work without end."""
KEY_BUFFER_VARIABLE = "MOTO_S3_DEFAULT_KEY_BUFFER_SIZE"
"""moto's setting of the size past which an object's body moves from memory to a temporary file
(5 MiB by default). An emulator sets it to :data:`MEMORY_LIMIT_BYTES`: what agent code stores
stays in memory, where the emulator's limit bounds it, and never fills the host's disk (a
script putting 50 MiB objects wrote a gigabyte to /tmp every ten seconds)."""
SQS_SETTABLE = frozenset(
    {
        "ContentBasedDeduplication",
        "DeduplicationScope",
        "DelaySeconds",
        "FifoQueue",
        "FifoThroughputLimit",
        "KmsDataKeyReusePeriodSeconds",
        "KmsMasterKeyId",
        "MaximumMessageSize",
        "MessageRetentionPeriod",
        "Policy",
        "ReceiveMessageWaitTimeSeconds",
        "RedriveAllowPolicy",
        "RedrivePolicy",
        "SqsManagedSseEnabled",
        "VisibilityTimeout",
    }
)
"""The queue attributes a request may set, as in the real SQS. moto stores any name it is
given, its read-only ones too (``CreatedTimestamp``, which tells a queue deleted and created
again from the one that was there): those are refused as the real SQS refuses them."""
MAX_LOG_BATCH_BYTES = 1_048_576
"""Largest batch of log events one request may put, counted as CloudWatch Logs counts it (each
event's message in UTF-8, plus 26 bytes): moto took a single 40 MB event, which the host then
read whole."""
_LOG_EVENT_OVERHEAD = 26
_PR_SET_PDEATHSIG = 1

StartResponse = Callable[..., Any]
Wsgi = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def guarded(app: Wsgi) -> Wsgi:
    """``app`` answering only signed requests of the supported services."""

    def serve(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = str(environ.get("PATH_INFO", ""))
        authorization = str(environ.get("HTTP_AUTHORIZATION", ""))
        another_account = ACCOUNT_HEADER in environ
        if path.startswith("/moto-api") or another_account or not admitted(authorization):
            body = (
                b"refused: this emulator serves signed s3, sqs, dynamodb and logs requests "
                b"only, in us-east-1"
            )
            start_response("403 Forbidden", [("Content-Type", "text/plain")])
            return [body]
        return app(environ, start_response)

    return serve


def admitted(authorization: str) -> bool:
    """Whether a request signed with this SigV4 ``Authorization`` header is served: signed for
    a service of :data:`SERVICES` and, for a regional one, for :data:`REGION`. The credential
    scope is read exactly as moto reads it to route the request (the second word of the
    header's first comma-separated part): read any other way, a header could name one service
    here and another there."""
    words = authorization.split(",", maxsplit=1)[0].split()
    scope = words[1].split("/") if len(words) > 1 else []
    if len(scope) != 5 or not scope[0].startswith("Credential=") or scope[4] != "aws4_request":
        return False
    region, service = scope[2], scope[3].lower()
    return service in SERVICES and (service not in REGIONAL or region == REGION)


def counted(app: Wsgi, token: str) -> Wsgi:
    """``app`` counting the requests it is sent; :data:`COUNT_PATH`, :data:`BIRTHS_PATH` and
    :data:`MESSAGES_PATH` with the right token (which only the trusted side holds) are answered
    here instead of being served (and counted)."""
    lock = threading.Lock()
    served = [0]

    def count(_query: str) -> str:
        with lock:
            return str(served[0])

    answers: dict[str, Callable[[str], str]] = {
        COUNT_PATH: count,
        BIRTHS_PATH: lambda _query: births(),
        MESSAGES_PATH: messages,
    }

    def serve(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        answer = answers.get(str(environ.get("PATH_INFO")))
        if answer is not None:
            given = str(environ.get("HTTP_X_ASSAY_TOKEN", ""))
            if token and hmac.compare_digest(given.encode(), token.encode()):
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [answer(str(environ.get("QUERY_STRING", ""))).encode()]
        with lock:
            served[0] += 1
        return app(environ, start_response)

    return serve


def births() -> str:
    """When each bucket, queue, table and log group of every account and region was made, to
    the microsecond, as a JSON object of ``bucket:NAME``... to the time."""
    from moto.dynamodb.models import dynamodb_backends  # noqa: PLC0415 - loaded with moto
    from moto.logs.models import logs_backends  # noqa: PLC0415 - likewise
    from moto.s3.models import s3_backends  # noqa: PLC0415 - likewise
    from moto.sqs.models import sqs_backends  # noqa: PLC0415 - likewise

    kinds: list[tuple[str, Any, str, str]] = [
        ("bucket", s3_backends, "buckets", "creation_date"),
        ("queue", sqs_backends, "queues", "created_timestamp"),
        ("table", dynamodb_backends, "tables", "created_at"),
        ("logs", logs_backends, "groups", "creation_time"),
    ]
    found = {
        f"{kind}:{name}": str(getattr(made, when))
        for kind, backends, held, when in kinds
        for regions in list(backends.values())
        for backend in list(regions.values())
        for name, made in list(getattr(backend, held).items())
    }
    return json.dumps(found, sort_keys=True)


def messages(query: str) -> str:
    """The messages of the queue ``query`` names (see :data:`MESSAGES_PATH`); those past the
    queue's retention period are gone, as they are from SQS."""
    from urllib.parse import parse_qs  # noqa: PLC0415 - only the server process needs it

    from moto.sqs.models import sqs_backends  # noqa: PLC0415 - loaded with moto

    asked = parse_qs(query)
    account, name = (asked.get(key, [""])[0] for key in ("account", "queue"))
    queue = sqs_backends[account][REGION].queues.get(name) if account in sqs_backends else None
    found: list[dict[str, Any]] = []
    if queue is None:
        return json.dumps({"messages": found})
    now = time.time()
    retention = float(queue.attributes["MessageRetentionPeriod"])
    size = 0
    for message in list(queue._messages):
        if message.sent_timestamp is not None and message.sent_timestamp / 1000 + retention <= now:
            continue
        state = "in_flight" if not message.visible else "delayed" if message.delayed else "visible"
        entry = {
            "body": message.body,
            "attributes": message.message_attributes,
            "state": state,
            "group": message.group_id,
        }
        size += len(json.dumps(entry)) + 2
        if len(found) >= MAX_QUEUE_MESSAGES or size > MAX_QUEUE_BYTES:
            limits = f"{MAX_QUEUE_MESSAGES} messages or {MAX_QUEUE_BYTES} bytes"
            return json.dumps({"too_large": f"more than {limits} in {name}"})
        found.append(entry)
    return json.dumps({"messages": found})


def _warm(app: Wsgi) -> None:
    """One read-only request per service, so that the first real one is fast."""
    from werkzeug.test import Client  # noqa: PLC0415 - loaded with moto, after the fork guard

    client = Client(app)
    scope = "Credential=testing/20240101/us-east-1/{}/aws4_request, SignedHeaders=host, Signature=0"
    requests = [
        ("s3", "GET", "/", {}, b""),
        ("sqs", "POST", "/", {"X-Amz-Target": "AmazonSQS.ListQueues",
                              "Content-Type": "application/x-amz-json-1.0"}, b"{}"),
        ("dynamodb", "POST", "/", {"X-Amz-Target": "DynamoDB_20120810.ListTables",
                                   "Content-Type": "application/x-amz-json-1.0"}, b"{}"),
        ("logs", "POST", "/", {"X-Amz-Target": "Logs_20140328.DescribeLogGroups",
                               "Content-Type": "application/x-amz-json-1.1"}, b"{}"),
    ]  # fmt: skip
    for service, method, path, headers, body in requests:
        signed = {"Authorization": "AWS4-HMAC-SHA256 " + scope.format(service), **headers}
        client.open(path, method=method, headers=signed, data=body).close()


def _serve(socket_path: str, app: Wsgi, ready_fd: int, token: str) -> None:
    """In the forked child: serve ``app`` on ``socket_path`` until killed."""
    from moto.moto_server.werkzeug_app import MotoRequestHandler  # noqa: PLC0415 - loaded already
    from werkzeug.serving import make_server  # noqa: PLC0415 - likewise

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        os._exit(1)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))
    os.environ[KEY_BUFFER_VARIABLE] = str(MEMORY_LIMIT_BYTES)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, and no more
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # nothing else may spill to disk either
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    server = make_server(
        f"unix://{socket_path}",
        0,
        counted(app, token),
        threaded=True,
        request_handler=MotoRequestHandler,
    )
    Path(socket_path).chmod(0o777)  # any uid may connect: the directory keeps others out
    os.write(ready_fd, b"1")
    os.close(ready_fd)
    server.serve_forever()


def _start(socket_path: str, app: Wsgi, token: str) -> dict[str, Any]:
    started = time.perf_counter()
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_read)
            _serve(socket_path, app, ready_write, token)
        finally:
            os._exit(1)
    os.close(ready_write)
    ok = os.read(ready_read, 1)
    os.close(ready_read)
    if ok != b"1":
        os.waitpid(pid, 0)
        return {"error": "the emulator did not start"}
    return {"pid": pid, "start_s": time.perf_counter() - started}


def _stop(pid: int) -> dict[str, Any]:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    return {"stopped": pid}


def main() -> None:
    """Warm up, say so, then answer commands until standard input closes, then exit at once
    (the emulators still running die with this process)."""
    logging_off()
    from moto.moto_server.werkzeug_app import (  # noqa: PLC0415 - only this process loads moto
        DomainDispatcherApplication,
        create_backend_app,
    )

    settable_queue_attributes_only()
    fifo_by_name_only()
    log_batches_within_limits()
    app = guarded(DomainDispatcherApplication(create_backend_app))
    _warm(app)
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("op") == "start":
            answer = _start(str(command["socket"]), app, str(command.get("token", "")))
        elif command.get("op") == "stop":
            answer = _stop(int(command["pid"]))
        else:
            answer = {"error": f"unknown command {command.get('op')!r}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    os._exit(0)  # nothing is left to clean up: tearing moto's modules down took half a second


def settable_queue_attributes_only() -> None:
    """Make moto's queues refuse attributes outside :data:`SQS_SETTABLE` with SQS's own
    ``InvalidAttributeName``, whichever request (and protocol) names them."""
    from moto.sqs.exceptions import InvalidAttributeName  # noqa: PLC0415 - loaded with moto
    from moto.sqs.models import Queue  # noqa: PLC0415 - likewise

    original = Queue._set_attributes  # the one place every attribute is set

    def checked(queue: Any, attributes: dict[str, Any], now: float | None = None) -> None:
        for name in attributes:
            if name not in SQS_SETTABLE:
                raise InvalidAttributeName(name)
        original(queue, attributes, now)

    Queue._set_attributes = checked  # type: ignore[method-assign,assignment]


def fifo_by_name_only() -> None:
    """Make a queue FIFO exactly when its name ends in ``.fifo``, as SQS does: moto makes a
    standard queue of such a name, and turns a queue FIFO or standard when ``FifoQueue`` is set
    after its creation, which SQS refuses (``InvalidAttributeName``). A queue's name then says
    what it is, and a state reads a FIFO queue's own defaults as defaults."""
    from moto.sqs.exceptions import (  # noqa: PLC0415 - loaded with moto
        InvalidAttributeName,
        InvalidParameterValue,
    )
    from moto.sqs.models import Queue, SQSBackend  # noqa: PLC0415 - likewise

    made = Queue.__init__
    changed = SQSBackend.set_queue_attributes

    def create(queue: Any, name: str, region: str, account_id: str, **kwargs: Any) -> None:
        made(queue, name, region, account_id, **kwargs)
        if name.endswith(".fifo") and not queue.fifo_queue:
            raise InvalidParameterValue(
                "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 "
                "in length"
            )

    def change(backend: Any, queue_name: str, attributes: dict[str, Any]) -> Any:
        if "FifoQueue" in attributes:
            raise InvalidAttributeName("FifoQueue")
        return changed(backend, queue_name, attributes)

    Queue.__init__ = create  # type: ignore[method-assign,assignment]
    SQSBackend.set_queue_attributes = change  # type: ignore[method-assign,assignment]


def log_batches_within_limits() -> None:
    """Make moto refuse a batch of log events past :data:`MAX_LOG_BATCH_BYTES`, with
    CloudWatch Logs' own ``InvalidParameterException``."""
    from moto.logs.exceptions import InvalidParameterException  # noqa: PLC0415 - with moto
    from moto.logs.models import LogsBackend  # noqa: PLC0415 - likewise

    original = LogsBackend.put_log_events

    def bounded(backend: Any, group: str, stream: str, events: list[dict[str, Any]]) -> Any:
        size = sum(
            len(str(event.get("message", "")).encode(errors="replace")) + _LOG_EVENT_OVERHEAD
            for event in events
        )
        if size > MAX_LOG_BATCH_BYTES:
            raise InvalidParameterException(
                f"Log events of {size} bytes exceed the maximum batch size of "
                f"{MAX_LOG_BATCH_BYTES} bytes"
            )
        return original(backend, group, stream, events)

    LogsBackend.put_log_events = bounded  # type: ignore[method-assign,assignment]


def logging_off() -> None:
    """Keep the request log of werkzeug off standard error."""
    import logging  # noqa: PLC0415 - only the server process needs it

    logging.getLogger("werkzeug").setLevel(logging.ERROR)


if __name__ == "__main__":
    main()
