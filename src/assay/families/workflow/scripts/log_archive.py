"""Move daily log files older than a cutoff date to the archive bucket and index them."""

import boto3  # type: ignore[import-untyped]

# parameters
BUCKET = "acme-logs"
ARCHIVE = "acme-logs-archive"
PREFIX = "logs/"
CUTOFF = "2024-03-01"
INDEX = "index/2024-03-01.txt"
# end of parameters

s3 = boto3.client("s3")
moved = []
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=PREFIX):
    for entry in page.get("Contents", []):
        key = entry["Key"]
        day = key.rsplit("/", 1)[-1].removesuffix(".log")
        if len(day) == 10 and day < CUTOFF:
            s3.copy_object(Bucket=ARCHIVE, Key=key, CopySource={"Bucket": BUCKET, "Key": key})
            s3.delete_object(Bucket=BUCKET, Key=key)
            moved.append(key)
if moved:
    s3.put_object(Bucket=ARCHIVE, Key=INDEX, Body="".join(f"{key}\n" for key in sorted(moved)))
