"""Route new invoice files to their region's queue, quarantine the malformed, log a summary."""

import contextlib
import csv
import io
import json
import time

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-invoices"
INCOMING = "incoming/"
PROCESSED = "processed/"
QUARANTINE = "quarantine/"
QUEUE_PREFIX = "invoices-"
REGIONS = ["emea", "amer"]
DELIMITER = ","
DECIMAL_COMMA = False
LOG_GROUP = "/ops/invoice-router"
LOG_STREAM = "runs"
# end of parameters

s3 = boto3.client("s3")
sqs = boto3.client("sqs")
logs = boto3.client("logs")


def move(key: str, prefix: str) -> None:
    target = prefix + key[len(INCOMING) :]
    s3.copy_object(Bucket=BUCKET, Key=target, CopySource={"Bucket": BUCKET, "Key": key})
    s3.delete_object(Bucket=BUCKET, Key=key)


def parse(text: str) -> list[dict[str, object]] | None:
    rows = list(csv.DictReader(io.StringIO(text), delimiter=DELIMITER))
    if not rows or set(rows[0]) != {"invoice_id", "region", "amount"}:
        return None
    invoices: list[dict[str, object]] = []
    for row in rows:
        amount = (row["amount"] or "").strip()
        if DECIMAL_COMMA:
            amount = amount.replace(".", "").replace(",", ".")
        try:
            value = float(amount)
        except ValueError:
            return None
        if row["region"] not in REGIONS or not row["invoice_id"]:
            return None
        invoices.append({"invoice_id": row["invoice_id"], "region": row["region"], "amount": value})
    return invoices


routed = quarantined = 0
keys = []
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=INCOMING):
    keys += [entry["Key"] for entry in page.get("Contents", [])]
for key in keys:
    body = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    try:
        invoices = parse(body.decode("utf-8"))
    except (UnicodeDecodeError, csv.Error):
        invoices = None
    if invoices is None:
        move(key, QUARANTINE)
        quarantined += 1
        continue
    for invoice in invoices:
        url = sqs.get_queue_url(QueueName=QUEUE_PREFIX + str(invoice["region"]))["QueueUrl"]
        message = {"invoice_id": invoice["invoice_id"], "amount": invoice["amount"]}
        sqs.send_message(QueueUrl=url, MessageBody=json.dumps(message))
        routed += 1
    move(key, PROCESSED)
if keys:
    with contextlib.suppress(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_stream(logGroupName=LOG_GROUP, logStreamName=LOG_STREAM)
    summary = json.dumps({"routed": routed, "quarantined": quarantined})
    logs.put_log_events(
        logGroupName=LOG_GROUP,
        logStreamName=LOG_STREAM,
        logEvents=[{"timestamp": int(time.time() * 1000), "message": summary}],
    )
