"""Fix the payloads stuck in a dead-letter queue and send them back; leave the unfixable."""

import json

import boto3  # type: ignore[import-untyped]

# parameters
DLQ = "payments-dlq"
TARGET = "payments"
DECIMAL_COMMA = False
# end of parameters

sqs = boto3.client("sqs")
dlq = sqs.get_queue_url(QueueName=DLQ)["QueueUrl"]
target = sqs.get_queue_url(QueueName=TARGET)["QueueUrl"]


def fixed(body: str) -> dict[str, object] | None:
    try:
        payment = json.loads(body)
        amount = str(payment["amount"]).strip()
        if DECIMAL_COMMA:
            amount = amount.replace(",", ".")
        return {
            "payment_id": str(payment["payment_id"]),
            "amount": float(amount),
            "currency": str(payment["currency"]).upper(),
        }
    except (ValueError, KeyError, TypeError):
        return None


kept = []
while True:
    batch = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10, VisibilityTimeout=120)
    messages = batch.get("Messages", [])
    if not messages:
        break
    for message in messages:
        payment = fixed(message["Body"])
        if payment is None:
            kept.append(message["ReceiptHandle"])
            continue
        sqs.send_message(QueueUrl=target, MessageBody=json.dumps(payment))
        sqs.delete_message(QueueUrl=dlq, ReceiptHandle=message["ReceiptHandle"])
for handle in kept:
    sqs.change_message_visibility(QueueUrl=dlq, ReceiptHandle=handle, VisibilityTimeout=0)
