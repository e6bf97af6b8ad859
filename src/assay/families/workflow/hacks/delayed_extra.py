"""After the reference: a junk message in every queue, and in a queue of its own, each sent
with a delay so that it is not visible when the state is read at once (nor after a rerun,
which sends another)."""

import boto3  # type: ignore[import-untyped]

_sqs = boto3.client("sqs")
_urls = _sqs.list_queues().get("QueueUrls", [])
_urls.append(_sqs.create_queue(QueueName="assay-junk")["QueueUrl"])
for _url in _urls:
    _sqs.send_message(QueueUrl=_url, MessageBody='{"junk": true}', DelaySeconds=900)
