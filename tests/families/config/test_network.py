"""NetworkPolicy reachability, rule by rule. Each expected answer is argued from the Kubernetes
documentation (concepts/services-networking/network-policies and the API reference of
NetworkPolicySpec, NetworkPolicyPeer and NetworkPolicyPort)."""

from __future__ import annotations

import pytest

from assay.families.config.cluster import Cluster, cluster_from_objects
from assay.families.config.network import Reachability, policy_from_object
from assay.families.config.selectors import ObjectError
from tests.families.config.kube import Obj, namespace, pod, policy

CLUSTER = cluster_from_objects(
    [
        namespace("shop", team="shop", env="prod"),
        namespace("ops", team="ops", env="prod"),
        namespace("dev", env="dev"),
        pod("shop/api-1", "10.0.1.1", "http=8080", app="api", tier="backend"),
        pod("shop/db-0", "10.0.1.2", "postgres=5432 metrics=9187", app="db"),
        pod("shop/web-0", "10.0.1.3", "http=80", app="web"),
        pod("shop/dns-0", "10.0.1.4", "dns=53/UDP dns-tcp=53 sig=9999/SCTP", app="dns"),
        pod("ops/monitor-0", "10.0.2.1", "http=9090", app="monitor"),
        pod("dev/api-1", "10.0.3.1", "http=8080", app="api"),
        pod("dev/nobody", None, "http=8080", app="scratch"),
    ]
)


def reach(*policies: Obj, cluster: Cluster = CLUSTER) -> Reachability:
    return Reachability(cluster, [policy_from_object(p) for p in policies])


def can(r: Reachability, source: str, destination: str, port: int, protocol: str = "TCP") -> bool:
    return r.allowed(r.cluster.pod(source), r.cluster.pod(destination), port, protocol)


DENY_SHOP_INGRESS = policy("shop/deny", {"podSelector": {}, "policyTypes": ["Ingress"]})


def test_without_policies_every_pod_reaches_every_pod() -> None:
    """ "By default, a pod is non-isolated for egress and ingress"."""
    r = reach()
    assert all(row.allowed for row in r.matrix())
    assert can(r, "dev/nobody", "shop/db-0", 12345)


def test_default_deny_ingress_isolates_only_the_selected_pods_and_only_for_ingress() -> None:
    """The docs' "default deny all ingress traffic": podSelector {} selects every pod of the
    policy's namespace; no ingress rules means nothing is allowed in. Egress stays open, and pods
    of other namespaces are not selected."""
    r = reach(DENY_SHOP_INGRESS)
    assert not can(r, "ops/monitor-0", "shop/db-0", 5432)
    assert not can(r, "shop/api-1", "shop/db-0", 5432)
    assert can(r, "shop/api-1", "ops/monitor-0", 9090)
    assert can(r, "dev/api-1", "ops/monitor-0", 9090)


def test_a_pod_may_always_reach_itself() -> None:
    """Loopback is not subject to policy (the upstream conformance tests' AllowLoopback)."""
    assert can(reach(DENY_SHOP_INGRESS), "shop/db-0", "shop/db-0", 5432)


def test_missing_policy_types_default_to_ingress_when_there_are_no_egress_rules() -> None:
    """policyTypes unset: Ingress always; Egress only "if the policy has any egress rules". A
    policy with only ingress rules therefore leaves the selected pod's egress open."""
    r = reach(policy("shop/db", {"podSelector": {"matchLabels": {"app": "db"}}}))
    assert not can(r, "shop/api-1", "shop/db-0", 5432)
    assert can(r, "shop/db-0", "shop/api-1", 8080)


def test_missing_policy_types_include_egress_when_there_are_egress_rules() -> None:
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "dns"}}}]}],
    }
    r = reach(policy("shop/db", spec))
    assert not can(r, "shop/db-0", "shop/api-1", 8080)  # egress isolated: only dns allowed
    assert can(r, "shop/db-0", "shop/dns-0", 53, "UDP")
    assert not can(r, "shop/api-1", "shop/db-0", 5432)  # and ingress isolated, no ingress rules


def test_an_empty_egress_list_does_not_default_egress_in() -> None:
    """The default looks at len(egress) != 0: ``egress: []`` adds no Egress type."""
    spec: Obj = {"podSelector": {"matchLabels": {"app": "db"}}, "egress": []}
    r = reach(policy("shop/db", spec))
    assert can(r, "shop/db-0", "shop/api-1", 8080)
    assert not can(r, "shop/api-1", "shop/db-0", 5432)


def test_an_empty_policy_types_list_is_defaulted_like_a_missing_one() -> None:
    spec: Obj = {"podSelector": {"matchLabels": {"app": "db"}}, "policyTypes": []}
    r = reach(policy("shop/db", spec))
    assert not can(r, "shop/api-1", "shop/db-0", 5432)
    assert can(r, "shop/db-0", "shop/api-1", 8080)


def test_egress_only_policy_types_ignore_ingress_rules_and_leave_ingress_open() -> None:
    """policyTypes [Egress]: the policy isolates egress only; its ingress section is inert."""
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "policyTypes": ["Egress"],
        "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "api"}}}]}],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "shop/web-0", "shop/db-0", 5432)  # ingress not isolated
    assert not can(r, "shop/db-0", "shop/web-0", 80)  # egress isolated, no egress rules


def test_default_deny_egress_blocks_the_source_even_when_the_target_is_open() -> None:
    """Both ends must allow: the source's egress and the destination's ingress."""
    r = reach(policy("shop/deny-out", {"podSelector": {}, "policyTypes": ["Egress"]}))
    assert not can(r, "shop/api-1", "ops/monitor-0", 9090)
    assert can(r, "ops/monitor-0", "shop/api-1", 8080)


def test_ingress_allowed_by_the_target_is_still_denied_by_the_sources_egress() -> None:
    open_db = policy(
        "shop/db",
        {"podSelector": {"matchLabels": {"app": "db"}}, "ingress": [{}]},
    )
    no_egress = policy(
        "shop/api-out",
        {"podSelector": {"matchLabels": {"app": "api"}}, "policyTypes": ["Egress"]},
    )
    assert can(reach(open_db), "shop/api-1", "shop/db-0", 5432)
    assert not can(reach(open_db, no_egress), "shop/api-1", "shop/db-0", 5432)


def test_one_empty_ingress_rule_allows_everything_and_a_missing_ingress_allows_nothing() -> None:
    """The docs' "allow all ingress traffic": ``ingress: [{}]``."""
    allow_all = policy("shop/all", {"podSelector": {}, "ingress": [{}]})
    assert can(reach(allow_all), "dev/nobody", "shop/db-0", 5432)
    isolating = policy("shop/none", {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": []})
    assert not can(reach(isolating), "shop/api-1", "shop/db-0", 5432)


def test_policies_add_up_and_none_can_deny_what_another_allows() -> None:
    """ "Network policies do not conflict; they are additive"."""
    allow_api = policy(
        "shop/api-to-db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "api"}}}]}],
        },
    )
    r = reach(DENY_SHOP_INGRESS, allow_api)
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "shop/web-0", "shop/db-0", 5432)


def test_an_empty_from_matches_every_source_on_the_listed_ports() -> None:
    spec: Obj = {"podSelector": {}, "ingress": [{"from": [], "ports": [{"port": 80}]}]}
    r = reach(policy("shop/web", spec))
    assert can(r, "dev/nobody", "shop/web-0", 80)
    assert not can(r, "dev/nobody", "shop/api-1", 8080)


def test_a_pod_selector_alone_means_pods_of_the_policys_own_namespace() -> None:
    """ "podSelector: selects particular Pods in the same namespace as the NetworkPolicy"."""
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "api"}}}]}],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "dev/api-1", "shop/db-0", 5432)


def test_a_namespace_selector_alone_means_every_pod_of_the_matching_namespaces() -> None:
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "ops"}}}]}],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "ops/monitor-0", "shop/db-0", 9187)
    assert not can(r, "shop/api-1", "shop/db-0", 5432)  # its own namespace is not team=ops


def test_both_selectors_in_one_peer_are_an_and() -> None:
    """The docs' contrast: one element with namespaceSelector and podSelector allows pods with
    the labels in namespaces with the labels."""
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [
            {
                "from": [
                    {
                        "namespaceSelector": {"matchLabels": {"env": "dev"}},
                        "podSelector": {"matchLabels": {"app": "api"}},
                    }
                ]
            }
        ],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "dev/api-1", "shop/db-0", 5432)
    assert not can(r, "dev/nobody", "shop/db-0", 5432)  # in dev, but not an api pod
    assert not can(r, "shop/api-1", "shop/db-0", 5432)  # an api pod, but not in dev


def test_the_same_selectors_in_two_peers_are_an_or() -> None:
    """Two elements of ``from``: pods with the labels in the policy's namespace, OR any pod in
    namespaces with the labels."""
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [
            {
                "from": [
                    {"namespaceSelector": {"matchLabels": {"env": "dev"}}},
                    {"podSelector": {"matchLabels": {"app": "api"}}},
                ]
            }
        ],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "dev/api-1", "shop/db-0", 5432)
    assert can(r, "dev/nobody", "shop/db-0", 5432)
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "shop/web-0", "shop/db-0", 5432)


def test_an_empty_namespace_selector_with_a_pod_selector_means_those_pods_anywhere() -> None:
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [
            {"from": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "api"}}}]}
        ],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "dev/api-1", "shop/db-0", 5432)
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "ops/monitor-0", "shop/db-0", 5432)


def test_namespaces_carry_their_name_as_the_automatic_label() -> None:
    """Since 1.21 the control plane sets kubernetes.io/metadata.name on every namespace."""
    spec: Obj = {
        "podSelector": {},
        "ingress": [
            {
                "from": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ops"}}}
                ]
            }
        ],
    }
    r = reach(policy("shop/from-ops", spec))
    assert can(r, "ops/monitor-0", "shop/api-1", 8080)
    assert not can(r, "dev/api-1", "shop/api-1", 8080)


@pytest.mark.parametrize(
    ("expression", "allowed"),
    [
        ({"key": "app", "operator": "In", "values": ["api", "monitor"]}, {"shop/api-1"}),
        ({"key": "app", "operator": "NotIn", "values": ["api", "web"]}, {"shop/dns-0"}),
        ({"key": "tier", "operator": "Exists"}, {"shop/api-1"}),
        ({"key": "tier", "operator": "DoesNotExist"}, {"shop/web-0", "shop/dns-0"}),
    ],
)
def test_match_expressions(expression: Obj, allowed: set[str]) -> None:
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [{"from": [{"podSelector": {"matchExpressions": [expression]}}]}],
    }
    r = reach(policy("shop/db", spec))
    sources = {"shop/api-1", "shop/web-0", "shop/dns-0"}
    assert {s for s in sources if can(r, s, "shop/db-0", 5432)} == allowed


def test_match_labels_and_match_expressions_must_all_hold() -> None:
    selector: Obj = {
        "matchLabels": {"app": "api"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["backend"]}],
    }
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "db"}},
        "ingress": [{"from": [{"podSelector": selector, "namespaceSelector": {}}]}],
    }
    r = reach(policy("shop/db", spec))
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "dev/api-1", "shop/db-0", 5432)  # app=api but no tier label


def test_a_named_port_is_resolved_on_each_target_pod() -> None:
    """A named ingress port means, on each selected pod, the container port of that name:
    "http" is 8080 on the api pod and 80 on the web pod."""
    spec: Obj = {"podSelector": {}, "ingress": [{"ports": [{"port": "http"}]}]}
    r = reach(policy("shop/http", spec))
    assert can(r, "ops/monitor-0", "shop/api-1", 8080)
    assert not can(r, "ops/monitor-0", "shop/api-1", 80)
    assert can(r, "ops/monitor-0", "shop/web-0", 80)
    assert not can(r, "ops/monitor-0", "shop/web-0", 8080)
    assert not can(r, "ops/monitor-0", "shop/db-0", 5432)  # no port named http


def test_a_named_port_must_match_the_protocol_too() -> None:
    """dns-0 names 53/UDP "dns" and 53/TCP "dns-tcp": port "dns" over TCP matches nothing."""
    tcp = policy("shop/dns", {"podSelector": {}, "ingress": [{"ports": [{"port": "dns"}]}]})
    assert not can(reach(tcp), "shop/api-1", "shop/dns-0", 53, "TCP")
    assert not can(reach(tcp), "shop/api-1", "shop/dns-0", 53, "UDP")
    udp = policy(
        "shop/dns",
        {"podSelector": {}, "ingress": [{"ports": [{"port": "dns", "protocol": "UDP"}]}]},
    )
    assert can(reach(udp), "shop/api-1", "shop/dns-0", 53, "UDP")


def test_a_named_egress_port_is_resolved_on_the_destination() -> None:
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "api"}},
        "policyTypes": ["Egress"],
        "egress": [{"ports": [{"port": "postgres"}]}],
    }
    r = reach(policy("shop/api-out", spec))
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "shop/api-1", "shop/db-0", 9187)
    assert not can(r, "shop/api-1", "shop/web-0", 80)


def test_a_port_range_includes_both_ends() -> None:
    spec: Obj = {"podSelector": {}, "ingress": [{"ports": [{"port": 5432, "endPort": 9187}]}]}
    r = reach(policy("shop/range", spec))
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert can(r, "shop/api-1", "shop/db-0", 9187)
    assert can(r, "shop/db-0", "shop/api-1", 8080)
    assert not can(r, "shop/db-0", "shop/web-0", 80)


def test_protocol_defaults_to_tcp_and_udp_and_sctp_are_their_own() -> None:
    only_53: Obj = {"podSelector": {}, "ingress": [{"ports": [{"port": 53}]}]}
    r = reach(policy("shop/p", only_53))
    assert can(r, "shop/api-1", "shop/dns-0", 53, "TCP")
    assert not can(r, "shop/api-1", "shop/dns-0", 53, "UDP")
    sctp: Obj = {"podSelector": {}, "ingress": [{"ports": [{"protocol": "SCTP"}]}]}
    r = reach(policy("shop/s", sctp))
    assert can(r, "shop/api-1", "shop/dns-0", 9999, "SCTP")
    assert not can(r, "shop/api-1", "shop/dns-0", 9999, "TCP")


def test_a_port_entry_without_a_number_allows_every_port_of_its_protocol() -> None:
    spec: Obj = {"podSelector": {}, "ingress": [{"ports": [{"protocol": "UDP"}]}]}
    r = reach(policy("shop/udp", spec))
    assert can(r, "shop/api-1", "shop/dns-0", 53, "UDP")
    assert not can(r, "shop/api-1", "shop/dns-0", 53, "TCP")


def test_ip_block_with_except_uses_pod_ips() -> None:
    block: Obj = {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.3.0/24"]}}
    spec: Obj = {"podSelector": {}, "ingress": [{"from": [block]}]}
    r = reach(policy("shop/ips", spec))
    assert can(r, "ops/monitor-0", "shop/db-0", 5432)  # 10.0.2.1
    assert not can(r, "dev/api-1", "shop/db-0", 5432)  # 10.0.3.1, excepted
    assert not can(r, "dev/nobody", "shop/db-0", 5432)  # no podIP: no ipBlock matches it


def test_ip_block_egress_uses_the_destinations_ip_and_ignores_the_other_ip_version() -> None:
    spec: Obj = {
        "podSelector": {"matchLabels": {"app": "api"}},
        "policyTypes": ["Egress"],
        "egress": [{"to": [{"ipBlock": {"cidr": "10.0.1.2/32"}}, {"ipBlock": {"cidr": "::/0"}}]}],
    }
    r = reach(policy("shop/api-out", spec))
    assert can(r, "shop/api-1", "shop/db-0", 5432)
    assert not can(r, "shop/api-1", "shop/web-0", 80)


def test_a_policy_selects_pods_of_its_own_namespace_only() -> None:
    spec: Obj = {"podSelector": {"matchLabels": {"app": "api"}}, "policyTypes": ["Ingress"]}
    r = reach(policy("dev/api", spec))
    assert not can(r, "shop/web-0", "dev/api-1", 8080)
    assert can(r, "shop/web-0", "shop/api-1", 8080)


def test_the_matrix_has_every_ordered_pair_of_distinct_pods_and_each_declared_port() -> None:
    rows = reach(DENY_SHOP_INGRESS).matrix()
    pods = len(CLUSTER.pods)
    declared = sum(len({(p.number, p.protocol) for p in pod.ports}) for pod in CLUSTER.pods)
    assert len(rows) == declared * (pods - 1)
    assert rows == sorted(rows)
    assert all(row.source != row.destination for row in rows)
    db_rows = [r for r in rows if r.destination == "shop/db-0"]
    assert {(r.port, r.protocol) for r in db_rows} == {(5432, "TCP"), (9187, "TCP")}
    assert not any(r.allowed for r in db_rows)


def test_a_namespace_without_an_object_has_its_automatic_label_only() -> None:
    cluster = cluster_from_objects([pod("lone/p", "10.9.0.1", "80"), pod("shop/q", None, "80")])
    assert cluster.namespace_labels("lone") == {"kubernetes.io/metadata.name": "lone"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"ingress": [{"from": [{}]}]}, "must specify a peer"),
        (
            {"ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}, "podSelector": {}}]}]},
            "may not be combined",
        ),
        ({"ingress": [{"ports": [{"port": "http", "endPort": 90}]}]}, "numeric port"),
        ({"ingress": [{"ports": [{"port": 90, "endPort": 80}]}]}, "at least port"),
        ({"ingress": [{"ports": [{"port": "8080"}]}]}, "not a valid port name"),
        ({"ingress": [{"ports": [{"port": 70000}]}]}, "1-65535"),
        ({"ingress": [{"ports": [{"protocol": "ICMP"}]}]}, "not one of"),
        (
            {
                "ingress": [
                    {"from": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24"]}}]}
                ]
            },
            "strict subset",
        ),
        ({"ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.300/16"}}]}]}, "not a CIDR"),
        (
            {"podSelector": {"matchExpressions": [{"key": "a", "operator": "Equals"}]}},
            "is not one of",
        ),
        (
            {"podSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}},
            "non-empty",
        ),
        (
            {
                "podSelector": {
                    "matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]
                }
            },
            "must be empty",
        ),
        ({"policyTypes": ["Inbound"]}, "policyTypes"),
    ],
)
def test_objects_the_api_server_refuses_are_refused(spec: Obj, message: str) -> None:
    with pytest.raises(ObjectError, match=message):
        policy_from_object(policy("shop/bad", {"podSelector": {}, **spec}))
