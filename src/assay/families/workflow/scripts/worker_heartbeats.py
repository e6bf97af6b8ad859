"""Record the last status of every worker's log stream in the status table."""

import boto3  # type: ignore[import-untyped]

# parameters
LOG_GROUP = "/fleet/workers"
TABLE = "worker-status"
# end of parameters

logs = boto3.client("logs")
table = boto3.resource("dynamodb").Table(TABLE)
streams = [
    stream["logStreamName"]
    for page in logs.get_paginator("describe_log_streams").paginate(logGroupName=LOG_GROUP)
    for stream in page.get("logStreams", [])
]
for stream in streams:
    events = logs.get_log_events(logGroupName=LOG_GROUP, logStreamName=stream, startFromHead=True)
    messages = [event["message"] for event in events["events"]]
    if not messages:
        continue
    status = messages[-1].rsplit("status=", 1)[-1].strip()
    table.put_item(Item={"worker": stream, "last_status": status})
