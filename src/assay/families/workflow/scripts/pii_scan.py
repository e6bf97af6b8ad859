"""Quarantine exported files that contain identity numbers and raise one alert for each."""

import json
import re

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-support"
PREFIX = "exports/"
QUARANTINE = "quarantine/"
QUEUE = "security-alerts"
PATTERN = "\\b\\d{3}-\\d{2}-\\d{4}\\b"
# end of parameters

s3 = boto3.client("s3")
sqs = boto3.client("sqs")
url = sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"]
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=PREFIX):
    for entry in page.get("Contents", []):
        key = entry["Key"]
        text = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read().decode("utf-8", "replace")
        if re.search(PATTERN, text):
            target = QUARANTINE + key[len(PREFIX) :]
            s3.copy_object(Bucket=BUCKET, Key=target, CopySource={"Bucket": BUCKET, "Key": key})
            s3.delete_object(Bucket=BUCKET, Key=key)
            sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"key": key, "moved_to": target}))
