"""The cluster roles every Kubernetes cluster has, written as the objects the API server makes
of them when it starts (its RBAC bootstrap policy), for :mod:`.rbac`.

- ``cluster-admin``: every verb on every resource and every non-resource URL.
- ``admin``, ``edit`` and ``view``: aggregated roles. ``view`` gathers the roles labelled
  ``rbac.authorization.k8s.io/aggregate-to-view`` and is itself labelled to aggregate into
  ``edit``, which gathers ``aggregate-to-edit`` and aggregates into ``admin``, which gathers
  ``aggregate-to-admin``. Their default rules live in ``system:aggregate-to-view`` (reading
  most namespaced resources, not secrets), ``system:aggregate-to-edit`` (secrets, writing
  workloads, services, config maps and secrets, executing in pods; no roles or bindings) and
  ``system:aggregate-to-admin`` (roles and role bindings, local access reviews). A role of a
  submission carrying one of these labels adds its rules to them.
- Any other ``system:`` cluster role: many exist (controllers, nodes, the scheduler), several
  with every right; one is taken to grant everything, whether an object declares it or not
  (the API server puts a bootstrap role's rules back when it starts, so declaring
  ``system:kube-controller-manager`` with one narrow rule narrows nothing).
"""

from __future__ import annotations

from typing import Any

RBAC = "rbac.authorization.k8s.io"
AGGREGATE_TO = f"{RBAC}/aggregate-to-"
SYSTEM = "system:"
READ = ("get", "list", "watch")
WRITE = ("create", "update", "patch", "delete", "deletecollection")

Obj = dict[str, Any]


def _rule(verbs: tuple[str, ...], group: str, resources: str) -> Obj:
    return {"apiGroups": [group], "resources": resources.split(), "verbs": list(verbs)}


def _cluster_role(
    name: str, rules: list[Obj], *, into: str | None = None, gathers: str | None = None
) -> Obj:
    labels = {"kubernetes.io/bootstrapping": "rbac-defaults"}
    if into:
        labels[f"{AGGREGATE_TO}{into}"] = "true"
    role: Obj = {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": labels},
        "rules": rules,
    }
    if gathers:
        selector = {"matchLabels": {f"{AGGREGATE_TO}{gathers}": "true"}}
        role["aggregationRule"] = {"clusterRoleSelectors": [selector]}
    return role


EVERYTHING: list[Obj] = [
    {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
    {"nonResourceURLs": ["*"], "verbs": ["*"]},
]
"""The rules of ``cluster-admin``, and of any other ``system:`` cluster role."""

_VIEW = [
    _rule(
        READ,
        "",
        "pods replicationcontrollers replicationcontrollers/scale serviceaccounts services "
        "services/status endpoints persistentvolumeclaims persistentvolumeclaims/status "
        "configmaps",
    ),
    _rule(
        READ,
        "",
        "limitranges resourcequotas bindings events pods/status resourcequotas/status "
        "namespaces/status replicationcontrollers/status pods/log",
    ),
    _rule(READ, "", "namespaces"),
    _rule(READ, "discovery.k8s.io", "endpointslices"),
    _rule(
        READ,
        "apps",
        "controllerrevisions statefulsets statefulsets/scale statefulsets/status daemonsets "
        "daemonsets/status deployments deployments/scale deployments/status replicasets "
        "replicasets/scale replicasets/status",
    ),
    _rule(READ, "autoscaling", "horizontalpodautoscalers horizontalpodautoscalers/status"),
    _rule(READ, "batch", "jobs cronjobs cronjobs/status jobs/status"),
    _rule(
        READ,
        "extensions",
        "daemonsets daemonsets/status deployments deployments/scale deployments/status "
        "ingresses ingresses/status replicasets replicasets/scale replicasets/status "
        "replicationcontrollers/scale networkpolicies",
    ),
    _rule(READ, "policy", "poddisruptionbudgets poddisruptionbudgets/status"),
    _rule(READ, "networking.k8s.io", "networkpolicies ingresses ingresses/status"),
]
_EDIT = [
    _rule(READ, "", "pods/attach pods/proxy pods/exec pods/portforward secrets services/proxy"),
    _rule(("impersonate",), "", "serviceaccounts"),
    _rule(WRITE, "", "pods pods/attach pods/proxy pods/exec pods/portforward"),
    _rule(("create",), "", "pods/eviction"),
    _rule(
        WRITE,
        "",
        "replicationcontrollers replicationcontrollers/scale serviceaccounts services "
        "services/proxy persistentvolumeclaims configmaps secrets events",
    ),
    _rule(("create",), "", "serviceaccounts/token"),
    _rule(
        WRITE,
        "apps",
        "statefulsets statefulsets/scale daemonsets deployments deployments/scale "
        "deployments/rollback replicasets replicasets/scale",
    ),
    _rule(WRITE, "autoscaling", "horizontalpodautoscalers"),
    _rule(WRITE, "batch", "jobs cronjobs"),
    _rule(
        WRITE,
        "extensions",
        "daemonsets deployments deployments/scale deployments/rollback ingresses replicasets "
        "replicasets/scale replicationcontrollers/scale networkpolicies",
    ),
    _rule(WRITE, "policy", "poddisruptionbudgets"),
    _rule(WRITE, "networking.k8s.io", "networkpolicies ingresses"),
    _rule(READ + WRITE, "coordination.k8s.io", "leases"),
]
_ADMIN = [
    _rule(READ + WRITE, RBAC, "roles rolebindings"),
    _rule(("create",), "authorization.k8s.io", "localsubjectaccessreviews"),
]

CLUSTER_ROLES: tuple[Obj, ...] = (
    _cluster_role("cluster-admin", EVERYTHING),
    _cluster_role("admin", [], gathers="admin"),
    _cluster_role("edit", [], into="admin", gathers="edit"),
    _cluster_role("view", [], into="edit", gathers="view"),
    _cluster_role("system:aggregate-to-admin", _ADMIN, into="admin"),
    _cluster_role("system:aggregate-to-edit", _EDIT, into="edit"),
    _cluster_role("system:aggregate-to-view", _VIEW, into="view"),
)
"""The built-in cluster roles modelled with their rules, as the API server creates them."""
