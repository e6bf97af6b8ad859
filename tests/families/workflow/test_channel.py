"""The channel: agent code reaches its own emulator through the SDK, and nothing else.

Each test runs an attack for real in the channel sandbox and checks it failed; the first test
shows the same code does reach what it is allowed to, so a failing attack is not a broken job.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator

import pytest

from assay.families.workflow.channel import ChannelSandbox
from assay.families.workflow.emulator import Emulator, EmulatorFactory
from assay.sandbox import ExecResult
from assay.tasks import Limits

pytestmark = pytest.mark.sandbox
LIMITS = Limits(timeout_s=30, memory_mb=512)

PROBE = """
import json, socket, sys
def attempt(family, address):
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(3)
    try:
        sock.connect(address)
        sock.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
        return "reached: " + repr(sock.recv(100))
    except OSError as exc:
        return "refused: " + type(exc).__name__
    finally:
        sock.close()
"""


def run(channel: ChannelSandbox, emulator: Emulator, code: str) -> ExecResult:
    return channel.run_script(emulator, "attack.py", {"attack.py": code.encode()}, LIMITS)


def outcome(result: ExecResult) -> dict[str, str]:
    assert result.exit_code == 0, result.stderr[-2000:]
    answer: dict[str, str] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


@pytest.fixture
def host_listener() -> Iterator[int]:
    """A TCP server on the host's loopback that answers whoever connects."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def answer() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            client.sendall(b"HTTP/1.0 200 OK\r\n\r\nsecret")
            client.close()

    threading.Thread(target=answer, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


def test_the_sdk_reaches_the_episode_emulator(channel: ChannelSandbox, emulator: Emulator) -> None:
    emulator.client("s3").create_bucket(Bucket="seeded")
    code = """
import boto3, json
s3 = boto3.client("s3")
s3.put_object(Bucket="seeded", Key="from-agent.txt", Body=b"hi")
print(json.dumps({"buckets": [b["Name"] for b in s3.list_buckets()["Buckets"]]}))
"""
    assert outcome(run(channel, emulator, code)) == {"buckets": ["seeded"]}
    body = emulator.client("s3").get_object(Bucket="seeded", Key="from-agent.txt")["Body"]
    assert body.read() == b"hi"


def test_cannot_reach_the_host_loopback(
    channel: ChannelSandbox, emulator: Emulator, host_listener: int
) -> None:
    mine = socket.create_connection(("127.0.0.1", host_listener), timeout=3)
    assert b"secret" in mine.recv(100)  # the listener works from the host
    mine.close()
    code = (
        PROBE
        + f"""
print(json.dumps({{
    "v4": attempt(socket.AF_INET, ("127.0.0.1", {host_listener})),
    "v6": attempt(socket.AF_INET6, ("::1", {host_listener})),
}}))
"""
    )
    for result in outcome(run(channel, emulator, code)).values():
        assert result.startswith("refused"), result


def test_cannot_reach_the_internet(channel: ChannelSandbox, emulator: Emulator) -> None:
    code = (
        PROBE
        + """
results = {
    "ip": attempt(socket.AF_INET, ("1.1.1.1", 80)),
    "ip6": attempt(socket.AF_INET6, ("2606:4700:4700::1111", 80)),
}
try:
    socket.getaddrinfo("example.com", 80)
    results["dns"] = "reached: resolved"
except OSError as exc:
    results["dns"] = "refused: " + type(exc).__name__
print(json.dumps(results))
"""
    )
    for result in outcome(run(channel, emulator, code)).values():
        assert result.startswith("refused"), result


def test_cannot_reach_another_episodes_emulator(
    channel: ChannelSandbox, emulator: Emulator, factory: EmulatorFactory
) -> None:
    with factory.start() as other:
        other.client("s3").create_bucket(Bucket="someone-elses")
        code = (
            PROBE
            + f"""
import os
print(json.dumps({{
    "path": attempt(socket.AF_UNIX, {str(other.socket_path)!r}),
    "dir": "reached: listed" if os.path.exists({str(other.directory)!r}) else "refused: absent",
    "tmp": "reached: " + repr(os.listdir("/tmp")) if os.listdir("/tmp") else "refused: empty",
}}))
"""
        )
        for result in outcome(run(channel, emulator, code)).values():
            assert result.startswith("refused"), result
        names = [bucket["Name"] for bucket in other.client("s3").list_buckets()["Buckets"]]
        assert names == ["someone-elses"]


def test_cannot_reach_host_abstract_sockets(channel: ChannelSandbox, emulator: Emulator) -> None:
    name = f"\0assay-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen(1)
    try:
        code = PROBE + f'print(json.dumps({{"abstract": attempt(socket.AF_UNIX, {name!r})}}))'
        assert outcome(run(channel, emulator, code))["abstract"].startswith("refused")
    finally:
        server.close()


def test_cannot_see_or_signal_the_assay_process(
    channel: ChannelSandbox, emulator: Emulator
) -> None:
    code = f"""
import json, os, signal
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            seen.append(open(f"/proc/{{pid}}/cmdline", "rb").read().decode(errors="replace"))
        except OSError:
            pass
try:
    os.kill({os.getpid()}, signal.SIGTERM)
    killed = "reached"
except OSError as exc:
    killed = "refused: " + type(exc).__name__
print(json.dumps({{"processes": "\\n".join(seen), "kill": killed}}))
"""
    answer = outcome(run(channel, emulator, code))
    assert "pytest" not in answer["processes"]
    assert "_emulator_process" not in answer["processes"]
    assert answer["kill"].startswith("refused")


def test_cannot_replace_the_socket_poison_the_bytecode_or_reset_the_emulator(
    channel: ChannelSandbox, emulator: Emulator
) -> None:
    emulator.client("sqs").create_queue(QueueName="kept")
    code = """
import json, os, urllib.request
COMPILED = "/run/pycache/opt/assay/packages/boto3/__init__.cpython-311.pyc"
assert os.path.exists(COMPILED)
results = {}
for name, act in [
    ("unlink", lambda: os.unlink("/run/emulator/aws.sock")),
    ("create", lambda: open("/run/emulator/other", "w")),
    ("bytecode", lambda: open(COMPILED, "wb")),
    ("new-bytecode", lambda: open("/run/pycache/evil.pyc", "wb")),
]:
    try:
        act()
        results[name] = "reached"
    except OSError as exc:
        results[name] = "refused: " + type(exc).__name__
endpoint = os.environ["AWS_ENDPOINT_URL"]
for path in ("/moto-api/reset", "/moto-api/data.json", "/_assay/requests"):
    try:
        urllib.request.urlopen(urllib.request.Request(endpoint + path, method="POST", data=b""))
        results[path] = "reached"
    except urllib.error.HTTPError as exc:
        results[path] = f"refused: {exc.code}"
print(json.dumps(results))
"""
    for result in outcome(run(channel, emulator, code)).values():
        assert result.startswith("refused"), result
    assert emulator.socket_path.exists()
    assert len(emulator.client("sqs").list_queues()["QueueUrls"]) == 1
