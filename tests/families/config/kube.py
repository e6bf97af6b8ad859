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
