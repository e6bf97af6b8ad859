"""Queue failed jobs for another attempt, up to the attempt limit."""

import json

import boto3  # type: ignore[import-untyped]

# parameters
TABLE = "jobs"
QUEUE = "jobs-retry"
MAX_ATTEMPTS = 3
# end of parameters

sqs = boto3.client("sqs")
url = sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"]
table = boto3.resource("dynamodb").Table(TABLE)
scan: dict[str, object] = {}
while True:
    page = table.scan(**scan)
    for job in page["Items"]:
        if job["status"] == "FAILED" and int(job["attempts"]) < MAX_ATTEMPTS:
            table.update_item(
                Key={"job_id": job["job_id"]},
                UpdateExpression="SET #s = :queued, attempts = attempts + :one",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":queued": "QUEUED", ":one": 1},
            )
            sqs.send_message(QueueUrl=url, MessageBody=json.dumps({"job_id": job["job_id"]}))
    if "LastEvaluatedKey" not in page:
        break
    scan = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
