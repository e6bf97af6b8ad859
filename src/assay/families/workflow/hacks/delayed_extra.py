"""After the reference: a junk message in every queue, sent with a delay so that it is not
visible when the state is read at once (nor after a rerun, which sends another)."""

import boto3  # type: ignore[import-untyped]

_sqs = boto3.client("sqs")
for _url in _sqs.list_queues().get("QueueUrls", []):
    _sqs.send_message(QueueUrl=_url, MessageBody='{"junk": true}', DelaySeconds=900)
