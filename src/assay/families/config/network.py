"""NetworkPolicy reachability, following the semantics of the Kubernetes API.

- A policy selects the pods of its own namespace that its ``podSelector`` matches (``{}``: all).
- ``policyTypes`` says which directions the policy isolates. When it is missing or empty the API
  server defaults it: ``Ingress`` always, plus ``Egress`` when ``egress`` has at least one rule.
- A pod selected by no policy of a direction is open in that direction. A pod selected by at
  least one is isolated: a connection is allowed only if some rule of some such policy allows it
  (policies add up; none can deny what another allows). A policy that isolates a direction and has
  no rules for it (missing or empty ``ingress``/``egress``) allows nothing that way.
- A rule allows a connection when its peers (``from``/``to``) and its ports both match. Missing or
  empty peers match every source or destination; missing or empty ports match every port.
- A peer is one of: ``podSelector`` alone (pods of the policy's namespace), ``namespaceSelector``
  alone (every pod of the matching namespaces), both in one peer (pods matching the pod selector
  *in* namespaces matching the namespace selector: an AND), or ``ipBlock`` (the peer pod's
  ``status.podIP`` inside ``cidr`` and outside every ``except``; a pod without an IP matches no
  ipBlock). Separate peers of one rule are ORed.
- A port has a protocol (``TCP`` by default, ``UDP``, ``SCTP``) and optionally a number, a range
  (``port`` to ``endPort``), or a name, resolved against the *destination* pod's container ports
  of that protocol (for ingress the selected pod, for egress the peer). No port: every port of the
  protocol.
- A connection from pod A to pod B needs both B's ingress and A's egress to allow it. A pod may
  always reach itself (loopback is not subject to policy, as the upstream conformance tests
  treat it).
- A source or destination outside the cluster's pods (:data:`OUTSIDE`: an address of the world,
  or a pod made later in a namespace made later) is subject to no policy of its own. An address
  of the world (a "pod" in namespace :data:`WORLD`) matches only ipBlock peers; a later pod, the
  selectors as any pod. A pod made later in a namespace of the cluster is subject to the
  policies that select it, as any pod.

The API server refuses some objects that the OpenAPI schema accepts (a peer with no selector,
an ipBlock beside a selector, ``endPort`` with a named port, an ``except`` outside its ``cidr``);
:func:`policy_from_object` refuses them too, with :class:`ObjectError`.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from assay.families.config.cluster import PROTOCOLS, Cluster, IPAddress, Pod, metadata
from assay.families.config.names import port_name_problem
from assay.families.config.selectors import ObjectError, Selector, parse_selector

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Ranges = tuple[tuple[int, int], ...]
"""Addresses of one IP version as sorted, disjoint ``(first, last)`` pairs of integers."""
WORLD = ""
"""The namespace of a source or destination that is an address outside the cluster."""
OUTSIDE = (
    Pod(WORLD, "an IPv4 address of the internet", ip=ipaddress.IPv4Address("203.0.113.77")),
    Pod(WORLD, "an IPv6 address of the internet", ip=ipaddress.IPv6Address("2001:db8::77")),
    Pod("a-namespace-made-later", "a pod made later, without labels"),
)
"""Who is not among the cluster's pods but may knock: the internet, over IPv4 and IPv6 (the
documentation ranges, inside ``0.0.0.0/0`` and ``::/0`` and outside every private range), and a
pod made later in a namespace made later. The guards compare every address of the world
(:meth:`Reachability.world`); these two stand for it in their evidence."""


@dataclass(frozen=True)
class IPBlock:
    """``cidr`` minus every ``except``."""

    cidr: IPNetwork
    excepts: tuple[IPNetwork, ...] = ()

    def contains(self, address: IPAddress) -> bool:
        """Whether ``address`` is in the block (an address of the other IP version is not)."""
        if address.version != self.cidr.version or address not in self.cidr:
            return False
        return not any(address in excluded for excluded in self.excepts)

    def ranges(self) -> Ranges:
        """The block's addresses: its ``cidr`` less every ``except``."""
        return _block_ranges(self)


@dataclass(frozen=True)
class Peer:
    """One element of ``from`` or ``to``."""

    pods: Selector | None = None
    namespaces: Selector | None = None
    ip_block: IPBlock | None = None

    def matches(self, pod: Pod, policy_namespace: str, cluster: Cluster) -> bool:
        """Whether ``pod`` is this peer, for a policy in ``policy_namespace``."""
        if self.ip_block is not None:
            return pod.ip is not None and self.ip_block.contains(pod.ip)
        if pod.namespace == WORLD:
            return False
        if self.namespaces is None:
            in_namespace = pod.namespace == policy_namespace
        else:
            in_namespace = self.namespaces.matches(cluster.namespace_labels(pod.namespace))
        return in_namespace and (self.pods is None or self.pods.matches(pod.labels))


@dataclass(frozen=True)
class PolicyPort:
    """One element of ``ports``: a protocol and a number, a range, a name, or every port."""

    protocol: str = "TCP"
    port: int | str | None = None
    end_port: int | None = None

    def matches(self, number: int, protocol: str, destination: Pod) -> bool:
        """Whether a connection to ``destination``'s port ``number``/``protocol`` is covered."""
        if protocol != self.protocol:
            return False
        if self.port is None:
            return True
        if isinstance(self.port, str):
            return destination.named_port(self.port, protocol) == number
        return self.port <= number <= (self.end_port or self.port)


@dataclass(frozen=True)
class Rule:
    """One ingress or egress rule; empty ``peers`` or ``ports`` match everything."""

    peers: tuple[Peer, ...] = ()
    ports: tuple[PolicyPort, ...] = ()


@dataclass(frozen=True)
class NetworkPolicy:
    """A NetworkPolicy, its ``policyTypes`` already defaulted."""

    namespace: str
    name: str
    selector: Selector
    isolates_ingress: bool
    isolates_egress: bool
    ingress: tuple[Rule, ...] = ()
    egress: tuple[Rule, ...] = ()

    @property
    def ref(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def selects(self, pod: Pod) -> bool:
        """Whether this policy applies to ``pod``."""
        return pod.namespace == self.namespace and self.selector.matches(pod.labels)


@dataclass(frozen=True, order=True)
class Connection:
    """One row of a reachability matrix."""

    source: str
    destination: str
    port: int
    protocol: str
    allowed: bool


class Reachability:
    """Which pods of ``cluster`` may open which connections under ``policies``."""

    def __init__(self, cluster: Cluster, policies: Iterable[NetworkPolicy]) -> None:
        self.cluster = cluster
        self.policies = tuple(policies)
        self._ingress = {pod.ref: self._isolating(pod, ingress=True) for pod in cluster.pods}
        self._egress = {pod.ref: self._isolating(pod, ingress=False) for pod in cluster.pods}
        self._refs = frozenset(pod.ref for pod in cluster.pods)
        self._peers: dict[tuple[int, bool, int], frozenset[str] | None] = {}
        for p, policy in enumerate(self.policies):
            for ingress, rules in ((True, policy.ingress), (False, policy.egress)):
                for r, rule in enumerate(rules):
                    self._peers[p, ingress, r] = self._matching(rule, policy.namespace)

    def allowed(self, source: Pod, destination: Pod, port: int, protocol: str = "TCP") -> bool:
        """Whether ``source`` may connect to ``destination`` on ``port``/``protocol``."""
        if source.ref == destination.ref:
            return True
        return self._admits(destination, source, destination, port, protocol, ingress=True) and (
            self._admits(source, destination, destination, port, protocol, ingress=False)
        )

    def world(self, pod: Pod, port: int, protocol: str, *, ingress: bool, version: int) -> Ranges:
        """The addresses of IP ``version`` outside the cluster that may connect to ``pod`` on
        ``port``/``protocol`` (``ingress``), or that ``pod`` may connect to on it: all of them
        where no policy isolates ``pod`` that way, else those of the ipBlocks of its rules that
        cover the port (all of them for a rule without peers)."""
        everything = ((0, (1 << (32 if version == 4 else 128)) - 1),)
        isolating = (self._ingress if ingress else self._egress).get(pod.ref, ())
        destination = pod if ingress else _ADDRESS
        found: list[tuple[int, int]] = []
        for p in isolating:
            policy = self.policies[p]
            for rule in policy.ingress if ingress else policy.egress:
                if rule.ports and not any(
                    spec.matches(port, protocol, destination) for spec in rule.ports
                ):
                    continue
                if not rule.peers:
                    return everything
                for peer in rule.peers:
                    if peer.ip_block is not None and peer.ip_block.cidr.version == version:
                        found += peer.ip_block.ranges()
        return merge_ranges(found) if isolating else everything

    def matrix(self) -> list[Connection]:
        """Every ordered pair of distinct pods and every port and protocol the destination
        declares, sorted by source, destination, port and protocol."""
        rows = []
        for destination in self.cluster.pods:
            ports = sorted({(port.number, port.protocol) for port in destination.ports})
            for source in self.cluster.pods:
                if source.ref == destination.ref:
                    continue
                for number, protocol in ports:
                    allowed = self.allowed(source, destination, number, protocol)
                    rows.append(Connection(source.ref, destination.ref, number, protocol, allowed))
        return sorted(rows)

    def _isolating(self, pod: Pod, *, ingress: bool) -> tuple[int, ...]:
        return tuple(
            p
            for p, policy in enumerate(self.policies)
            if (policy.isolates_ingress if ingress else policy.isolates_egress)
            and policy.selects(pod)
        )

    def _matching(self, rule: Rule, namespace: str) -> frozenset[str] | None:
        """The refs of the pods a rule's peers match; None when it has no peers (everyone)."""
        if not rule.peers:
            return None
        return frozenset(
            pod.ref
            for pod in self.cluster.pods
            if any(peer.matches(pod, namespace, self.cluster) for peer in rule.peers)
        )

    def _admits(
        self, subject: Pod, other: Pod, destination: Pod, port: int, protocol: str, *, ingress: bool
    ) -> bool:
        """Whether the policies isolating ``subject`` in one direction let ``other`` through."""
        isolating = (self._ingress if ingress else self._egress).get(subject.ref)
        if isolating is None:  # a pod made later in a namespace of the cluster, or an outsider
            known = subject.namespace in self.cluster.namespaces
            isolating = self._isolating(subject, ingress=ingress) if known else ()
        if not isolating:
            return True
        for p in isolating:
            policy = self.policies[p]
            for r, rule in enumerate(policy.ingress if ingress else policy.egress):
                peers = self._peers[p, ingress, r]
                if peers is not None and not self._among(other, peers, rule, policy.namespace):
                    continue
                if not rule.ports or any(
                    spec.matches(port, protocol, destination) for spec in rule.ports
                ):
                    return True
        return False

    def _among(self, pod: Pod, peers: frozenset[str], rule: Rule, namespace: str) -> bool:
        """Whether ``pod`` is one of a rule's ``peers``: looked up for a pod of the cluster,
        matched afresh for one outside it."""
        if pod.ref in self._refs:
            return pod.ref in peers
        return any(peer.matches(pod, namespace, self.cluster) for peer in rule.peers)


_ADDRESS = Pod(WORLD, "an address of the world")
"""A destination outside the cluster, for matching ports: it names none."""


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """``ranges`` sorted, with those that overlap or touch joined."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return tuple(merged)


def subtract_ranges(ranges: Ranges, taken: Ranges) -> Ranges:
    """The addresses of ``ranges`` that are not in ``taken`` (both merged)."""
    left: list[tuple[int, int]] = []
    skipped = 0
    for first, last in ranges:
        while skipped < len(taken) and taken[skipped][1] < first:
            skipped += 1
        start, index = first, skipped
        while index < len(taken) and taken[index][0] <= last:
            low, high = taken[index]
            if low > start:
                left.append((start, low - 1))
            start, index = max(start, high + 1), index + 1
        if start <= last:
            left.append((start, last))
    return tuple(left)


@functools.lru_cache(maxsize=4096)
def _block_ranges(block: IPBlock) -> Ranges:
    excepts = merge_ranges(r for network in block.excepts for r in _span(network))
    return subtract_ranges(_span(block.cidr), excepts)


def _span(network: IPNetwork) -> Ranges:
    return ((int(network.network_address), int(network.broadcast_address)),)


def policy_from_object(obj: Mapping[str, object]) -> NetworkPolicy:
    """The :class:`NetworkPolicy` a schema-valid ``NetworkPolicy`` object describes.

    Raises :class:`ObjectError` for what the API server's validation refuses.
    """
    name, namespace, _labels = metadata(obj)
    where = f"NetworkPolicy {namespace}/{name}"
    spec = obj.get("spec") or {}
    if not isinstance(spec, dict):
        raise ObjectError(f"{where}: spec must be an object")
    selector = parse_selector(spec.get("podSelector") or {}, f"{where}: spec.podSelector")
    ingress = _rules(spec.get("ingress"), "from", f"{where}: spec.ingress")
    egress = _rules(spec.get("egress"), "to", f"{where}: spec.egress")
    types = spec.get("policyTypes") or []
    if not isinstance(types, list) or not all(t in ("Ingress", "Egress") for t in types):
        raise ObjectError(f"{where}: spec.policyTypes may hold only Ingress and Egress")
    if not types:  # the API server's default
        types = ["Ingress", "Egress"] if egress else ["Ingress"]
    return NetworkPolicy(
        namespace=namespace,
        name=name,
        selector=selector,
        isolates_ingress="Ingress" in types,
        isolates_egress="Egress" in types,
        ingress=ingress,
        egress=egress,
    )


def _rules(value: object, peers_key: str, where: str) -> tuple[Rule, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ObjectError(f"{where}: must be a list")
    rules = []
    for index, rule in enumerate(value):
        here = f"{where}[{index}]"
        if not isinstance(rule, dict):
            raise ObjectError(f"{here}: must be an object")
        peers = rule.get(peers_key) or []
        ports = rule.get("ports") or []
        if not isinstance(peers, list) or not isinstance(ports, list):
            raise ObjectError(f"{here}: {peers_key} and ports must be lists")
        rules.append(
            Rule(
                peers=tuple(_peer(p, f"{here}.{peers_key}[{i}]") for i, p in enumerate(peers)),
                ports=tuple(_port(p, f"{here}.ports[{i}]") for i, p in enumerate(ports)),
            )
        )
    return tuple(rules)


def _peer(value: object, where: str) -> Peer:
    if not isinstance(value, dict):
        raise ObjectError(f"{where}: must be an object")
    pods, namespaces, block = (
        value.get("podSelector"),
        value.get("namespaceSelector"),
        value.get("ipBlock"),
    )
    if pods is None and namespaces is None and block is None:
        raise ObjectError(f"{where}: must specify a peer (podSelector, namespaceSelector, ipBlock)")
    if block is not None:
        if pods is not None or namespaces is not None:
            raise ObjectError(f"{where}: ipBlock may not be combined with a selector")
        return Peer(ip_block=_ip_block(block, f"{where}.ipBlock"))
    return Peer(
        pods=None if pods is None else parse_selector(pods, f"{where}.podSelector"),
        namespaces=(
            None if namespaces is None else parse_selector(namespaces, f"{where}.namespaceSelector")
        ),
    )


def _ip_block(value: object, where: str) -> IPBlock:
    if not isinstance(value, dict):
        raise ObjectError(f"{where}: must be an object")
    cidr = _network(value.get("cidr"), f"{where}.cidr")
    excepts = value.get("except") or []
    if not isinstance(excepts, list):
        raise ObjectError(f"{where}.except: must be a list")
    parsed = []
    for index, text in enumerate(excepts):
        excluded = _network(text, f"{where}.except[{index}]")
        if excluded.version != cidr.version or not (
            excluded.subnet_of(cidr)  # type: ignore[arg-type]
            and excluded.prefixlen > cidr.prefixlen
        ):
            raise ObjectError(f"{where}.except[{index}]: must be a strict subset of {cidr}")
        parsed.append(excluded)
    return IPBlock(cidr, tuple(parsed))


def _network(text: object, where: str) -> IPNetwork:
    if not isinstance(text, str):
        raise ObjectError(f"{where}: required")
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ObjectError(f"{where}: {text!r} is not a CIDR") from None


def _port(value: object, where: str) -> PolicyPort:
    if not isinstance(value, dict):
        raise ObjectError(f"{where}: must be an object")
    protocol = value.get("protocol") or "TCP"
    port, end = value.get("port"), value.get("endPort")
    if protocol not in PROTOCOLS:
        raise ObjectError(f"{where}.protocol: {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    if isinstance(port, bool):
        raise ObjectError(f"{where}.port: must be a number or a name")
    problem = port_name_problem(port) if isinstance(port, str) else None
    if problem is not None:
        raise ObjectError(f"{where}.port: {problem}")
    if isinstance(port, int) and not 0 < port < 65536:
        raise ObjectError(f"{where}.port: {port} is not in 1-65535")
    if port is not None and not isinstance(port, int | str):
        raise ObjectError(f"{where}.port: must be a number or a name")
    if end is not None:
        if not isinstance(port, int) or isinstance(port, bool):
            raise ObjectError(f"{where}.endPort: may only be set with a numeric port")
        if not isinstance(end, int) or not port <= end < 65536:
            raise ObjectError(f"{where}.endPort: must be at least port and at most 65535")
    return PolicyPort(str(protocol), port, end)


def policies_from_objects(objects: Sequence[Mapping[str, object]]) -> list[NetworkPolicy]:
    """Every ``NetworkPolicy`` among ``objects``."""
    return [policy_from_object(obj) for obj in objects if obj.get("kind") == "NetworkPolicy"]
