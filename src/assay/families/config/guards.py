"""What no configuration task asks for and every one forbids: letting in someone it never names,
cutting off what it never mentions, and giving a workload powers.

A task's requirements (:mod:`.expectations`) judge the pods of its cluster and the subjects its
prompt names. A submission can meet them all and still open the door to someone else: a rule
that admits ``0.0.0.0/0`` or ``::/0`` (the internet, which no pod of the cluster is), a
namespace selector that matches namespaces made later, the right role bound to
``system:authenticated``, ``system:unauthenticated`` or every service account; or close a door
nobody asked about (the cluster cut off from the internet); or harden a workload while letting
it into the node. These criteria, judged against the task's reference solution applied to the
same cluster, catch that:

``no one else gets in``
    For every pod of the cluster and every port it declares, a source outside the cluster's
    pods (every address of the world, and a pod of a namespace made later) may connect only
    where the reference lets it; every pod may connect to a destination outside them only on
    ports and addresses where the reference lets it; and
    a connection between pods of the cluster that no ``[[reachability]]`` requirement of any
    reading decides is allowed only where the reference allows it.
``nothing else is cut off``
    The same connections, each allowed wherever the reference allows it.
``no one else gains rights``
    Every subject but those the requirements give rights to (anonymous, any authenticated user,
    a service account of each namespace, and every subject a binding names) holds nothing the
    reference does not give it.
``the workloads keep their replicas and gain no powers``
    For a task whose submission may hold workloads: every Deployment and StatefulSet runs as
    many replicas as with the reference, none stops rolling its template out to its pods where
    the reference's does (a paused Deployment, an ``OnDelete`` update strategy: the template
    meets every requirement and the running pods never take it), and no workload's pods gain a
    power on their node
    (:func:`~.powers.powers`: its namespaces or paths, a privileged container, an added
    capability, user or group 0, an unmasked ``/proc``, an unsafe sysctl, a node it picks
    past the scheduler or the control-plane taint, another service account, a host port)
    that the reference does not give them, nor mounts a service account token the
    reference's pods decline.
``no Service opens the cluster to the outside``
    For a task whose submission may hold Services: none is of type ``NodePort`` or
    ``LoadBalancer``, or takes ``externalIPs``, where the reference's Service of that name is
    not (selecting the right pods is no licence to put them on the internet).

``no one else gets in`` also lets in no pod made later in a namespace made later with the
labels of one of today's pods and namespaces (every label but the namespace's name, which only
the API server sets) where the reference keeps it out and the submission would keep it out
of a namespace without those labels: a rule naming a namespace by a label its
owner chose (``team: observability``) rather than by its name lets in whoever makes another
namespace so labelled.

The two reachability guards also hold a replica of each pod made later (its namespace, labels
and ports, an address nobody knows yet) to the access of the pod it copies, wherever the
reference does: a policy that names today's pods by their addresses (an ``ipBlock`` of each
one's ``/32``) meets every requirement about them and cuts off the next replica of their
workload.

A requirement that wants outsiders in (``from = "*"``, allowed) is met by the reference too, so
the guard asks nothing the reference does not do. Without a reference, or where the reference's
cluster could not be read, there is no guard.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Iterable, Sequence

from assay.families.config.cluster import NAME_LABEL, Cluster, IPAddress, Pod
from assay.families.config.expectations import (
    ConnectionKey,
    Expectations,
    criterion,
    decided,
)
from assay.families.config.meaning import Meaning
from assay.families.config.network import (
    OUTSIDE,
    WORLD,
    Ranges,
    Reachability,
    merge_ranges,
    subtract_ranges,
)
from assay.families.config.powers import powers, token_mounted
from assay.families.config.rbac import Grant, Permissions, Subject, describe
from assay.families.config.workloads import WORKLOAD_KINDS
from assay.verdicts import Criterion

CLEAN = "none beyond the reference"
WORLD_PORTS = ((53, "UDP"), (53, "TCP"), (80, "TCP"), (443, "TCP"))
"""Ports on which a pod's connections out of the cluster are compared, with every port the
policies and pods name."""
BYSTANDERS = (
    Subject("User", "system:anonymous", groups=("system:unauthenticated",)),
    Subject("User", "someone-authenticated", groups=("system:authenticated",)),
)


def guard_criteria(
    found: Meaning,
    reference: Meaning,
    expected: Iterable[Expectations],
    *,
    kinds: Collection[str],
    task_id: str,
) -> tuple[Criterion, ...]:
    """The guards' criteria: only those the task makes relevant (a task with no network
    policy in its reference has no reachability guards, one with no RBAC object no rights
    guard, and one whose submission may hold no workload (``kinds``) no workload guard, or
    no Service no Service guard)."""
    readings = list(expected)
    criteria = []
    if reference.reachability.policies or found.reachability.policies:
        criteria += _reachability(found.reachability, reference.reachability, readings, task_id)
    if reference.permissions.bindings or found.permissions.bindings:
        criteria.append(_bystanders(found, reference, readings))
    if set(kinds) & set(WORKLOAD_KINDS):
        criteria.append(_workloads(found, reference))
    if "Service" in kinds:
        criteria.append(_services(found, reference))
    return tuple(criteria)


def _reachability(
    found: Reachability,
    reference: Reachability,
    readings: Sequence[Expectations],
    task_id: str,
) -> list[Criterion]:
    """``no one else gets in`` and ``nothing else is cut off``, over the connections from and
    to outside the cluster's pods and those between its pods that no requirement decides."""
    opened: list[str] = []
    cut: list[str] = []
    checked = 0
    for line, now in _world(found, reference):
        checked += 1
        if line is not None:
            (opened if now else cut).append(line)
    for source, destination, port in _undecided(found, reference, readings, task_id):
        checked += 1
        now = found.allowed(source, destination, *port)
        if now != reference.allowed(source, destination, *port):
            line = f"{_who(source)} -> {_who(destination)} :{port[0]}/{port[1]}"
            (opened if now else cut).append(line)
    # A replica made later keeps the access of the pod it copies wherever the reference's does:
    # a policy that names today's pods by their addresses meets every requirement about them
    # and cuts off the next replica of their workload.
    for source, destination, was_source, was_destination, port in _replicas(found.cluster.pods):
        checked += 1
        now = found.allowed(source, destination, *port)
        if now == found.allowed(was_source, was_destination, *port):
            continue
        if reference.allowed(source, destination, *port) == reference.allowed(
            was_source, was_destination, *port
        ):
            line = f"{_who(source)} -> {_who(destination)} :{port[0]}/{port[1]}"
            (opened if now else cut).append(line)
    # A namespace made later may carry any label of one of today's but its name: a rule that
    # lets a pod in by such a label (and would not let it in from a namespace without it),
    # where the reference keeps it out, lets in whoever makes a namespace so labelled.
    found_later, reference_later = _with_copies(found), _with_copies(reference)
    for source, destination, bare_source, bare_destination, port in _copied(found.cluster):
        checked += 1
        if (
            found_later.allowed(source, destination, *port)
            and not found_later.allowed(bare_source, bare_destination, *port)
            and not reference_later.allowed(source, destination, *port)
        ):
            opened.append(f"{_who(source)} -> {_who(destination)} :{port[0]}/{port[1]}")
    return [
        criterion("no one else gets in", opened, checked, "reachability", clean=CLEAN),
        criterion(
            "nothing else is cut off",
            cut,
            checked,
            "reachability",
            clean="none cut off that the reference keeps",
        ),
    ]


def _world(found: Reachability, reference: Reachability) -> Iterable[tuple[str | None, bool]]:
    """Where the addresses of the world that reach a pod on one of its declared ports, or that
    it reaches on a port anyone names, differ from the reference's: every address, not a few
    samples (a rule for ``0.0.0.0/0`` less the samples' ranges opens the internet all the
    same). Each difference is one line naming an address in it (the sample where it is one),
    and whether the submission opens it (True) or cuts it off; None for a comparison that
    found none. The cluster's own pods' addresses are left out: connections between pods are
    judged as such."""
    ports = sorted(set(WORLD_PORTS) | _named_ports(found) | _named_ports(reference))
    pods = found.cluster.pods
    for sample in (o for o in OUTSIDE if o.namespace == WORLD):
        if sample.ip is None:
            continue
        version = sample.ip.version
        own = merge_ranges((int(p.ip), int(p.ip)) for p in pods if p.ip and p.ip.version == version)
        for pod in pods:
            directions = [(True, port) for port in _declared(pod)]
            directions += [(False, port) for port in ports]
            for ingress, (number, protocol) in directions:
                ours = found.world(pod, number, protocol, ingress=ingress, version=version)
                theirs = reference.world(pod, number, protocol, ingress=ingress, version=version)
                if ours == theirs:
                    yield None, False
                    continue
                for now, (more, less) in ((True, (ours, theirs)), (False, (theirs, ours))):
                    extra = subtract_ranges(subtract_ranges(more, less), own)
                    if extra:
                        where = f"{sample.name} ({_witness(extra, sample.ip)})"
                        ends = (where, pod.ref) if ingress else (pod.ref, where)
                        yield f"{ends[0]} -> {ends[1]} :{number}/{protocol}", now


def _witness(ranges: Ranges, sample: IPAddress) -> IPAddress:
    """An address of ``ranges``: ``sample`` when it is one, else the first."""
    if any(first <= int(sample) <= last for first, last in ranges):
        return sample
    first = ranges[0][0]
    return ipaddress.IPv4Address(first) if sample.version == 4 else ipaddress.IPv6Address(first)


def _undecided(
    found: Reachability,
    reference: Reachability,
    readings: Sequence[Expectations],
    task_id: str,
) -> Iterable[tuple[Pod, Pod, tuple[int, str]]]:
    """The connections the guards compare besides the world's (:func:`_world`): from a pod
    made later in a namespace made later to every declared port of every pod; from every pod
    to it on the ports anyone names; and between pods, on the declared ports of the
    destination, where no requirement of any reading decides."""
    pods = found.cluster.pods
    later = [o for o in OUTSIDE if o.namespace != WORLD]
    for pod in pods:
        for port in _declared(pod):
            for outsider in later:
                yield outsider, pod, port
    ports = sorted(set(WORLD_PORTS) | _named_ports(found) | _named_ports(reference))
    for pod in pods:
        for outsider in later:
            for port in ports:
                yield pod, outsider, port
    known: set[ConnectionKey] = set()
    for reading in readings:
        known |= decided(reading, found.cluster, task_id)
    for destination in pods:
        for port in _declared(destination):
            for source in pods:
                key = (source.ref, destination.ref, *port)
                if source.ref != destination.ref and key not in known:
                    yield source, destination, port


def _declared(pod: Pod) -> list[tuple[int, str]]:
    return sorted({(p.number, p.protocol) for p in pod.ports})


def _named_ports(reach: Reachability) -> set[tuple[int, str]]:
    """The pods' declared ports and the ports the policies name: each port or range's first
    number and the one after its last (whether a port is allowed changes only there)."""
    ports = {(p.number, p.protocol) for pod in reach.cluster.pods for p in pod.ports}
    for policy in reach.policies:
        for rule in (*policy.ingress, *policy.egress):
            for spec in rule.ports:
                if isinstance(spec.port, int):
                    after = (spec.end_port or spec.port) + 1
                    ports |= {(n, spec.protocol) for n in (spec.port, after) if n < 65536}
    return ports


def _replicas(pods: Sequence[Pod]) -> Iterable[tuple[Pod, Pod, Pod, Pod, tuple[int, str]]]:
    """Each connection from and to a replica of a pod made later, on the destination's declared
    ports, beside the same connection of the pod itself: source, destination, and the two
    that stand for them."""
    for pod in pods:
        replica = _later_replica(pod)
        for other in (o for o in pods if o.ref != pod.ref):  # a pod and its copy: no requirement
            for port in _declared(other):
                yield replica, other, pod, other, port
            for port in _declared(pod):
                yield other, replica, other, pod, port


def _with_copies(reach: Reachability) -> Reachability:
    """``reach`` with, for each namespace of its cluster, one made later with its labels but
    its name (which only the API server sets)."""
    cluster = reach.cluster
    copies = {
        _copy(name): {
            **{k: v for k, v in labels.items() if k != NAME_LABEL},
            NAME_LABEL: _copy(name),
        }
        for name, labels in cluster.namespaces.items()
    }
    return Reachability(Cluster({**cluster.namespaces, **copies}, cluster.pods), reach.policies)


_UNLABELLED = next(o.namespace for o in OUTSIDE if o.namespace != WORLD)


def _copy(namespace: str) -> str:
    return f"a namespace made later labelled like {namespace}"  # no namespace can be called so


def _copied(cluster: Cluster) -> Iterable[tuple[Pod, Pod, Pod, Pod, tuple[int, str]]]:
    """Each connection from and to a pod made later with the labels of a pod of the cluster,
    in a namespace made later with the labels of the pod's, on the destination's declared
    ports: source, destination, and the two with the copy in a namespace without labels."""
    for pod in cluster.pods:
        name = f"a copy of {pod.ref} in a namespace made later with its labels"
        copy = Pod(_copy(pod.namespace), name, labels=pod.labels, ports=pod.ports)
        bare = Pod(_UNLABELLED, name, labels=pod.labels, ports=pod.ports)
        for other in cluster.pods:
            for port in _declared(other):
                yield copy, other, bare, other, port
            for port in _declared(copy):
                yield other, copy, other, bare, port


def _later_replica(pod: Pod) -> Pod:
    """A pod like ``pod`` made later (another replica of its workload): its namespace, labels
    and ports, and an address nobody knows yet."""
    name = f"{pod.name} (a replica made later)"  # no pod of a cluster can be called so
    return Pod(pod.namespace, name, labels=pod.labels, ports=pod.ports)


def _who(pod: Pod) -> str:
    if pod.namespace == WORLD:
        return f"{pod.name} ({pod.ip})"
    if pod.namespace.startswith("a namespace made later labelled like"):
        return pod.name
    if pod in OUTSIDE:
        return f"{pod.name} (namespace {pod.namespace})"
    return pod.ref


def _workloads(found: Meaning, reference: Meaning) -> Criterion:
    wrong = []
    for ref, workload in sorted(found.workloads.items()):
        before = reference.workloads.get(ref)
        if before is not None and workload.replicas != before.replicas:
            wrong.append(f"{ref} runs {workload.replicas} replicas, not {before.replicas}")
        if before is not None and workload.held and not before.held:
            wrong.append(f"{ref}: its running pods never take the new template ({workload.held})")
        if before is not None and token_mounted(workload) and not token_mounted(before):
            wrong.append(f"{ref}: mounts its service account's token, which it declined")
        gained = powers(workload) - (powers(before) if before is not None else frozenset())
        wrong += [f"{ref}: {power}" for power in sorted(gained)]
    return criterion(
        "the workloads keep their replicas and gain no powers",
        wrong,
        max(len(found.workloads), 1),
        "workloads",
        clean=CLEAN,
    )


def _services(found: Meaning, reference: Meaning) -> Criterion:
    wrong = []
    for ref, service in sorted(found.services.items()):
        before = reference.services.get(ref)
        kept = set(before.exposure) if before is not None else set()
        wrong += [f"Service {ref}: {what}" for what in service.exposure if what not in kept]
    return criterion(
        "no Service opens the cluster to the outside",
        wrong,
        max(len(found.services), 1),
        "services",
        clean=CLEAN,
    )


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
