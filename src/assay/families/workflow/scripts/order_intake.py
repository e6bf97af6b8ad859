"""Take new orders off the intake queue into the orders table; express orders also queued."""

import json
from decimal import Decimal

import boto3  # type: ignore[import-untyped]

# parameters
INTAKE = "orders-incoming"
EXPRESS = "orders-express"
TABLE = "orders"
# end of parameters

sqs = boto3.client("sqs")
table = boto3.resource("dynamodb").Table(TABLE)
intake = sqs.get_queue_url(QueueName=INTAKE)["QueueUrl"]
express = sqs.get_queue_url(QueueName=EXPRESS)["QueueUrl"]
while True:
    batch = sqs.receive_message(QueueUrl=intake, MaxNumberOfMessages=10, VisibilityTimeout=120)
    messages = batch.get("Messages", [])
    if not messages:
        break
    for message in messages:
        order = json.loads(message["Body"])
        table.put_item(
            Item={
                "order_id": order["order_id"],
                "customer": order["customer"],
                "total": Decimal(str(order["total"])),
                "status": "received",
            }
        )
        if order.get("priority") == "express":
            sqs.send_message(
                QueueUrl=express, MessageBody=json.dumps({"order_id": order["order_id"]})
            )
        sqs.delete_message(QueueUrl=intake, ReceiptHandle=message["ReceiptHandle"])
