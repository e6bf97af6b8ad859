"""Invariants of NetworkPolicy reachability over generated policies."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.families.config.cluster import cluster_from_objects
from assay.families.config.network import (
    Connection,
    NetworkPolicy,
    Reachability,
    policy_from_object,
)
from tests.families.config.kube import Obj, namespace, pod, policy

CLUSTER = cluster_from_objects(
    [
        namespace("a", env="x"),
        namespace("b", env="y"),
        pod("a/p1", "10.0.0.1", "http=80", app="a"),
        pod("a/p2", "10.0.0.2", "dns=53/UDP 5432", app="b", tier="a"),
        pod("b/p3", "10.1.0.1", "http=8080", app="a"),
        pod("b/p4", None, "80"),
    ]
)

keys = st.sampled_from(["app", "tier", "env"])
values = st.sampled_from(["a", "b", "x", "y"])
expressions = st.one_of(
    st.fixed_dictionaries(
        {
            "key": keys,
            "operator": st.sampled_from(["In", "NotIn"]),
            "values": st.lists(values, min_size=1, max_size=2),
        }
    ),
    st.fixed_dictionaries({"key": keys, "operator": st.sampled_from(["Exists", "DoesNotExist"])}),
)
selectors = st.fixed_dictionaries(
    {},
    optional={
        "matchLabels": st.dictionaries(keys, values, max_size=2),
        "matchExpressions": st.lists(expressions, max_size=2),
    },
)
peers = st.one_of(
    st.fixed_dictionaries({"podSelector": selectors}),
    st.fixed_dictionaries({"namespaceSelector": selectors}),
    st.fixed_dictionaries({"podSelector": selectors, "namespaceSelector": selectors}),
    st.fixed_dictionaries(
        {
            "ipBlock": st.sampled_from(
                [{"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}, {"cidr": "10.0.0.2/32"}]
            )
        }
    ),
)
ports = st.fixed_dictionaries(
    {},
    optional={
        "protocol": st.sampled_from(["TCP", "UDP"]),
        "port": st.sampled_from([80, 53, 5432, 8080, "http", "dns"]),
    },
)


def rules(peer_key: str, min_size: int = 0) -> st.SearchStrategy[list[Obj]]:
    rule = st.fixed_dictionaries(
        {}, optional={peer_key: st.lists(peers, max_size=2), "ports": st.lists(ports, max_size=2)}
    )
    return st.lists(rule, min_size=min_size, max_size=2)


def specs(explicit_types: bool) -> st.SearchStrategy[Obj]:
    types = st.sampled_from([["Ingress"], ["Egress"], ["Ingress", "Egress"]])
    return st.fixed_dictionaries(
        {"podSelector": selectors, **({"policyTypes": types} if explicit_types else {})},
        optional={"ingress": rules("from"), "egress": rules("to")},
    )


def policies(explicit_types: bool = False) -> st.SearchStrategy[list[NetworkPolicy]]:
    one = st.builds(
        lambda ns, spec: policy_from_object(policy(f"{ns}/pol", spec)),
        st.sampled_from(["a", "b"]),
        specs(explicit_types),
    )
    return st.lists(one, max_size=3)


def allowed(policies: list[NetworkPolicy]) -> set[Connection]:
    return {row for row in Reachability(CLUSTER, policies).matrix() if row.allowed}


@settings(max_examples=150, deadline=None)
@given(policies(explicit_types=True), st.data())
def test_adding_a_rule_never_removes_reachability(found: list[NetworkPolicy], data: Any) -> None:
    before = allowed(found)
    if not found:
        return
    index = data.draw(st.integers(0, len(found) - 1))
    direction = data.draw(st.sampled_from(["ingress", "egress"]))
    peer_key = "from" if direction == "ingress" else "to"
    extra = data.draw(rules(peer_key, min_size=1))
    spec = {"podSelector": {}, direction: extra, "policyTypes": [direction.capitalize()]}
    widened = policy_from_object(policy(f"{found[index].namespace}/pol", spec))
    grown = dataclasses.replace(
        found[index],
        ingress=found[index].ingress + widened.ingress,
        egress=found[index].egress + widened.egress,
    )
    assert before <= allowed([*found[:index], grown, *found[index + 1 :]])


@settings(max_examples=150, deadline=None)
@given(policies())
def test_a_pod_no_policy_isolates_is_open_in_that_direction(found: list[NetworkPolicy]) -> None:
    r = Reachability(CLUSTER, found)
    no_ingress = Reachability(
        CLUSTER, [dataclasses.replace(p, isolates_ingress=False) for p in found]
    )
    no_egress = Reachability(
        CLUSTER, [dataclasses.replace(p, isolates_egress=False) for p in found]
    )
    for row in r.matrix():
        source, destination = CLUSTER.pod(row.source), CLUSTER.pod(row.destination)
        if not any(p.isolates_ingress and p.selects(destination) for p in found):
            assert row.allowed == no_ingress.allowed(source, destination, row.port, row.protocol)
        if not any(p.isolates_egress and p.selects(source) for p in found):
            assert row.allowed == no_egress.allowed(source, destination, row.port, row.protocol)


@settings(max_examples=100, deadline=None)
@given(policies(), st.sampled_from(["a", "b"]), specs(explicit_types=True))
def test_a_policy_without_rules_only_takes_reachability_away(
    found: list[NetworkPolicy], ns: str, spec: Obj
) -> None:
    """A policy with no rules can only isolate pods (policies allow, never deny, but isolation
    turns a pod's open direction into "only what some policy allows")."""
    spec = {key: value for key, value in spec.items() if key not in ("ingress", "egress")}
    deny = policy_from_object(policy(f"{ns}/deny", spec))
    assert allowed([*found, deny]) <= allowed(found)


@settings(max_examples=60, deadline=None)
@given(policies(), st.randoms())
def test_the_order_of_policies_does_not_matter(found: list[NetworkPolicy], rng: Any) -> None:
    shuffled = list(found)
    rng.shuffle(shuffled)
    assert allowed(found) == allowed(shuffled)


@settings(max_examples=100, deadline=None)
@given(policies())
def test_an_allowed_connection_is_allowed_by_each_end_alone(found: list[NetworkPolicy]) -> None:
    """Both ends must agree: allowed implies allowed with either direction's isolation lifted."""
    no_ingress = allowed([dataclasses.replace(p, isolates_ingress=False) for p in found])
    no_egress = allowed([dataclasses.replace(p, isolates_egress=False) for p in found])
    both = allowed(found)
    key = {(r.source, r.destination, r.port, r.protocol) for r in both}
    assert key <= {(r.source, r.destination, r.port, r.protocol) for r in no_ingress}
    assert key <= {(r.source, r.destination, r.port, r.protocol) for r in no_egress}
