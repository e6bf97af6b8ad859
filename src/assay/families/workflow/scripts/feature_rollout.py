"""Turn a feature on for the tenants listed in the rollout file, and only for them."""

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-rollouts"
KEY = "waves/wave-3.txt"
TABLE = "tenant-flags"
FLAG = "beta_search"
# end of parameters

listing = boto3.client("s3").get_object(Bucket=BUCKET, Key=KEY)["Body"].read().decode()
tenants = [
    line.strip() for line in listing.splitlines() if line.strip() and not line.startswith("#")
]
table = boto3.resource("dynamodb").Table(TABLE)
for tenant in tenants:
    if "Item" in table.get_item(Key={"tenant": tenant}):
        table.update_item(
            Key={"tenant": tenant},
            UpdateExpression="SET #f = :on",
            ExpressionAttributeNames={"#f": FLAG},
            ExpressionAttributeValues={":on": True},
        )
