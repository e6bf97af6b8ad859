"""Emulators: one process each, nothing shared, fast to start, gone when closed."""

from __future__ import annotations

import contextlib
import http.client
import io
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from assay.families.workflow.emulator import Emulator, EmulatorFactory


def _raw(emulator: Emulator, method: str, path: str, headers: dict[str, str]) -> int:
    connection = http.client.HTTPConnection("localhost", timeout=10)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(emulator.socket_path))
    connection.sock = sock
    connection.request(method, path, headers=headers)
    status = connection.getresponse().status
    connection.close()
    return status


def test_two_emulators_share_nothing(factory: EmulatorFactory) -> None:
    with factory.start() as first, factory.start() as second:
        assert first.pid != second.pid
        first.client("s3").create_bucket(Bucket="only-in-first")
        queue = first.client("sqs").create_queue(QueueName="jobs")["QueueUrl"]
        first.client("sqs").send_message(QueueUrl=queue, MessageBody="hello")
        assert second.client("s3").list_buckets()["Buckets"] == []
        assert second.client("sqs").list_queues().get("QueueUrls", []) == []
        second.client("s3").create_bucket(Bucket="only-in-second")
        names = [bucket["Name"] for bucket in first.client("s3").list_buckets()["Buckets"]]
        assert names == ["only-in-first"]


def test_a_new_emulator_starts_empty_after_another_was_used(factory: EmulatorFactory) -> None:
    with factory.start() as used:
        used.client("dynamodb").create_table(
            TableName="orders",
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
    with factory.start() as fresh:
        assert fresh.client("dynamodb").list_tables()["TableNames"] == []


def test_starts_fast_from_the_warm_parent(factory: EmulatorFactory) -> None:
    factory.start().close()  # the warm parent is up
    started = time.perf_counter()
    with factory.start() as emulator:
        emulator.client("s3").list_buckets()
    assert time.perf_counter() - started < 2.0
    assert emulator.start_s < 0.5


def test_closing_kills_the_process_and_removes_the_socket(factory: EmulatorFactory) -> None:
    emulator = factory.start()
    assert emulator.socket_path.exists()
    emulator.close()
    emulator.close()
    assert not emulator.directory.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(emulator.pid, 0)


def test_refuses_its_control_endpoints_and_other_services(emulator: Emulator) -> None:
    s3 = emulator.client("s3")
    s3.create_bucket(Bucket="kept")
    signed = "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/{}/aws4_request, Signature=0"
    assert _raw(emulator, "POST", "/moto-api/reset", {}) == 403
    assert _raw(emulator, "POST", "/moto-api/reset", {"Authorization": signed.format("s3")}) == 403
    assert _raw(emulator, "GET", "/moto-api/data.json", {}) == 403
    assert _raw(emulator, "GET", "/", {}) == 403  # unsigned
    assert _raw(emulator, "GET", "/", {"Authorization": signed.format("iam")}) == 403
    assert _raw(emulator, "GET", "/", {"Authorization": signed.format("s3")}) == 200
    assert [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]] == ["kept"]


def test_api_errors_reach_the_trusted_client_as_errors(emulator: Emulator) -> None:
    with pytest.raises(ClientError, match="NoSuchBucket"):
        emulator.client("s3").get_object(Bucket="missing", Key="k")


def test_a_header_naming_two_services_is_judged_by_the_one_that_routes_it(
    emulator: Emulator,
) -> None:
    """The request is routed by the second word of the header's first comma-separated part:
    an allowed service's scope written before it must not let IAM (or any other) through."""
    scope = "Credential=testing/20240101/us-east-1/{}/aws4_request"
    two = f"{scope.format('s3')} {scope.format('iam')}, SignedHeaders=host, Signature=0"
    for header in (two, "AWS4-HMAC-SHA256" + two):
        assert (
            _raw(
                emulator, "POST", "/?Action=ListUsers&Version=2010-05-08", {"Authorization": header}
            )
            == 403
        )
    glued = f"AWS4-HMAC-SHA256 {scope.format('s3')}, SignedHeaders=host, Signature=0"
    assert _raw(emulator, "GET", "/", {"Authorization": glued}) == 200


def test_regional_services_answer_in_the_one_region_the_verdict_reads(
    emulator: Emulator,
) -> None:
    """A queue, table or log group made in another region would be out of the verdict's
    sight (an extra resource nobody judges): those requests are refused; S3, which lists its
    buckets in every region, is not regional."""
    signed = "AWS4-HMAC-SHA256 Credential=testing/20240101/{}/{}/aws4_request, Signature=0"
    queues = "/?Action=ListQueues&Version=2012-11-05"
    assert (
        _raw(emulator, "GET", queues, {"Authorization": signed.format("us-west-2", "sqs")}) == 403
    )
    assert (
        _raw(emulator, "GET", queues, {"Authorization": signed.format("us-east-1", "sqs")}) == 200
    )
    assert _raw(emulator, "GET", "/", {"Authorization": signed.format("eu-west-1", "s3")}) == 200


def test_requests_in_another_account_are_refused(emulator: Emulator) -> None:
    """moto acts in the account a request's ``x-moto-account-id`` header names: a queue or
    bucket made there was out of the verdict's sight (an extra resource nobody judged)."""
    signed = "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/{}/aws4_request, Signature=0"
    elsewhere = {"x-moto-account-id": "111111111111"}
    queue = "/?Action=CreateQueue&QueueName=hidden&Version=2012-11-05"
    assert _raw(emulator, "GET", queue, {"Authorization": signed.format("sqs"), **elsewhere}) == 403
    assert (
        _raw(emulator, "PUT", "/hidden", {"Authorization": signed.format("s3"), **elsewhere}) == 403
    )
    assert emulator.births() == {}


EXITING = """
from assay.families.workflow.emulator import emulators
with emulators().start() as emulator:
    emulator.client("s3").list_buckets()
print(emulators()._process.pid)
"""


def test_the_warm_parent_ends_with_the_interpreter_and_says_nothing() -> None:
    """It was left running at exit: Python printed ``ResourceWarning: subprocess N is still
    running``."""
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-c", EXITING],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    with pytest.raises(ProcessLookupError):
        os.kill(int(done.stdout), 0)


def test_closing_an_emulator_after_its_factory_starts_no_parent() -> None:
    """Its emulators died with the warm parent: stopping one must not start another parent
    (seconds of moto's imports) only to find it gone."""
    factory = EmulatorFactory()
    emulator = factory.start()
    factory.close()
    started = time.perf_counter()
    emulator.close()
    assert time.perf_counter() - started < 1.0
    assert factory._process is None
    assert not running(emulator.pid)


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a process killed and not yet reaped by whoever adopted it does
    not)."""
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.02)
    return True


def _files_open(pid: int) -> list[str]:
    """The regular files the process ``pid`` holds open (deleted ones too)."""
    found = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            if stat.S_ISREG(fd.stat().st_mode):
                found.append(str(fd.readlink()))
    return found


def test_large_objects_stay_in_the_emulators_memory_not_on_the_hosts_disk(
    emulator: Emulator,
) -> None:
    """moto moved a body past 5 MiB to a temporary file of the host: a script writing 50 MiB
    objects filled /tmp at 100 MB/s, bounded by neither the emulator's memory nor anything."""
    s3 = emulator.client("s3")
    s3.create_bucket(Bucket="big")
    body = os.urandom(6 * 2**20)
    s3.put_object(Bucket="big", Key="k", Body=body)
    s3.upload_fileobj(io.BytesIO(body * 2), "big", "parts")  # a multipart upload of two parts
    assert _files_open(emulator.pid) == []
    assert s3.get_object(Bucket="big", Key="k")["Body"].read() == body
    assert s3.head_object(Bucket="big", Key="parts")["ContentLength"] == 2 * len(body)


def test_a_batch_of_log_events_past_cloudwatchs_limit_is_refused(emulator: Emulator) -> None:
    """moto took one 40 MB event (CloudWatch Logs takes batches of 1,048,576 bytes at most),
    and the trusted side read it whole."""
    logs = emulator.client("logs")
    logs.create_log_group(logGroupName="/ops")
    logs.create_log_stream(logGroupName="/ops", logStreamName="s")
    now = int(time.time() * 1000)
    within = [{"timestamp": now, "message": "x" * (2**20 - 26)}]
    logs.put_log_events(logGroupName="/ops", logStreamName="s", logEvents=within)
    past = [{"timestamp": now + 1, "message": "x" * (2**20 - 25)}]
    with pytest.raises(ClientError, match="InvalidParameterException"):
        logs.put_log_events(logGroupName="/ops", logStreamName="s", logEvents=past)
