"""Workloads: their pods' containers, resource limits and security contexts.

- A workload is a ``Pod``, or a ``Deployment``, ``StatefulSet``, ``DaemonSet`` or ``Job`` whose
  pod template (``spec.template``) says what its pods run; it is named ``Kind ns/name``.
- A container's setting of its security context overrides the pod's (``runAsNonRoot``,
  ``runAsUser``); the other settings checked here exist on containers only. The security
  checks cover every container: init and ephemeral containers too.
- Quantities follow the API's suffixes: ``m`` (milli), ``k M G T P E`` (powers of 1000) and
  ``Ki Mi Gi Ti Pi Ei`` (powers of 1024), and exponents (``1e3``).

Services live in :mod:`.services`; their names are also importable from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from assay.families.config.cluster import container_port, mapping_of, metadata
from assay.families.config.names import dns_label_problem
from assay.families.config.selectors import ObjectError, parse_selector
from assay.families.config.services import (
    SERVICE_TYPES,
    Service,
    ServicePort,
    service_problems,
    services_from_objects,
)

__all__ = [
    "HOST_NAMESPACES",
    "SERVICE_TYPES",
    "WORKLOAD_KINDS",
    "Container",
    "ContainerRules",
    "Service",
    "ServicePort",
    "Workload",
    "added_capabilities",
    "container_problems",
    "inherited",
    "mapping_of",
    "quantity",
    "service_problems",
    "services_from_objects",
    "workloads_from_objects",
]

WORKLOAD_KINDS = ("Pod", "Deployment", "StatefulSet", "DaemonSet", "Job")
HOST_NAMESPACES = ("hostNetwork", "hostPID", "hostIPC")
_KINDS_OF_CONTAINER = {
    "containers": "container",
    "initContainers": "init container",
    "ephemeralContainers": "ephemeral container",
}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?$")
_FACTORS = {
    "": Decimal(1),
    "m": Decimal("0.001"),
    **{s: Decimal(1000) ** (i + 1) for i, s in enumerate("kMGTPE")},
    **{f"{s}i": Decimal(1024) ** (i + 1) for i, s in enumerate("KMGTPE")},
}


@dataclass(frozen=True)
class Container:
    """What the checks look at in one container."""

    name: str
    image: str
    limits: Mapping[str, str]
    requests: Mapping[str, str]
    security: Mapping[str, object]
    host_ports: tuple[int, ...] = ()


@dataclass(frozen=True)
class Workload:
    """A pod or the pod template of a controller."""

    ref: str
    """``Kind ns/name``."""
    labels: Mapping[str, str]
    """The labels its pods carry."""
    pod_security: Mapping[str, object]
    containers: tuple[Container, ...]
    init_containers: tuple[Container, ...] = ()
    ephemeral_containers: tuple[Container, ...] = ()
    replicas: int | None = None
    """How many pods a Deployment or StatefulSet runs (``spec.replicas``, 1 when unset); None
    for other kinds."""
    host_namespaces: tuple[str, ...] = ()
    """Which of ``hostNetwork``, ``hostPID`` and ``hostIPC`` its pods set."""
    host_paths: tuple[str, ...] = ()
    """The node paths its ``hostPath`` volumes mount."""
    held: str | None = None
    """Why its running pods never take a changed template (``spec.paused`` of a Deployment,
    ``updateStrategy`` ``OnDelete`` of a StatefulSet or DaemonSet); None when they do."""
    pod_spec: Mapping[str, object] = field(default_factory=dict)
    """Its pod spec as written, for what :mod:`.powers` reads of it (placement, service
    account, sysctls)."""
    annotations: Mapping[str, object] = field(default_factory=dict)
    """The annotations its pods carry (a controller's are its template's), for what
    :mod:`.powers` reads of them (the AppArmor profile of each container)."""

    @property
    def namespace(self) -> str:
        """The namespace its pods run in."""
        return self.ref.split(" ", 1)[1].split("/", 1)[0]

    def every_container(self) -> list[tuple[str, Container]]:
        """Its containers, init containers and ephemeral containers, each with what it is
        (``container NAME``, ``init container NAME``, ``ephemeral container NAME``)."""
        return [
            (f"{kind} {c.name}", c)
            for kind, listed in (
                ("container", self.containers),
                ("init container", self.init_containers),
                ("ephemeral container", self.ephemeral_containers),
            )
            for c in listed
        ]


def quantity(text: object) -> Decimal:
    """The value of a resource quantity; raises :class:`ObjectError` for one that is not."""
    match = _QUANTITY.match(str(text).strip())
    if not match:
        raise ObjectError(f"{str(text)[:40]!r} is not a quantity")
    number, suffix = match.groups()
    try:
        value = Decimal(number)
        if suffix and suffix[0] in "eE":
            return value * Decimal(10) ** int(suffix[1:])
    except (InvalidOperation, ValueError):
        raise ObjectError(f"{str(text)[:40]!r} is not a quantity") from None
    return value * _FACTORS[suffix or ""]


def workloads_from_objects(objects: Iterable[Mapping[str, object]]) -> dict[str, Workload]:
    """Every workload among ``objects``, by reference."""
    found = {}
    for obj in objects:
        kind = obj.get("kind")
        if kind not in WORKLOAD_KINDS:
            continue
        name, namespace, labels = metadata(obj)
        ref = f"{kind} {namespace}/{name}"
        annotations = mapping_of(mapping_of(obj.get("metadata")).get("annotations"))
        spec = obj.get("spec")
        held = _held(str(kind), spec)
        replicas = None
        if kind in ("Deployment", "StatefulSet"):
            count = mapping_of(spec).get("replicas")
            count = 1 if count is None else count  # the API server's default, null or missing
            if type(count) is not int or count < 0:
                raise ObjectError(f"{ref}: spec.replicas must be a number of at least 0")
            replicas = count
        if kind != "Pod":
            template = spec.get("template") if isinstance(spec, dict) else None
            meta = template.get("metadata") if isinstance(template, dict) else None
            labels = (meta.get("labels") if isinstance(meta, dict) else None) or {}
            annotations = mapping_of(mapping_of(meta).get("annotations"))
            if kind != "Job":
                _selector_matches(spec, labels, ref)
            spec = template.get("spec") if isinstance(template, dict) else None
        if not isinstance(spec, dict):
            raise ObjectError(f"{ref}: has no pod spec")
        found[ref] = Workload(
            ref,
            labels,
            mapping_of(spec.get("securityContext")),
            _containers(spec, "containers", ref),
            _containers(spec, "initContainers", ref),
            _containers(spec, "ephemeralContainers", ref),
            replicas,
            tuple(key for key in HOST_NAMESPACES if spec.get(key) is True),
            _host_paths(spec),
            held,
            spec,
            annotations,
        )
        _unique_names(found[ref])
    return found


def _held(kind: str, spec: object) -> str | None:
    """Why a controller of ``kind`` with ``spec`` rolls no change of its template out to its
    pods: a paused Deployment, or a StatefulSet or DaemonSet that waits for them to be deleted
    by hand."""
    spec = mapping_of(spec)
    if kind == "Deployment" and spec.get("paused") is True:
        return "spec.paused"
    strategy = mapping_of(spec.get("updateStrategy")).get("type")
    if kind in ("StatefulSet", "DaemonSet") and strategy == "OnDelete":
        return "updateStrategy OnDelete"
    return None


def _unique_names(workload: Workload) -> None:
    """No two containers of a pod, of whatever kind, share a name."""
    seen: set[str] = set()
    for where, container in workload.every_container():
        if container.name in seen:
            raise ObjectError(f"{workload.ref}: {where}: name: {container.name!r} is taken")
        seen.add(container.name)


def _host_paths(spec: Mapping[str, object]) -> tuple[str, ...]:
    listed = spec.get("volumes")
    paths = []
    for volume in listed if isinstance(listed, list) else []:
        host = mapping_of(mapping_of(volume).get("hostPath"))
        if host:
            paths.append(str(host.get("path", "")))
    return tuple(paths)


def _selector_matches(spec: object, labels: Mapping[str, str], ref: str) -> None:
    """A controller's ``spec.selector`` must select its own pod template, or the API server
    refuses it (``selector does not match template labels``)."""
    selector = parse_selector(
        spec.get("selector") if isinstance(spec, dict) else None, f"{ref}: spec.selector"
    )
    if not selector.requirements or not selector.matches(labels):
        raise ObjectError(f"{ref}: spec.selector does not match the template's labels")


def _containers(spec: Mapping[str, object], key: str, ref: str) -> tuple[Container, ...]:
    """The containers of a pod spec listed under ``key``, refused as the API server refuses
    them: a port out of range, a quantity that is not one, a request above its limit."""
    listed = spec.get(key)
    containers = []
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, dict):
            continue
        resources = mapping_of(item.get("resources"))
        where = f"{ref}: {_KINDS_OF_CONTAINER[key]} {item.get('name', '')}"
        name = item.get("name")
        problem = dns_label_problem(name) if isinstance(name, str) and name else "is required"
        if problem is not None:
            raise ObjectError(f"{where}: name: {problem}")
        ports = item.get("ports") if isinstance(item.get("ports"), list) else []
        for port in ports or []:
            container_port(port, where)
        host_ports = [mapping_of(port).get("hostPort") for port in ports or []]
        container = Container(
            name=str(item.get("name", "")),
            image=str(item.get("image", "")),
            limits={k: str(v) for k, v in mapping_of(resources.get("limits")).items()},
            requests={k: str(v) for k, v in mapping_of(resources.get("requests")).items()},
            security=mapping_of(item.get("securityContext")),
            host_ports=tuple(p for p in host_ports if type(p) is int and p),
        )
        _check_resources(container, where)
        containers.append(container)
    return tuple(containers)


def _check_resources(container: Container, where: str) -> None:
    try:
        limits = {k: quantity(v) for k, v in container.limits.items()}
        requests = {k: quantity(v) for k, v in container.requests.items()}
    except ObjectError as exc:
        raise ObjectError(f"{where}: resources: {exc}") from None
    for kind, given in (("limits", limits), ("requests", requests)):
        for resource, value in given.items():
            if value < 0:  # ValidateResourceQuantityValue
                raise ObjectError(
                    f"{where}: resources.{kind}.{resource} must be greater than or equal to 0"
                )
    for resource, requested in requests.items():
        if resource in limits and requested > limits[resource]:
            raise ObjectError(
                f"{where}: resources.requests.{resource} must be less than or equal to "
                f"its limit ({container.requests[resource]} > {container.limits[resource]})"
            )


@dataclass(frozen=True)
class ContainerRules:
    """What every container of a workload must have (see :class:`ContainersCheck`)."""

    limits: Sequence[str] = ()
    requests: Sequence[str] = ()
    max_limits: Mapping[str, str] | None = None
    run_as_non_root: bool = False
    read_only_root_filesystem: bool = False
    no_privilege_escalation: bool = False
    drop_all_capabilities: bool = False
    images: Mapping[str, str] | None = None


def container_problems(workload: Workload, rules: ContainerRules) -> list[str]:
    """What ``workload``'s containers lack under ``rules``, one line each; empty when none."""
    problems = []
    if rules.images is not None:
        have = {c.name: c.image for c in workload.containers}
        if have != dict(rules.images):
            problems.append(f"containers {have} are not {dict(rules.images)}")
    for where, c in workload.every_container():
        if not where.startswith("ephemeral"):  # an ephemeral container has no resources
            problems += [f"{where}: no {r} limit" for r in rules.limits if r not in c.limits]
            problems += [f"{where}: no {r} request" for r in rules.requests if r not in c.requests]
        for resource, most in (rules.max_limits or {}).items():
            if resource in c.limits and quantity(c.limits[resource]) > quantity(most):
                problems.append(f"{where}: {resource} limit {c.limits[resource]} is over {most}")
        problems += [f"{where}: {text}" for text in _security_problems(c, workload, rules)]
    return problems


def _security_problems(c: Container, workload: Workload, rules: ContainerRules) -> list[str]:
    """What a container lacks of the hardening ``rules`` ask for; a setting of the container
    overrides the pod's. Running as user 0 is root whatever ``runAsNonRoot`` says, and a
    capability added back is not dropped."""
    security = c.security
    problems = []
    non_root = inherited(c, workload, "runAsNonRoot")
    if rules.run_as_non_root and non_root is not True:
        problems.append("runAsNonRoot is not true")
    if rules.run_as_non_root and _user(c, workload) == 0:
        problems.append("runAsUser is 0 (root)")
    if rules.read_only_root_filesystem and security.get("readOnlyRootFilesystem") is not True:
        problems.append("readOnlyRootFilesystem is not true")
    if rules.no_privilege_escalation and security.get("allowPrivilegeEscalation") is not False:
        problems.append("allowPrivilegeEscalation is not false")
    if rules.drop_all_capabilities:
        dropped = mapping_of(security.get("capabilities")).get("drop")
        if not isinstance(dropped, list) or "ALL" not in dropped:
            problems.append("capabilities.drop does not hold ALL")
        added = added_capabilities(c)
        if added:
            problems.append(f"capabilities.add holds {', '.join(added)}")
    if security.get("privileged") is True and (
        rules.run_as_non_root or rules.no_privilege_escalation or rules.drop_all_capabilities
    ):
        problems.append("privileged")
    return problems


def _user(c: Container, workload: Workload) -> object:
    return inherited(c, workload, "runAsUser")


def inherited(c: Container, workload: Workload, key: str) -> object:
    """A setting of the container's security context, or the pod's when the container leaves
    it unset: missing or null (the API server reads ``runAsUser: null`` as no value)."""
    value = c.security.get(key)
    return workload.pod_security.get(key) if value is None else value


def added_capabilities(c: Container) -> list[str]:
    added = mapping_of(c.security.get("capabilities")).get("add")
    return [str(a) for a in added] if isinstance(added, list) else []
