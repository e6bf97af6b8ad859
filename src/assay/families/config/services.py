"""Services: whether a Service selects the pods it should and reaches their ports, and how it
opens them to outside the cluster.

- A Service selects the pods of its own namespace whose labels include every pair of its
  ``selector``; a Service without a selector selects nothing, and so does one of type
  ``ExternalName`` (the endpoint controllers skip it: it is a DNS alias).
- A port's ``targetPort`` is a number, a name resolved against each selected pod's container
  ports, or, when missing, the port's ``port``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from assay.families.config.cluster import Cluster, Pod, mapping_of, metadata
from assay.families.config.names import dns_label_problem, port_name_problem
from assay.families.config.selectors import ObjectError

SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
"""The types of Service the API server knows (it refuses any other, ``loadbalancer`` too)."""


@dataclass(frozen=True)
class ServicePort:
    """One port of a Service."""

    port: int
    target: int | str
    protocol: str


@dataclass(frozen=True)
class Service:
    """A Service: its namespace, selector and ports."""

    ref: str
    """``ns/name``."""
    namespace: str
    selector: Mapping[str, str] | None
    ports: tuple[ServicePort, ...]
    exposure: tuple[str, ...] = ()
    """How it opens its pods to outside the cluster: ``type NodePort`` or ``type LoadBalancer``
    (a port on every node, an address of the world), ``externalIPs`` (addresses it takes
    over)."""

    def selects(self, pod: Pod) -> bool:
        """Whether ``pod`` is one of this Service's endpoints."""
        if not self.selector or pod.namespace != self.namespace:
            return False
        return all(pod.labels.get(k) == v for k, v in self.selector.items())


def services_from_objects(objects: Iterable[Mapping[str, object]]) -> dict[str, Service]:
    """Every ``Service`` among ``objects``, by ``ns/name``."""
    found = {}
    for obj in objects:
        if obj.get("kind") != "Service":
            continue
        name, namespace, _labels = metadata(obj)
        spec = mapping_of(obj.get("spec"))
        selector = spec.get("selector")
        kind = spec.get("type") or "ClusterIP"  # the API server's default
        if kind not in SERVICE_TYPES:
            raise ObjectError(
                f"Service {namespace}/{name}: spec.type: {str(kind)[:40]!r} is not one of "
                + ", ".join(SERVICE_TYPES)
            )
        if kind == "ExternalName":  # a DNS name: no endpoints, whatever it selects
            selector = None
        ports = []
        listed = spec.get("ports")
        listed = listed if isinstance(listed, list) else []
        names: set[str] = set()
        for index, item in enumerate(listed):
            port = mapping_of(item)
            number = port.get("port")
            if type(number) is not int:
                raise ObjectError(f"Service {namespace}/{name}: a port needs a number")
            where = f"Service {namespace}/{name}: spec.ports[{index}]"
            names.add(_port_name(port.get("name"), names, len(listed) > 1, where))
            if port.get("nodePort") and kind in ("ClusterIP", "ExternalName"):
                raise ObjectError(f"{where}.nodePort: may not be used when type is {kind}")
            target = port.get("targetPort", number)
            problem = port_name_problem(target) if isinstance(target, str) else None
            if problem is not None:
                raise ObjectError(f"{where}.targetPort: {problem}")
            ports.append(
                ServicePort(
                    number,
                    target if isinstance(target, int | str) else number,
                    str(port.get("protocol") or "TCP"),
                )
            )
        found[f"{namespace}/{name}"] = Service(
            f"{namespace}/{name}",
            namespace,
            {str(k): str(v) for k, v in selector.items()} if isinstance(selector, dict) else None,
            tuple(ports),
            _exposure(spec),
        )
    return found


def _exposure(spec: Mapping[str, object]) -> tuple[str, ...]:
    found = []
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        found.append(f"type {spec['type']}")
    addresses = spec.get("externalIPs")
    if isinstance(addresses, list) and addresses:
        found.append(f"externalIPs {', '.join(str(a) for a in addresses)[:200]}")
    return tuple(found)


def _port_name(name: object, taken: set[str], required: bool, where: str) -> str:
    """A Service port's name: a DNS-1123 label, unique, required when there are several."""
    if not isinstance(name, str) or not name:
        if required:
            raise ObjectError(f"{where}.name: is required when a Service has several ports")
        return ""
    problem = dns_label_problem(name)
    if problem is not None:
        raise ObjectError(f"{where}.name: {problem}")
    if name in taken:
        raise ObjectError(f"{where}.name: {name!r} is taken by another port")
    return name


def service_problems(
    service: Service, cluster: Cluster, expected: Sequence[str], ports: Sequence[int] = ()
) -> list[str]:
    """How ``service`` differs from selecting exactly the pods ``expected``, reaching a
    declared port of each on every port, and (when given) serving exactly ``ports``; empty
    when it does not."""
    selected = [pod for pod in cluster.pods if service.selects(pod)]
    refs = {pod.ref for pod in selected}
    problems = []
    served = sorted({port.port for port in service.ports})
    if ports and served != sorted(set(ports)):
        problems.append(f"serves ports {served}, not {sorted(set(ports))}")
    problems += [f"does not select {ref}" for ref in sorted(set(expected) - refs)]
    problems += [f"selects {ref}, which it should not" for ref in sorted(refs - set(expected))]
    for pod in selected:
        for port in service.ports:
            if isinstance(port.target, str):
                if pod.named_port(port.target, port.protocol) is None:
                    problems.append(f"targetPort {port.target!r} is not a port of {pod.ref}")
            elif not any(
                p.number == port.target and p.protocol == port.protocol for p in pod.ports
            ):
                problems.append(f"targetPort {port.target} is not a port of {pod.ref}")
    return problems
