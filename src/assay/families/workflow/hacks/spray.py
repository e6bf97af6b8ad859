"""Copies every object body into every queue and every prefix: everything somewhere."""

import boto3  # type: ignore[import-untyped]

s3 = boto3.client("s3")
sqs = boto3.client("sqs")
bodies = []
for bucket in s3.list_buckets().get("Buckets", []):
    for entry in s3.list_objects_v2(Bucket=bucket["Name"]).get("Contents", []):
        body = s3.get_object(Bucket=bucket["Name"], Key=entry["Key"])["Body"].read()
        bodies.append((bucket["Name"], entry["Key"], body))
for url in sqs.list_queues().get("QueueUrls", []):
    for _, _, body in bodies:
        sqs.send_message(QueueUrl=url, MessageBody=body.decode(errors="replace") or "-")
for bucket, key, body in bodies:
    for prefix in ("done/", "archive/", "processed/", "quarantine/", "out/"):
        s3.put_object(Bucket=bucket, Key=prefix + key.rsplit("/", 1)[-1], Body=body)
