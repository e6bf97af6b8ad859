"""From objects to meaning: the cluster with a submission applied, its reachability and its
permissions. Pure Python over parsed, size-bounded data."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from assay.families.config.cluster import DEFAULT_NAMESPACE, cluster_from_objects
from assay.families.config.names import check_metadata
from assay.families.config.network import Reachability, policies_from_objects
from assay.families.config.powers import account_tokens
from assay.families.config.rbac import Permissions
from assay.families.config.selectors import ObjectError
from assay.families.config.services import Service, services_from_objects
from assay.families.config.workloads import Workload, workloads_from_objects

CLUSTER_SCOPED = frozenset({"Namespace", "ClusterRole", "ClusterRoleBinding"})

Identity = tuple[str, str | None, str]


@dataclass(frozen=True)
class Meaning:
    """What a set of objects means."""

    reachability: Reachability
    permissions: Permissions
    workloads: Mapping[str, Workload]
    """By ``Kind ns/name``."""
    services: Mapping[str, Service]
    """By ``ns/name``."""
    accounts: Mapping[str, bool] = field(default_factory=dict)
    """Whether pods mount the token of each ``ServiceAccount`` that says so, by ``ns/name``
    (:func:`~.powers.account_tokens`)."""


def identity(obj: Mapping[str, object]) -> Identity:
    """``(kind, namespace, name)``; namespace None for cluster-scoped kinds."""
    kind = str(obj.get("kind"))
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name = str(meta.get("name") or "")
    if kind in CLUSTER_SCOPED:
        return kind, None, name
    return kind, str(meta.get("namespace") or DEFAULT_NAMESPACE), name


def label(key: Identity) -> str:
    """``Kind ns/name`` or ``Kind name``."""
    kind, namespace, name = key
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def applied(
    existing: Iterable[Mapping[str, object]], submitted: Sequence[Mapping[str, object]]
) -> list[Mapping[str, object]]:
    """The cluster's objects after ``kubectl apply`` of ``submitted``: an object of the same
    kind, namespace and name is replaced. Raises :class:`ObjectError` when the submission
    declares one object twice."""
    objects: dict[Identity, Mapping[str, object]] = {identity(obj): obj for obj in existing}
    seen: set[Identity] = set()
    for obj in submitted:
        key = identity(obj)
        if key in seen:
            raise ObjectError(f"{label(key)} is declared twice")
        seen.add(key)
        objects[key] = obj
    return list(objects.values())


def meaning(objects: Sequence[Mapping[str, object]]) -> Meaning:
    """What ``objects`` mean; raises :class:`ObjectError` for one the API server refuses."""
    for obj in objects:
        if not isinstance(obj, Mapping):
            raise ObjectError("a document is not a YAML mapping (an object)")
        key = identity(obj)
        check_metadata(obj, label(key), namespaced=key[1] is not None)
    cluster = cluster_from_objects(objects)
    return Meaning(
        Reachability(cluster, policies_from_objects(objects)),
        Permissions(objects),
        workloads_from_objects(objects),
        services_from_objects(objects),
        account_tokens(objects),
    )
