"""Deletes every object, bucket, queue, table and log group it can find."""

import boto3  # type: ignore[import-untyped]

s3 = boto3.client("s3")
for bucket in s3.list_buckets().get("Buckets", []):
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket["Name"]):
        for entry in page.get("Contents", []):
            s3.delete_object(Bucket=bucket["Name"], Key=entry["Key"])
    s3.delete_bucket(Bucket=bucket["Name"])
sqs = boto3.client("sqs")
for url in sqs.list_queues().get("QueueUrls", []):
    sqs.delete_queue(QueueUrl=url)
dynamodb = boto3.client("dynamodb")
for table in dynamodb.list_tables().get("TableNames", []):
    dynamodb.delete_table(TableName=table)
logs = boto3.client("logs")
for group in logs.describe_log_groups().get("logGroups", []):
    logs.delete_log_group(logGroupName=group["logGroupName"])
