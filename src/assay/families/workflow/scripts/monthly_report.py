"""Write one month's totals per customer from the transactions table as a CSV report."""

from collections import defaultdict
from decimal import Decimal

import boto3  # type: ignore[import-untyped]

# parameters
TABLE = "transactions"
MONTH = "2024-05"
BUCKET = "acme-finance"
KEY = "reports/2024-05.csv"
# end of parameters

table = boto3.resource("dynamodb").Table(TABLE)
totals: dict[str, Decimal] = defaultdict(Decimal)
scan: dict[str, object] = {}
while True:
    page = table.scan(**scan)
    for item in page["Items"]:
        if str(item["date"]).startswith(MONTH):
            totals[str(item["customer"])] += Decimal(str(item["amount"]))
    if "LastEvaluatedKey" not in page:
        break
    scan = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
lines = ["customer,total"] + [f"{c},{totals[c]:.2f}" for c in sorted(totals)]
boto3.client("s3").put_object(Bucket=BUCKET, Key=KEY, Body="\n".join(lines) + "\n")
