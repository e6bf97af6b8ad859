"""Apply a stock feed from the bucket to the inventory table, then file the feed away."""

import csv
import io
import json

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-feeds"
FEEDS = "stock/incoming/"
DONE = "stock/applied/"
TABLE = "inventory"
QUEUE = "inventory-unknown-sku"
DELIMITER = ","
# end of parameters

s3 = boto3.client("s3")
sqs = boto3.client("sqs")
table = boto3.resource("dynamodb").Table(TABLE)
unknown = sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"]
keys = [
    entry["Key"]
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=FEEDS)
    for entry in page.get("Contents", [])
]
for key in sorted(keys):
    text = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read().decode("utf-8")
    for row in csv.DictReader(io.StringIO(text), delimiter=DELIMITER):
        sku, quantity = row["sku"], int(row["quantity"])
        if "Item" not in table.get_item(Key={"sku": sku}):
            sqs.send_message(QueueUrl=unknown, MessageBody=json.dumps({"sku": sku, "feed": key}))
        elif quantity == 0:
            table.delete_item(Key={"sku": sku})
        else:
            table.update_item(
                Key={"sku": sku},
                UpdateExpression="SET quantity = :q",
                ExpressionAttributeValues={":q": quantity},
            )
    target = DONE + key[len(FEEDS) :]
    s3.copy_object(Bucket=BUCKET, Key=target, CopySource={"Bucket": BUCKET, "Key": key})
    s3.delete_object(Bucket=BUCKET, Key=key)
