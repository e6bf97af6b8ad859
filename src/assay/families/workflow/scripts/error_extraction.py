"""Copy the ERROR events of the API's log streams to the incidents queue, once."""

import json

import boto3  # type: ignore[import-untyped]

# parameters
LOG_GROUP = "/app/api"
QUEUE = "incidents"
BUCKET = "acme-ops-reports"
SUMMARY = "incidents/summary.json"
# end of parameters

s3 = boto3.client("s3")
done = s3.list_objects_v2(Bucket=BUCKET, Prefix=SUMMARY).get("Contents", [])
if not any(entry["Key"] == SUMMARY for entry in done):
    logs = boto3.client("logs")
    sqs = boto3.client("sqs")
    url = sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"]
    errors = 0
    for page in logs.get_paginator("describe_log_streams").paginate(logGroupName=LOG_GROUP):
        for stream in page.get("logStreams", []):
            name = stream["logStreamName"]
            events = logs.get_log_events(
                logGroupName=LOG_GROUP, logStreamName=name, startFromHead=True
            )
            for event in events["events"]:
                if event["message"].startswith("ERROR "):
                    body = {"stream": name, "message": event["message"][len("ERROR ") :]}
                    sqs.send_message(QueueUrl=url, MessageBody=json.dumps(body))
                    errors += 1
    s3.put_object(Bucket=BUCKET, Key=SUMMARY, Body=json.dumps({"errors": errors}))
