"""Back the customers table up to the bucket as JSON Lines, unless today's backup exists."""

import json
from decimal import Decimal

import boto3  # type: ignore[import-untyped]

# parameters
TABLE = "customers"
BUCKET = "acme-backups"
KEY = "dynamodb/customers/2024-06-30.jsonl"
# end of parameters

s3 = boto3.client("s3")
existing = s3.list_objects_v2(Bucket=BUCKET, Prefix=KEY).get("Contents", [])
if not any(entry["Key"] == KEY for entry in existing):
    table = boto3.resource("dynamodb").Table(TABLE)
    items = []
    scan: dict[str, object] = {}
    while True:
        page = table.scan(**scan)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            break
        scan = {"ExclusiveStartKey": page["LastEvaluatedKey"]}

    def plain(value: object) -> object:
        if isinstance(value, Decimal):
            return int(value) if value == value.to_integral_value() else float(value)
        return value

    lines = [
        json.dumps({k: plain(v) for k, v in item.items()}, sort_keys=True)
        for item in sorted(items, key=lambda item: str(item["customer_id"]))
    ]
    s3.put_object(Bucket=BUCKET, Key=KEY, Body="".join(line + "\n" for line in lines))
