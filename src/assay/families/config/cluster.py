"""The cluster a task describes: namespaces with their labels, and pods with their labels, IPs
and container ports, read from ``Namespace`` and ``Pod`` objects.

Every namespace carries the label ``kubernetes.io/metadata.name`` set to its name, as the API
server adds it (Kubernetes 1.21 and later); a pod's namespace that has no ``Namespace`` object
still exists, with that label only. An object without ``metadata.namespace`` is in ``default``,
where ``kubectl apply`` would put it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from assay.families.config.names import port_name_problem
from assay.families.config.selectors import ObjectError

NAME_LABEL = "kubernetes.io/metadata.name"
DEFAULT_NAMESPACE = "default"
PROTOCOLS = ("TCP", "UDP", "SCTP")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class ContainerPort:
    """A port a pod's container declares."""

    number: int
    protocol: str = "TCP"
    name: str | None = None


@dataclass(frozen=True)
class Pod:
    """One pod: where it is, its labels, its IP (``status.podIP``) and its declared ports."""

    namespace: str
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    ip: IPAddress | None = None
    ports: tuple[ContainerPort, ...] = ()

    @property
    def ref(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def named_port(self, name: str, protocol: str) -> int | None:
        """The number of the container port called ``name`` with ``protocol``, if declared."""
        for port in self.ports:
            if port.name == name and port.protocol == protocol:
                return port.number
        return None


@dataclass(frozen=True)
class Cluster:
    """Namespaces (name to labels, the automatic label included) and pods, in a stable order."""

    namespaces: Mapping[str, Mapping[str, str]]
    pods: tuple[Pod, ...]

    def namespace_labels(self, name: str) -> Mapping[str, str]:
        """The labels of namespace ``name``; the automatic label alone when it is undeclared."""
        return self.namespaces.get(name, {NAME_LABEL: name})

    def pod(self, ref: str) -> Pod:
        """The pod called ``namespace/name``; raises :class:`KeyError` when there is none."""
        for pod in self.pods:
            if pod.ref == ref:
                return pod
        raise KeyError(ref)


def make_cluster(namespaces: Mapping[str, Mapping[str, str]], pods: Iterable[Pod]) -> Cluster:
    """A cluster of ``namespaces`` (their declared labels) and ``pods``, sorted by reference."""
    labelled = {name: {**labels, NAME_LABEL: name} for name, labels in namespaces.items()}
    ordered = tuple(sorted(pods, key=lambda pod: (pod.namespace, pod.name)))
    for pod in ordered:
        labelled.setdefault(pod.namespace, {NAME_LABEL: pod.namespace})
    return Cluster(namespaces=labelled, pods=ordered)


def cluster_from_objects(objects: Iterable[Mapping[str, object]]) -> Cluster:
    """The cluster described by ``Namespace`` and ``Pod`` objects (others are ignored).

    Raises :class:`ObjectError` for a pod or namespace declared twice, or a field the API
    server would refuse (a port out of range, an unknown protocol, an IP that is not one).
    """
    namespaces: dict[str, Mapping[str, str]] = {}
    pods: dict[str, Pod] = {}
    for obj in objects:
        kind = obj.get("kind")
        if kind == "Namespace":
            name, _namespace, labels = metadata(obj)
            if name in namespaces:
                raise ObjectError(f"Namespace {name} is declared twice")
            namespaces[name] = labels
        elif kind == "Pod":
            pod = pod_from_object(obj)
            if pod.ref in pods:
                raise ObjectError(f"Pod {pod.ref} is declared twice")
            pods[pod.ref] = pod
    return make_cluster(namespaces, pods.values())


def metadata(obj: Mapping[str, object]) -> tuple[str, str, dict[str, str]]:
    """An object's name, namespace (``default`` when unset) and labels."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise ObjectError(f"{obj.get('kind')}: metadata.name is required")
    namespace = meta.get("namespace") or DEFAULT_NAMESPACE
    labels = meta.get("labels") or {}
    if not isinstance(namespace, str) or not isinstance(labels, dict):
        raise ObjectError(f"{obj.get('kind')} {meta['name']}: malformed metadata")
    if not all(isinstance(v, str) for v in labels.values()):
        raise ObjectError(f"{obj.get('kind')} {meta['name']}: label values must be strings")
    return meta["name"], namespace, labels


def pod_from_object(obj: Mapping[str, object]) -> Pod:
    """The :class:`Pod` a ``Pod`` object describes."""
    name, namespace, labels = metadata(obj)
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    if not isinstance(spec, dict) or not isinstance(status, dict):
        raise ObjectError(f"Pod {namespace}/{name}: malformed spec or status")
    ports: list[ContainerPort] = []
    for container in spec.get("containers") or []:
        for port in (container.get("ports") if isinstance(container, dict) else None) or []:
            ports.append(container_port(port, f"Pod {namespace}/{name}"))
    ip = status.get("podIP")
    try:
        address = ipaddress.ip_address(ip) if isinstance(ip, str) and ip else None
    except ValueError:
        raise ObjectError(f"Pod {namespace}/{name}: status.podIP {ip!r} is not an IP") from None
    return Pod(namespace, name, labels, address, tuple(ports))


def container_port(port: object, where: str) -> ContainerPort:
    """A container port as the API server accepts it (a name, when set, an IANA_SVC_NAME);
    raises :class:`ObjectError`."""
    if not isinstance(port, dict):
        raise ObjectError(f"{where}: a container port must be an object")
    number, name = port.get("containerPort"), port.get("name")
    protocol = port.get("protocol", "TCP")
    if type(number) is not int or not 0 < number < 65536:
        raise ObjectError(f"{where}: containerPort {number!r} is not in 1-65535")
    if protocol not in PROTOCOLS:
        raise ObjectError(f"{where}: protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    if name is not None and not isinstance(name, str):
        raise ObjectError(f"{where}: a port name must be a string")
    problem = port_name_problem(name) if name else None
    if problem is not None:
        raise ObjectError(f"{where}: ports.name: {problem}")
    return ContainerPort(number, str(protocol), name or None)


def mapping_of(value: object) -> Mapping[str, object]:
    """``value`` when it is a mapping (an object of the YAML), else an empty one."""
    return value if isinstance(value, dict) else {}
