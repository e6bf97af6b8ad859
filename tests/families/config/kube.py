"""Builders of Kubernetes objects for the config family's tests, as plain data."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def namespace(name: str, **labels: str) -> Obj:
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def pod(ref: str, ip: str | None = None, ports: str = "", **labels: str) -> Obj:
    """A pod; ``ports`` like ``"http=8080 dns=53/UDP 9000"`` (name=number/protocol)."""
    ns, name = ref.split("/")
    declared = []
    for item in ports.split():
        port_name, _, rest = item.rpartition("=")
        number, _, protocol = rest.partition("/")
        port: Obj = {"containerPort": int(number), "protocol": protocol or "TCP"}
        if port_name:
            port["name"] = port_name
        declared.append(port)
    container: Obj = {"name": "main", "image": "example/app:1"}
    if declared:
        container["ports"] = declared
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {"containers": [container]},
    }
    if ip:
        obj["status"] = {"podIP": ip}
    return obj


def policy(ref: str, spec: Obj) -> Obj:
    ns, name = ref.split("/")
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def rule(verbs: str, resources: str, groups: str = "", names: str = "") -> Obj:
    """A policy rule from space-separated lists; ``groups`` uses ``core`` for ``""``."""
    found: Obj = {
        "apiGroups": ["" if g == "core" else g for g in (groups or "core").split()],
        "resources": resources.split(),
        "verbs": verbs.split(),
    }
    if names:
        found["resourceNames"] = names.split()
    return found


def role(ref: str, *rules: Obj) -> Obj:
    ns, name = ref.split("/")
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": name, "namespace": ns},
        "rules": list(rules),
    }


def cluster_role(name: str, *rules: Obj, labels: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = labels
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": meta,
        "rules": list(rules),
    }


def subject(text: str) -> Obj:
    """``User:alice``, ``Group:devs``, ``ServiceAccount:ns/name`` or ``ServiceAccount:name``."""
    kind, _, name = text.partition(":")
    found: Obj = {"kind": kind, "name": name}
    if kind == "ServiceAccount":
        ns, _, account = name.rpartition("/")
        found["name"] = account
        if ns:
            found["namespace"] = ns
    else:
        found["apiGroup"] = "rbac.authorization.k8s.io"
    return found


def binding(ref: str, role_ref: str, *subjects: str) -> Obj:
    """A RoleBinding (``ns/name``) or ClusterRoleBinding (``name``); ``role_ref`` is
    ``Role:name`` or ``ClusterRole:name``."""
    ns, _, name = ref.rpartition("/")
    kind, _, role_name = role_ref.partition(":")
    meta: Obj = {"name": name}
    if ns:
        meta["namespace"] = ns
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding" if ns else "ClusterRoleBinding",
        "metadata": meta,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role_name},
        "subjects": [subject(s) for s in subjects],
    }
