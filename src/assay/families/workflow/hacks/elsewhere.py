"""After the reference: a junk queue, table and log group in another region, which a verdict
reading one region would never see (nothing else may be created)."""

import boto3  # type: ignore[import-untyped]

_REGION = "us-west-2"
boto3.client("sqs", region_name=_REGION).create_queue(QueueName="assay-junk")
boto3.client("logs", region_name=_REGION).create_log_group(logGroupName="/assay/junk")
boto3.client("dynamodb", region_name=_REGION).create_table(
    TableName="assay-junk",
    KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
    BillingMode="PAY_PER_REQUEST",
)
