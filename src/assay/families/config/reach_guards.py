"""The guards ``no one else gets in`` and ``nothing else is cut off`` (see :mod:`.guards`):
every connection no requirement decides, from and to the world, a pod of a namespace made
later, a replica of a pod made later and a copy of a pod in a namespace made later with its
labels, allowed or cut off only where the reference does the same.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from assay.families.config.cluster import NAME_LABEL, Cluster, IPAddress, Pod
from assay.families.config.expectations import (
    ConnectionKey,
    Expectations,
    criterion,
    decided,
)
from assay.families.config.network import (
    OUTSIDE,
    WORLD,
    Ranges,
    Reachability,
    merge_ranges,
    subtract_ranges,
)
from assay.verdicts import Criterion

CLEAN = "none beyond the reference"
WORLD_PORTS = ((53, "UDP"), (53, "TCP"), (80, "TCP"), (443, "TCP"))
"""Ports on which a pod's connections out of the cluster are compared, with every port the
policies and pods name."""


def reachability_criteria(
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
