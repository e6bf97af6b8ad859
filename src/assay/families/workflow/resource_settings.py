"""The settings of an emulated cloud's resources, read through its API: who may reach a resource
and how it behaves, beside what it holds (see :mod:`.cloud`).

A setting is named for what it controls (``policy``, ``acl``, ``retention``...) and holds the
value the emulator reports, made stable: times, upload ids and other values that differ between
two runs of the same script are dropped, texts holding JSON (policies) become JSON values. A
setting at its default (what a resource the task's state is seeded with has) is left out, so a
state lists only what differs from a fresh resource, and a change undone before the end leaves
nothing behind.

Read for each bucket: its region (where its data lives: one made elsewhere than the emulator's
region is not a fresh bucket), its policy, ACL, public access block, versioning, encryption,
lifecycle, tags, CORS, website, logging, notifications, ownership controls, replication, transfer
acceleration, request payment, object lock, inventory, analytics, metrics and intelligent-tiering
configurations, and multipart uploads in progress; for each object, its ACL, tags, storage
class, encryption and website redirect (S3's own default encryption, SSE-S3, asked for
explicitly, reads as the default it is) (its content type, user metadata and other headers that
describe the body are not judged: a task that writes an object may write them as it likes). For
each queue: its attributes (policy, redrive, visibility, retention, delays, size, encryption...)
and tags. For each table: capacity, indexes, stream, encryption, deletion protection, table
class, time to live, point-in-time recovery, tags and resource policy. For each log group:
retention, encryption key and the other attributes it reports, metric and subscription filters,
and tags. For the account: the logs service's resource policies, destinations, export tasks and
deliveries, and DynamoDB's backups. Operations the emulator does not implement cannot change
anything, and are not read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import partial
from typing import Any

from botocore.exceptions import ClientError  # type: ignore[import-untyped]

from assay.families.workflow._emulator_process import REGION

Settings = dict[str, Any]
"""Setting name to its value (plain JSON), only those that differ from the default."""
Read = Callable[[], Any]
"""Reads one setting: its value, or None when it is at its default."""
Reads = dict[str, Read]
READERS = 4
"""Reads of one state sent at once: the emulator answers them on threads of its own."""

VOLATILE = frozenset(
    {
        "ResponseMetadata",
        "IsTruncated",
        "ContinuationToken",
        "NextContinuationToken",
        "nextToken",
        "creationTime",
        "lastUpdatedTime",
        "lastUpdateTime",
        "CreationDateTime",
        "BackupCreationDateTime",
        "Initiated",
        "UploadId",
        "LastModified",
        "DisplayName",
        "LatestStreamLabel",
        "LatestStreamArn",
        "BackupArn",
        "taskId",
        "NumberOfDecreasesToday",
        "LastIncreaseDateTime",
        "LastDecreaseDateTime",
        "IndexStatus",
        "IndexSizeBytes",
        "ItemCount",
        "Backfilling",
        "EarliestRestorableDateTime",
        "LatestRestorableDateTime",
        "RevisionId",
        "WarmThroughput",
    }
)
"""Fields that differ between two runs of the same script, or only count what a resource holds."""


@dataclass(frozen=True)
class _Get:
    """One read: ``operation`` of the client, the value at ``key`` of its answer (the whole
    answer when None), not set when the emulator answers ``absent`` or the value is empty or
    ``default``."""

    name: str
    operation: str
    key: str | None = None
    absent: str = ""
    default: Any = None


SSE_S3 = {"SSEAlgorithm": "AES256"}
"""The encryption S3 applies to every bucket and object unless told otherwise: asking for it
explicitly changes nothing, so it reads as the default."""
_BUCKET = (
    _Get("location", "get_bucket_location", "LocationConstraint", default=REGION),
    _Get("policy", "get_bucket_policy", "Policy", "NoSuchBucketPolicy"),
    _Get(
        "public_access_block",
        "get_public_access_block",
        "PublicAccessBlockConfiguration",
        "NoSuchPublicAccessBlockConfiguration",
    ),
    _Get("versioning", "get_bucket_versioning"),
    _Get(
        "encryption",
        "get_bucket_encryption",
        "ServerSideEncryptionConfiguration",
        "ServerSideEncryptionConfigurationNotFoundError",
        {"Rules": [{"ApplyServerSideEncryptionByDefault": SSE_S3, "BucketKeyEnabled": False}]},
    ),
    _Get(
        "lifecycle", "get_bucket_lifecycle_configuration", "Rules", "NoSuchLifecycleConfiguration"
    ),
    _Get("tags", "get_bucket_tagging", "TagSet", "NoSuchTagSet"),
    _Get("cors", "get_bucket_cors", "CORSRules", "NoSuchCORSConfiguration"),
    _Get("website", "get_bucket_website", None, "NoSuchWebsiteConfiguration"),
    _Get("logging", "get_bucket_logging"),
    _Get("notifications", "get_bucket_notification_configuration"),
    _Get(
        "ownership_controls",
        "get_bucket_ownership_controls",
        "OwnershipControls",
        "OwnershipControlsNotFoundError",
    ),
    _Get(
        "replication",
        "get_bucket_replication",
        "ReplicationConfiguration",
        "ReplicationConfigurationNotFoundError",
    ),
    _Get("accelerate", "get_bucket_accelerate_configuration"),
    _Get("request_payment", "get_bucket_request_payment", default={"Payer": "BucketOwner"}),
    _Get(
        "object_lock",
        "get_object_lock_configuration",
        "ObjectLockConfiguration",
        "ObjectLockConfigurationNotFoundError",
    ),
    _Get("inventory", "list_bucket_inventory_configurations", "InventoryConfigurationList"),
    _Get("analytics", "list_bucket_analytics_configurations", "AnalyticsConfigurationList"),
    _Get("metrics", "list_bucket_metrics_configurations", "MetricsConfigurationList"),
    _Get(
        "intelligent_tiering",
        "list_bucket_intelligent_tiering_configurations",
        "IntelligentTieringConfigurationList",
    ),
)
_UPLOADS = _Get("uploads_in_progress", "list_multipart_uploads", "Uploads")
_OBJECT_TAGS = _Get("tags", "get_object_tagging", "TagSet")
_QUEUE_TAGS = _Get("tags", "list_queue_tags", "Tags")
_TTL = _Get(
    "time_to_live",
    "describe_time_to_live",
    "TimeToLiveDescription",
    "",
    {"TimeToLiveStatus": "DISABLED"},
)
_TABLE_TAGS = _Get("tags", "list_tags_of_resource", "Tags")
_TABLE_POLICY = _Get("policy", "get_resource_policy", "Policy", "PolicyNotFoundException")
_CAPACITY = ("ReadCapacityUnits", "WriteCapacityUnits")
_LOG_GROUP = (
    _Get("metric_filters", "describe_metric_filters", "metricFilters"),
    _Get("subscription_filters", "describe_subscription_filters", "subscriptionFilters"),
    _Get("tags", "list_tags_log_group", "tags"),
)
_QUEUE_DEFAULTS = {
    "DelaySeconds": "0",
    "MaximumMessageSize": "1048576",
    "MessageRetentionPeriod": "345600",
    "ReceiveMessageWaitTimeSeconds": "0",
    "VisibilityTimeout": "30",
    "SqsManagedSseEnabled": "true",
}
"""Attributes of a queue created with none given, as the emulator reports them."""
_FIFO_DEFAULTS = {
    **_QUEUE_DEFAULTS,
    "FifoQueue": "true",
    "ContentBasedDeduplication": "false",
    "DeduplicationScope": "queue",
    "FifoThroughputLimit": "perQueue",
}
"""Attributes of a FIFO queue (named ``*.fifo``, the one kind of queue that may be) created
with only ``FifoQueue`` given."""
_QUEUE_FACTS = frozenset({"CreatedTimestamp", "LastModifiedTimestamp", "QueueArn"})
_LOG_GROUP_FACTS = frozenset(
    {"logGroupName", "creationTime", "metricFilterCount", "arn", "storedBytes", "logGroupArn"}
)
"""What describing a log group tells besides its settings."""
_ACCOUNT = {
    "logs": (
        _Get("resource_policies", "describe_resource_policies", "resourcePolicies"),
        _Get("destinations", "describe_destinations", "destinations"),
        _Get("export_tasks", "describe_export_tasks", "exportTasks"),
        _Get("delivery_sources", "describe_delivery_sources", "deliverySources"),
        _Get("delivery_destinations", "describe_delivery_destinations", "deliveryDestinations"),
        _Get("deliveries", "describe_deliveries", "deliveries"),
    ),
    "dynamodb": (_Get("backups", "list_backups", "BackupSummaries"),),
}
"""Settings of a service that belong to the account, not to one resource."""


def stable(value: Any) -> Any:
    """``value`` as plain JSON without :data:`VOLATILE` fields, JSON texts parsed."""
    if isinstance(value, dict):
        return {str(k): stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list | tuple):
        return [stable(v) for v in value]
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return stable(json.loads(value))
        except (ValueError, RecursionError):
            return value
    return _scalar(value)


def _scalar(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode(errors="replace")
    return value


def _read(client: Any, get: _Get, **parameters: Any) -> Any:
    """The setting ``get`` reads, or None when it is not set."""
    try:
        answer = getattr(client, get.operation)(**parameters)
    except ClientError as exc:
        if get.absent and exc.response.get("Error", {}).get("Code") == get.absent:
            return None
        raise
    value = stable(answer if get.key is None else answer.get(get.key))
    return None if value in (None, {}, [], "", get.default) else value


def _bound(client: Any, get: _Get, **parameters: Any) -> Read:
    return partial(_read, client, get, **parameters)


def _known(value: Any) -> Read:
    """A read of a value known already (None or empty: not set)."""
    return partial(_unless, value, None)


def _unless(value: Any, default: Any) -> Any:
    return None if value in (None, {}, [], "", default) else value


def gather(
    reads: dict[str, Reads],
    objects: dict[str, dict[str, Reads]],
    check: Callable[[], None] = lambda: None,
) -> dict[str, Settings]:
    """Run ``reads`` (by resource, then setting) and ``objects`` (by bucket, object, setting),
    :data:`READERS` at a time; the settings found by resource, an object's under ``objects``
    of its bucket. Resources whose settings are all at their defaults are left out.

    ``check`` is called before each read; what it raises (a deadline passed) stops the reading
    and is raised here, the reads not yet begun then ending as soon as they start."""
    flat = [
        *(((label, name), read) for label, named in reads.items() for name, read in named.items()),
        *(
            ((label, "objects", key, name), read)
            for label, keyed in objects.items()
            for key, named in keyed.items()
            for name, read in named.items()
        ),
    ]
    with ThreadPoolExecutor(READERS) as pool:
        values = list(pool.map(partial(_call, check), [read for _, read in flat]))
    found: dict[str, Settings] = {}
    for path, value in zip((path for path, _ in flat), values, strict=True):
        if value is None:
            continue
        holder = found.setdefault(path[0], {})
        for step in path[1:-1]:
            holder = holder.setdefault(step, {})
        holder[path[-1]] = value
    return found


def _call(check: Callable[[], None], read: Read) -> Any:
    check()
    return read()


def bucket_reads(s3: Any, bucket: str) -> Reads:
    """Reads of the bucket's settings."""
    reads = {get.name: _bound(s3, get, Bucket=bucket) for get in _BUCKET}
    reads["acl"] = partial(_acl_of, s3.get_bucket_acl, Bucket=bucket)
    reads["uploads_in_progress"] = partial(_uploads, s3, bucket)
    return reads


def _uploads(s3: Any, bucket: str) -> Any:
    uploads = _read(s3, _UPLOADS, Bucket=bucket)
    return sorted(u.get("Key", "") for u in uploads) if uploads else None


def _acl_of(operation: Callable[..., dict[str, Any]], **parameters: Any) -> Any:
    """Grants other than the owner's full control, or None when there are none."""
    answer = operation(**parameters)
    owner = answer.get("Owner", {}).get("ID")
    mine = {"Grantee": {"ID": owner, "Type": "CanonicalUser"}, "Permission": "FULL_CONTROL"}
    grants = [stable(grant) for grant in answer.get("Grants", [])]
    return grants if grants != [mine] else None


def object_reads(s3: Any, bucket: str, key: str, head: dict[str, Any]) -> Reads:
    """Reads of an object's settings; ``head`` is what reading it (or its head) answered."""
    storage = head.get("StorageClass", "STANDARD")
    encryption = {k: head[k] for k in ("ServerSideEncryption", "SSEKMSKeyId") if k in head}
    reads: Reads = {
        "storage_class": _known(storage if storage != "STANDARD" else None),
        "encryption": _known(_unless(encryption, {"ServerSideEncryption": "AES256"})),
        "website_redirect": _known(head.get("WebsiteRedirectLocation")),
        "acl": partial(_acl_of, s3.get_object_acl, Bucket=bucket, Key=key),
    }
    if head.get("TagCount"):
        reads["tags"] = _bound(s3, _OBJECT_TAGS, Bucket=bucket, Key=key)
    return reads


def queue_reads(sqs: Any, url: str, attributes: dict[str, str]) -> Reads:
    """Reads of the queue's settings; ``attributes`` are all its attributes (the counts of
    its messages among them, which are left out). A FIFO queue's defaults are its own."""
    defaults = _FIFO_DEFAULTS if attributes.get("FifoQueue") == "true" else _QUEUE_DEFAULTS
    changed = {
        name: stable(value)
        for name, value in sorted(attributes.items())
        if not name.startswith("Approximate")
        and name not in _QUEUE_FACTS
        and defaults.get(name) != value
    }
    return {"attributes": _known(changed), "tags": _bound(sqs, _QUEUE_TAGS, QueueUrl=url)}


def table_reads(dynamodb: Any, name: str, table: dict[str, Any]) -> Reads:
    """Reads of the table's settings; ``table`` is its description."""
    arn = table.get("TableArn", "")
    throughput = table.get("ProvisionedThroughput", {})
    capacity = {k: v for k, v in throughput.items() if k in _CAPACITY}
    stream = table.get("StreamSpecification", {})
    return {
        "billing": _known(
            _unless(table.get("BillingModeSummary", {}).get("BillingMode"), "PAY_PER_REQUEST")
        ),
        "capacity": _known(_unless(capacity, dict.fromkeys(_CAPACITY, 0))),
        "global_indexes": _known(stable(table.get("GlobalSecondaryIndexes"))),
        "local_indexes": _known(stable(table.get("LocalSecondaryIndexes"))),
        "stream": _known(stable(stream) if stream.get("StreamEnabled") else None),
        "encryption": _known(stable(table.get("SSEDescription"))),
        "deletion_protection": _known(table.get("DeletionProtectionEnabled") or None),
        "table_class": _known(
            _unless(table.get("TableClassSummary", {}).get("TableClass"), "STANDARD")
        ),
        "replicas": _known(stable(table.get("Replicas"))),
        "time_to_live": _bound(dynamodb, _TTL, TableName=name),
        "point_in_time_recovery": partial(_recovery, dynamodb, name),
        "tags": _bound(dynamodb, _TABLE_TAGS, ResourceArn=arn),
        "policy": _bound(dynamodb, _TABLE_POLICY, ResourceArn=arn),
    }


def _recovery(dynamodb: Any, name: str) -> Any:
    backups = dynamodb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    status = backups.get("PointInTimeRecoveryDescription", {}).get("PointInTimeRecoveryStatus")
    return _unless(status, "DISABLED")


def log_group_reads(logs: Any, group: dict[str, Any]) -> Reads:
    """Reads of the log group's settings; ``group`` is its description."""
    name = group["logGroupName"]
    described = {k: _known(stable(v)) for k, v in group.items() if k not in _LOG_GROUP_FACTS}
    return described | {get.name: _bound(logs, get, logGroupName=name) for get in _LOG_GROUP}


def account_reads(client_of: Callable[[str], Any]) -> dict[str, Reads]:
    """Reads of each service's account-wide settings, by ``account:SERVICE``."""
    return {
        f"account:{service}": {get.name: _bound(client_of(service), get) for get in gets}
        for service, gets in _ACCOUNT.items()
    }
