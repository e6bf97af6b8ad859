"""What no configuration task asks for and every one forbids: letting in someone it never names.

A task's requirements (:mod:`.expectations`) judge the pods of its cluster and the subjects its
prompt names. A submission can meet them all and still open the door to someone else: a rule
that admits ``0.0.0.0/0`` or ``::/0`` (the internet, which no pod of the cluster is), a
namespace selector that matches namespaces made later, the right role bound to
``system:authenticated``, ``system:unauthenticated`` or every service account. Two criteria,
judged against the task's reference solution applied to the same cluster, catch that:

``no one else gets in``
    For every pod of the cluster and every port it declares, a source outside the cluster's
    pods (:data:`~.network.OUTSIDE`) may connect only where the reference lets it; and every
    pod may connect to an address of the world only on ports where the reference lets it.
``no one else gains rights``
    Every subject but those the requirements give rights to (anonymous, any authenticated user,
    a service account of each namespace, and every subject a binding names) holds nothing the
    reference does not give it.

A requirement that wants outsiders in (``from = "*"``, allowed) is met by the reference too, so
the guard asks nothing the reference does not do. Without a reference, or where the reference's
cluster could not be read, there is no guard.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assay.families.config.cluster import Pod
from assay.families.config.expectations import Expectations, criterion
from assay.families.config.meaning import Meaning
from assay.families.config.network import OUTSIDE, WORLD, Reachability
from assay.families.config.rbac import Grant, Permissions, Subject, describe
from assay.verdicts import Criterion

CLEAN = "none beyond the reference"
WORLD_PORTS = ((53, "UDP"), (53, "TCP"), (80, "TCP"), (443, "TCP"))
"""Ports on which a pod's connections to the world are compared, with every port the policies
and pods name."""
BYSTANDERS = (
    Subject("User", "system:anonymous", groups=("system:unauthenticated",)),
    Subject("User", "someone-authenticated", groups=("system:authenticated",)),
)


def guard_criteria(
    found: Meaning, reference: Meaning, expected: Iterable[Expectations]
) -> tuple[Criterion, ...]:
    """The two guards' criteria: only those the reference's meaning makes relevant (a task
    with no network policy in its reference has no reachability guard, and one with no RBAC
    object no rights guard)."""
    readings = list(expected)
    criteria = []
    if reference.reachability.policies or found.reachability.policies:
        criteria.append(_outsiders(found.reachability, reference.reachability))
    if reference.permissions.bindings or found.permissions.bindings:
        criteria.append(_bystanders(found, reference, readings))
    return tuple(criteria)


def _outsiders(found: Reachability, reference: Reachability) -> Criterion:
    wrong = []
    checked = 0
    for pod in found.cluster.pods:
        for port in sorted({(p.number, p.protocol) for p in pod.ports}):
            for outsider in OUTSIDE:
                checked += 1
                if found.allowed(outsider, pod, *port) and not reference.allowed(
                    outsider, pod, *port
                ):
                    wrong.append(f"{_who(outsider)} -> {pod.ref} :{port[0]}/{port[1]}")
    ports = sorted(set(WORLD_PORTS) | _named_ports(found) | _named_ports(reference))
    for pod in found.cluster.pods:
        for outsider in (o for o in OUTSIDE if o.namespace == WORLD):
            for port in ports:
                checked += 1
                if found.allowed(pod, outsider, *port) and not reference.allowed(
                    pod, outsider, *port
                ):
                    wrong.append(f"{pod.ref} -> {_who(outsider)} :{port[0]}/{port[1]}")
    return criterion("no one else gets in", wrong, checked, "reachability", clean=CLEAN)


def _named_ports(reach: Reachability) -> set[tuple[int, str]]:
    ports = {(p.number, p.protocol) for pod in reach.cluster.pods for p in pod.ports}
    for policy in reach.policies:
        for rule in (*policy.ingress, *policy.egress):
            for spec in rule.ports:
                if isinstance(spec.port, int):
                    ports.add((spec.port, spec.protocol))
    return ports


def _who(outsider: Pod) -> str:
    if outsider.namespace == WORLD:
        return f"{outsider.name} ({outsider.ip})"
    return f"{outsider.name} (namespace {outsider.namespace})"


def _bystanders(found: Meaning, reference: Meaning, readings: Sequence[Expectations]) -> Criterion:
    entitled = {check.subject for e in readings for check in e.permissions if check.allowed} | {
        check.subject for e in readings for check in e.only
    }
    subjects = [
        *BYSTANDERS,
        *(
            Subject("ServiceAccount", "someone", namespace)
            for namespace in sorted(found.reachability.cluster.namespaces)
        ),
        *_bound(found.permissions),
        *_bound(reference.permissions),
    ]
    wrong = []
    seen: set[str] = set()
    for subject in subjects:
        key = f"{subject}+{','.join(subject.groups)}"
        if str(subject) in entitled or key in seen:
            continue
        seen.add(key)
        for grant in found.permissions.grants(subject):
            if not _given(grant, subject, reference.permissions):
                wrong.append(f"{subject} {describe(grant)}")
    return criterion(
        "no one else gains rights", wrong, max(len(seen), 1), "permissions", clean=CLEAN
    )


def _bound(permissions: Permissions) -> list[Subject]:
    """Every subject a binding names, as the authorizer would see it ask."""
    found = []
    for binding in permissions.bindings:
        for kind, name, namespace in binding.subjects:
            if kind == "ServiceAccount":
                found.append(Subject(kind, name, namespace or binding.namespace))
            elif kind == "Group":
                found.append(Subject("User", f"a member of {name}", groups=(name,)))
            else:
                found.append(Subject(kind, name))
    return found


def _given(grant: Grant, subject: Subject, reference: Permissions) -> bool:
    """Whether everything ``grant`` allows, ``reference`` allows ``subject`` too (a wildcard
    only where the reference has the same wildcard)."""
    rule = grant.rule
    if rule.non_resource_urls:
        return any(
            g.rule.non_resource_urls
            and set(rule.non_resource_urls) <= set(g.rule.non_resource_urls)
            and set(rule.verbs) <= set(g.rule.verbs)
            for g in reference.grants(subject)
        )
    names: Sequence[str | None] = rule.resource_names or (None,)
    return all(
        reference.can(subject, verb, group, resource, grant.namespace, name=name)
        for verb in rule.verbs
        for group in rule.api_groups
        for resource in rule.resources
        for name in names
    )
