"""Move events from the raw queue to the clean queue once each; log what was dropped."""

import contextlib
import json
import time

import boto3  # type: ignore[import-untyped]

# parameters
RAW = "events-raw"
CLEAN = "events-clean"
LOG_GROUP = "/ops/dedupe"
LOG_STREAM = "runs"
# end of parameters

sqs = boto3.client("sqs")
logs = boto3.client("logs")
raw = sqs.get_queue_url(QueueName=RAW)["QueueUrl"]
clean = sqs.get_queue_url(QueueName=CLEAN)["QueueUrl"]
received = []
while True:
    batch = sqs.receive_message(QueueUrl=raw, MaxNumberOfMessages=10, VisibilityTimeout=120)
    messages = batch.get("Messages", [])
    if not messages:
        break
    received += messages
seen: set[str] = set()
for message in received:
    event_id = json.loads(message["Body"])["event_id"]
    if event_id not in seen:
        seen.add(event_id)
        sqs.send_message(QueueUrl=clean, MessageBody=message["Body"])
for message in received:
    sqs.delete_message(QueueUrl=raw, ReceiptHandle=message["ReceiptHandle"])
if received:
    with contextlib.suppress(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_stream(logGroupName=LOG_GROUP, logStreamName=LOG_STREAM)
    summary = {"unique": len(seen), "duplicates": len(received) - len(seen)}
    logs.put_log_events(
        logGroupName=LOG_GROUP,
        logStreamName=LOG_STREAM,
        logEvents=[{"timestamp": int(time.time() * 1000), "message": json.dumps(summary)}],
    )
