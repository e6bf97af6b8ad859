"""Leaves a table whose items hold binary values, which no state can hold: the verdict must
judge them (never equal to a text), not stumble on them."""

import boto3  # type: ignore[import-untyped]

_dynamodb = boto3.client("dynamodb")
_dynamodb.create_table(
    TableName="assay-binary",
    KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
    BillingMode="PAY_PER_REQUEST",
)
_dynamodb.put_item(TableName="assay-binary", Item={"id": {"S": "a"}, "v": {"B": b"PASSED"}})
_dynamodb.put_item(TableName="assay-binary", Item={"id": {"S": "b"}, "v": {"BS": [b"x", b"y"]}})
