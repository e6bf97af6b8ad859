"""Delete abandoned partial uploads under one prefix and log how many went."""

import contextlib
import json
import time

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-uploads"
PREFIX = "uploads/"
SUFFIXES = [".tmp", ".part"]
LOG_GROUP = "/ops/cleanup"
LOG_STREAM = "uploads"
# end of parameters

s3 = boto3.client("s3")
logs = boto3.client("logs")
deleted = 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=PREFIX):
    for entry in page.get("Contents", []):
        if entry["Key"].endswith(tuple(SUFFIXES)) or entry["Size"] == 0:
            s3.delete_object(Bucket=BUCKET, Key=entry["Key"])
            deleted += 1
if deleted:
    with contextlib.suppress(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_stream(logGroupName=LOG_GROUP, logStreamName=LOG_STREAM)
    logs.put_log_events(
        logGroupName=LOG_GROUP,
        logStreamName=LOG_STREAM,
        logEvents=[
            {"timestamp": int(time.time() * 1000), "message": json.dumps({"deleted": deleted})}
        ],
    )
