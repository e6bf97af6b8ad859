"""Set each tenant's limit from the plan table in the bucket, for the plans it lists."""

import json

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-config"
KEY = "plans/limits.json"
TABLE = "tenants"
ATTRIBUTE = "api_limit"
# end of parameters

s3 = boto3.client("s3")
limits = json.loads(s3.get_object(Bucket=BUCKET, Key=KEY)["Body"].read())
table = boto3.resource("dynamodb").Table(TABLE)
scan: dict[str, object] = {}
while True:
    page = table.scan(**scan)
    for item in page["Items"]:
        plan = item.get("plan")
        if plan in limits and item.get(ATTRIBUTE) != limits[plan]:
            table.update_item(
                Key={"tenant": item["tenant"]},
                UpdateExpression="SET #a = :v",
                ExpressionAttributeNames={"#a": ATTRIBUTE},
                ExpressionAttributeValues={":v": limits[plan]},
            )
    if "LastEvaluatedKey" not in page:
        break
    scan = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
