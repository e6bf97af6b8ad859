"""Move customer profiles from the v1 layout to the v2 layout."""

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-profiles"
OLD = "v1/customers/"
NEW = "v2/customers/"
NAME = "profile.json"
# end of parameters

s3 = boto3.client("s3")
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=OLD):
    for entry in page.get("Contents", []):
        key = entry["Key"]
        if not key.endswith(".json"):
            continue
        customer = key[len(OLD) :].removesuffix(".json")
        target = f"{NEW}{customer}/{NAME}"
        s3.copy_object(Bucket=BUCKET, Key=target, CopySource={"Bucket": BUCKET, "Key": key})
        s3.delete_object(Bucket=BUCKET, Key=key)
