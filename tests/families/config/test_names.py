"""Names as the API server validates them: each kind's rule for ``metadata.name``, the
namespace's, and the names of containers and ports; an object that breaks one is refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay.families.config.cluster import container_port
from assay.families.config.meaning import meaning
from assay.families.config.names import (
    dns_1035_label_problem,
    dns_label_problem,
    dns_subdomain_problem,
    path_segment_problem,
    port_name_problem,
)
from assay.families.config.selectors import ObjectError
from tests.families.config.kube import Obj, binding, cluster_role, namespace, pod, policy, role


@pytest.mark.parametrize(
    ("rule", "good", "bad"),
    [
        (dns_subdomain_problem, ["db", "a.b-c", "0x", "a" * 253], ["A", "a_b", "-a", "a.", ""]),
        (dns_subdomain_problem, [], ["a" * 254, "postgres_ingress!", "a..b"]),
        (dns_label_problem, ["db", "a-0", "0a", "a" * 63], ["a.b", "a" * 64, "a-", "Db", ""]),
        (dns_1035_label_problem, ["db", "a-0", "a" * 63], ["0a", "a.b", "a" * 64, "a-"]),
        (path_segment_problem, ["Read_DB.Password!", "system:x", "a..b"], [".", "..", "a/b"]),
        (path_segment_problem, [], ["a%2Fb"]),
        (port_name_problem, ["http", "h2c", "a-b", "a" * 15], ["8080", "a" * 16, "a--b", "-a"]),
        (port_name_problem, [], ["a-", "Http", "a.b", "a_b", ""]),
    ],
)
def test_each_rule_takes_what_the_api_server_takes(
    rule: Callable[[str], str | None], good: list[str], bad: list[str]
) -> None:
    assert [name for name in good if rule(name) is not None] == []
    assert [name for name in bad if rule(name) is None] == []


def _named(obj: Obj, name: str) -> Obj:
    return {**obj, "metadata": {**obj["metadata"], "name": name}}


SERVICE: Obj = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
}


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            policy("data/Postgres_Ingress!", {"podSelector": {}}),
            "NetworkPolicy data/Postgres_Ingress!: metadata.name: 'Postgres_Ingress!' is not a "
            "DNS-1123 subdomain",
        ),
        (namespace("team.a"), "Namespace team.a: metadata.name: 'team.a' is not a DNS-1123 label"),
        (_named(SERVICE, "1web"), "Service shop/1web: metadata.name: '1web' is not a DNS-1035"),
        (_named(SERVICE, "web.shop"), "metadata.name: 'web.shop' is not a DNS-1035 label"),
        (role("shop/read%2Fdb"), "Role shop/read%2Fdb: metadata.name: 'read%2Fdb' is not a path"),
        (cluster_role(".."), "ClusterRole ..: metadata.name: '..' is not a path segment"),
        (
            {**binding("shop/b", "Role:r"), "metadata": {"name": "a/b", "namespace": "shop"}},
            "RoleBinding shop/a/b: metadata.name",
        ),
        (binding("a%b", "ClusterRole:view"), "ClusterRoleBinding a%b: metadata.name"),
        (pod("Shop/db-0"), "Pod Shop/db-0: metadata.namespace: 'Shop' is not a DNS-1123 label"),
        (policy("a.b/x", {"podSelector": {}}), "metadata.namespace: 'a.b' is not a DNS-1123"),
        ({"apiVersion": "v1", "kind": "Namespace", "metadata": {}}, "metadata.name is required"),
    ],
)
def test_an_object_whose_name_breaks_its_kinds_rule_is_refused(obj: Obj, message: str) -> None:
    with pytest.raises(ObjectError) as caught:
        meaning([obj])
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_names_the_api_server_takes_are_taken() -> None:
    found = meaning(
        [
            namespace("team-a"),
            pod("team-a/db-0.primary", "10.0.0.1", "pg=5432"),
            policy("team-a/db.ingress", {"podSelector": {}}),
            _named({**SERVICE, "metadata": {"name": "web", "namespace": "team-a"}}, "web-2"),
            role("team-a/Read_DB.Password!"),
            cluster_role("system:reader"),
            binding("team-a/Read_DB.Password!", "Role:Read_DB.Password!", "User:alice"),
            {**cluster_role("ns-scoped"), "metadata": {"name": "x", "namespace": "NOT.A_LABEL"}},
        ]
    )
    assert "team-a/web-2" in found.services


@pytest.mark.parametrize(
    ("port", "message"),
    [
        ({"containerPort": 80, "name": "HTTP"}, "ports.name: 'HTTP' is not a valid port name"),
        ({"containerPort": 80, "name": "metrics-endpoint"}, "is not a valid port name"),
        ({"containerPort": 80, "name": "8080"}, "is not a valid port name"),
    ],
)
def test_a_container_port_name_must_be_an_iana_service_name(port: Obj, message: str) -> None:
    with pytest.raises(ObjectError, match=message):
        container_port(port, "Pod shop/web")
    assert container_port({"containerPort": 80, "name": "http-alt"}, "x").name == "http-alt"
