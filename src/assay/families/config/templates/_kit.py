"""What a config template is, and the builders its objects are made with.

A template draws a :class:`Problem` from a random generator: a cluster (namespaces, pods with
labels, IPs and named ports, existing objects), the requirement written in each locale (as a
precise specification, as a terse ticket, and, where a prompt can reasonably be read two ways,
as a vague request with an expectation and a reference per reading), what the submission must
mean (``expected.toml`` as data), the reference objects and the known-bad ones real people
write. Objects are plain data; the generator writes them as YAML.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]
Text = Mapping[str, str]
"""One text in each locale (``en``, ``de``, ``fr``)."""
LOCALES = ("en", "de", "fr")
RBAC_API = "rbac.authorization.k8s.io"
NAME_LABEL = "kubernetes.io/metadata.name"


@dataclass(frozen=True)
class Reading:
    """Another reasonable reading of a vague request: what it requires, and its reference."""

    name: str
    expected: Obj
    reference: list[Obj]


@dataclass(frozen=True)
class Problem:
    """One drawn task of a template."""

    kinds: tuple[str, ...]
    """What a submission may hold."""
    cluster: list[Obj]
    precise: Text
    """The requirement, stated completely."""
    terse: Text
    """The requirement as a one-line ticket would put it (still complete)."""
    expected: Obj
    """``expected.toml`` as data."""
    reference: list[Obj]
    bad: dict[str, list[Obj]]
    """Known-bad objects by label (``allow-all``)."""
    vague: Text | None = None
    """The request as written by someone who leaves a choice open; None when the template
    has no such reading."""
    readings: tuple[Reading, ...] = ()
    """The other readings of the vague request (the first is ``expected``)."""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Template:
    """A seeded recipe for tasks of one kind."""

    id: str
    category: str
    difficulty: str
    build: Callable[[random.Random], Problem] = field(repr=False)


def text(en: str, de: str, fr: str) -> Text:
    """A text in every locale."""
    return {"en": en, "de": de, "fr": fr}


def suffix(rng: random.Random) -> str:
    """A pod-name suffix like a ReplicaSet's."""
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))


def namespace(name: str, **labels: str) -> Obj:
    """A Namespace object."""
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def pod(
    ns: str, name: str, labels: Mapping[str, str], ip: str, ports: Sequence[tuple[str, int, str]]
) -> Obj:
    """A Pod with one container per port group; ``ports`` are (name, number, protocol)."""
    container: Obj = {"name": labels.get("app", "main"), "image": f"registry.example.com/{name}:1"}
    if ports:
        container["ports"] = [
            {"name": port_name, "containerPort": number, "protocol": protocol}
            for port_name, number, protocol in ports
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": dict(labels)},
        "spec": {"containers": [container]},
        "status": {"podIP": ip},
    }


def netpol(ns: str, name: str, selector: Mapping[str, str] | None, **spec: Any) -> Obj:
    """A NetworkPolicy; ``selector`` None selects every pod of ``ns``."""
    body: Obj = {"podSelector": {"matchLabels": dict(selector)} if selector else {}}
    body.update(spec)
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns},
        "spec": body,
    }


def peer(namespace_name: str | None = None, **pod_labels: str) -> Obj:
    """A peer: pods with ``pod_labels`` in ``namespace_name`` (both selectors in one peer), or
    only one of the two."""
    found: Obj = {}
    if namespace_name is not None:
        found["namespaceSelector"] = {"matchLabels": {NAME_LABEL: namespace_name}}
    if pod_labels:
        found["podSelector"] = {"matchLabels": dict(pod_labels)}
    return found


def ports(*numbers: int | str, protocol: str = "TCP") -> list[Obj]:
    """Policy ports."""
    return [{"protocol": protocol, "port": number} for number in numbers]


def rule(verbs: str, resources: str, group: str = "", names: Sequence[str] = ()) -> Obj:
    """A PolicyRule from space-separated verbs and resources."""
    found: Obj = {"apiGroups": [group], "resources": resources.split(), "verbs": verbs.split()}
    if names:
        found["resourceNames"] = list(names)
    return found


def role(ns: str | None, name: str, *rules: Obj) -> Obj:
    """A Role in ``ns``, or a ClusterRole when ``ns`` is None."""
    meta: Obj = {"name": name} if ns is None else {"name": name, "namespace": ns}
    kind = "ClusterRole" if ns is None else "Role"
    return {"apiVersion": f"{RBAC_API}/v1", "kind": kind, "metadata": meta, "rules": list(rules)}


def binding(ns: str | None, name: str, role_ref: str, *subjects: str) -> Obj:
    """A RoleBinding in ``ns`` (a ClusterRoleBinding when None) of ``Kind:name`` to subjects
    written ``User:NAME``, ``Group:NAME`` or ``ServiceAccount:NS/NAME`` (``ServiceAccount:NAME``
    leaves the namespace out)."""
    role_kind, _, role_name = role_ref.partition(":")
    listed = []
    for subject in subjects:
        kind, _, who = subject.partition(":")
        if kind == "ServiceAccount":
            sa_ns, _, sa_name = who.rpartition("/")
            entry: Obj = {"kind": kind, "name": sa_name}
            if sa_ns:
                entry["namespace"] = sa_ns
        else:
            entry = {"kind": kind, "name": who, "apiGroup": RBAC_API}
        listed.append(entry)
    meta: Obj = {"name": name} if ns is None else {"name": name, "namespace": ns}
    return {
        "apiVersion": f"{RBAC_API}/v1",
        "kind": "ClusterRoleBinding" if ns is None else "RoleBinding",
        "metadata": meta,
        "subjects": listed,
        "roleRef": {"apiGroup": RBAC_API, "kind": role_kind, "name": role_name},
    }


def service_account(ns: str, name: str) -> Obj:
    """A ServiceAccount object (for the cluster description)."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": ns},
    }


def reach(source: str | list[str], to: str | list[str], allowed: bool, **extra: Any) -> Obj:
    """One ``[[reachability]]`` requirement."""
    return {"from": source, "to": to, "allowed": allowed, **extra}


APPS: dict[str, list[tuple[str, int, str]]] = {
    "web": [("http", 8080, "TCP")],
    "api": [("http", 8080, "TCP"), ("metrics", 9090, "TCP")],
    "worker": [("metrics", 9100, "TCP")],
    "postgres": [("postgres", 5432, "TCP"), ("metrics", 9187, "TCP")],
    "redis": [("redis", 6379, "TCP")],
    "mysql": [("mysql", 3306, "TCP")],
    "prometheus": [("web", 9090, "TCP")],
    "keycloak": [("http", 8080, "TCP"), ("https", 8443, "TCP")],
    "ledger": [("grpc", 50051, "TCP")],
    "gateway": [("https", 8443, "TCP")],
}
TEAMS = ("shop", "billing", "search", "identity", "platform", "payments", "catalog", "growth")


@dataclass
class ClusterBuilder:
    """Namespaces and pods with addresses given out in order, one /16 per namespace."""

    rng: random.Random
    objects: list[Obj] = field(default_factory=list)
    pods: dict[str, list[str]] = field(default_factory=dict)
    """Pod references by ``ns/app``."""
    _subnets: dict[str, int] = field(default_factory=dict)
    _hosts: dict[str, int] = field(default_factory=dict)

    def namespace(self, name: str, **labels: str) -> str:
        """Declare a namespace (with ``team`` and any other labels)."""
        self._subnets[name] = len(self._subnets) + 1
        self._hosts[name] = 10
        self.objects.append(namespace(name, **labels))
        return name

    def app(
        self,
        ns: str,
        app: str,
        replicas: int = 1,
        *,
        ip: str | None = None,
        declared: Sequence[tuple[str, int, str]] | None = None,
        **labels: str,
    ) -> list[str]:
        """``replicas`` pods of ``app`` in ``ns`` (with the ports of :data:`APPS` unless
        ``declared``); returns their references."""
        refs = []
        for _ in range(replicas):
            name = f"{app}-{suffix(self.rng)}"
            self._hosts[ns] += 1
            address = ip or f"10.{self._subnets[ns]}.0.{self._hosts[ns]}"
            listed = APPS[app] if declared is None else declared
            self.objects.append(pod(ns, name, {"app": app, **labels}, address, listed))
            refs.append(f"{ns}/{name}")
        self.pods.setdefault(f"{ns}/{app}", []).extend(refs)
        return refs

    def add(self, *objects: Obj) -> None:
        """Existing objects of the cluster (policies, roles, workloads)."""
        self.objects.extend(objects)

    def everyone_but(self, *refs: str) -> list[str]:
        """Every pod reference except ``refs``."""
        excluded = set(refs)
        return [ref for group in self.pods.values() for ref in group if ref not in excluded]


def team_namespaces(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct team names."""
    return rng.sample(TEAMS, count)


def typo(word: str, rng: random.Random) -> str:
    """``word`` with one plausible slip: a doubled letter, or two letters swapped."""
    index = rng.randrange(1, len(word))
    if rng.random() < 0.5 or len(word) < 3:
        return word[:index] + word[index - 1] + word[index:]
    index = min(index, len(word) - 1)
    swapped = word[: index - 1] + word[index] + word[index - 1] + word[index + 1 :]
    return swapped if swapped != word else word + "s"


def four_namespaces(rng: random.Random) -> tuple[ClusterBuilder, str, str, str]:
    """A cluster of an app namespace, a data namespace, a web namespace and monitoring."""
    built = ClusterBuilder(rng)
    app_ns, web_ns = team_namespaces(rng, 2)
    built.namespace(app_ns, team=app_ns)
    built.namespace("data", team="data")
    built.namespace(web_ns, team=web_ns)
    built.namespace("monitoring", team="observability")
    return built, app_ns, "data", web_ns
