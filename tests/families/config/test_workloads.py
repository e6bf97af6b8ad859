"""Resource quantities, container requirements, Service selection; several readings of one
task; and the probes of the audit's sensitivity check."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from assay.families.base import SensitivityFamily
from assay.families.config import ConfigFamily
from assay.families.config.cluster import make_cluster
from assay.families.config.powers import powers
from assay.families.config.selectors import ObjectError
from assay.families.config.workloads import (
    ContainerRules,
    container_problems,
    quantity,
    service_problems,
    services_from_objects,
    workloads_from_objects,
)
from assay.sandbox import PoolSandbox
from assay.verdicts import Status
from tests.families.config.conftest import fixture_task, with_hidden
from tests.families.config.kube import pod


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("500m", Decimal("0.5")),
        ("2", Decimal(2)),
        ("0.25", Decimal("0.25")),
        ("512Mi", Decimal(512 * 1024**2)),
        ("1Gi", Decimal(1024**3)),
        ("1G", Decimal(10**9)),
        ("1k", Decimal(1000)),
        ("1e3", Decimal(1000)),
    ],
)
def test_quantities_read_as_the_api_reads_them(text: str, value: Decimal) -> None:
    assert quantity(text) == value


@pytest.mark.parametrize("text", ["", "1 Gi", "Gi", "1GB", "one", "1x"])
def test_text_that_is_not_a_quantity_is_refused(text: str) -> None:
    with pytest.raises(ObjectError):
        quantity(text)


def _deployment(containers: list[dict[str, Any]], **pod_spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "shop"},
        "spec": {
            "selector": {"matchLabels": {"app": "api"}},
            "template": {
                "metadata": {"labels": {"app": "api"}},
                "spec": {"containers": containers, **pod_spec},
            },
        },
    }


def test_limits_requests_and_their_bounds_are_checked_per_container() -> None:
    good = {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m"}}
    objects = [
        _deployment(
            [
                {"name": "api", "image": "a:1", "resources": good},
                {"name": "sidecar", "image": "b:1", "resources": {"limits": {"cpu": "2"}}},
            ]
        )
    ]
    workload = workloads_from_objects(objects)["Deployment shop/api"]
    assert workload.labels == {"app": "api"}
    rules = ContainerRules(
        limits=("cpu", "memory"), requests=("cpu",), max_limits={"cpu": "1", "memory": "1Gi"}
    )
    assert container_problems(workload, rules) == [
        "container sidecar: no memory limit",
        "container sidecar: no cpu request",
        "container sidecar: cpu limit 2 is over 1",
    ]
    assert container_problems(workload, ContainerRules(images={"api": "a:1"})) == [
        "containers {'api': 'a:1', 'sidecar': 'b:1'} are not {'api': 'a:1'}"
    ]


@pytest.mark.parametrize(
    ("containers", "message"),
    [
        ([{"name": "API", "image": "a:1"}], "container API: name: 'API' is not a DNS-1123 label"),
        ([{"name": "api.v2", "image": "a:1"}], "'api.v2' is not a DNS-1123 label"),
        ([{"image": "a:1"}], "name: is required"),
        ([{"name": "api", "image": "a:1"}] * 2, "container api: name: 'api' is taken"),
        (
            [{"name": "api", "image": "a:1", "ports": [{"containerPort": 80, "name": "Web"}]}],
            "container api: ports.name: 'Web' is not a valid port name",
        ),
    ],
)
def test_container_and_port_names_the_api_server_refuses_are_refused(
    containers: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(ObjectError, match=message):
        workloads_from_objects([_deployment(containers)])


def _service(*ports: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"app": "web"}, "ports": list(ports)},
    }


@pytest.mark.parametrize(
    ("ports", "message"),
    [
        (
            [{"port": 80}, {"port": 443}],
            r"spec.ports\[0\].name: is required when a Service has several ports",
        ),
        ([{"port": 80, "name": "Web"}], r"ports\[0\].name: 'Web' is not a DNS-1123 label"),
        ([{"port": 80, "name": "a"}, {"port": 81, "name": "a"}], "'a' is taken by another"),
        ([{"port": 80, "targetPort": "web_http"}], "targetPort: 'web_http' is not a valid port"),
    ],
)
def test_service_port_names_the_api_server_refuses_are_refused(
    ports: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(ObjectError, match=message):
        services_from_objects([_service(*ports)])
    named = [{"port": 80, "name": "http", "targetPort": "http"}, {"port": 443, "name": "https"}]
    assert len(services_from_objects([_service(*named)])["shop/web"].ports) == 2


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"type": "loadbalancer"}, "spec.type: 'loadbalancer' is not one of ClusterIP"),
        ({"type": "Internal"}, "spec.type: 'Internal' is not one of ClusterIP"),
        ({}, r"spec.ports\[0\].nodePort: may not be used when type is ClusterIP"),
    ],
)
def test_services_the_api_server_refuses_are_refused(spec: dict[str, Any], message: str) -> None:
    """A type the API server does not know, or a node port on a Service that has none: not
    a Service that merely exposes nothing."""
    service = _service({"port": 80, **({} if spec else {"nodePort": 30080})})
    service["spec"].update(spec)
    with pytest.raises(ObjectError, match=message):
        services_from_objects([service])
    exposed = _service({"port": 80, "nodePort": 30080})
    exposed["spec"]["type"] = "NodePort"
    assert services_from_objects([exposed])["shop/web"].exposure == ("type NodePort",)


def test_a_containers_security_context_overrides_the_pods() -> None:
    hardened = {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    rules = ContainerRules(
        run_as_non_root=True,
        read_only_root_filesystem=True,
        no_privilege_escalation=True,
        drop_all_capabilities=True,
    )
    pod_level = _deployment(
        [{"name": "api", "image": "a", "securityContext": hardened}],
        securityContext={"runAsNonRoot": True},
    )
    overridden = _deployment(
        [{"name": "api", "image": "a", "securityContext": {**hardened, "runAsNonRoot": False}}],
        securityContext={"runAsNonRoot": True},
    )
    privileged = _deployment(
        [
            {
                "name": "api",
                "image": "a",
                "securityContext": {**hardened, "privileged": True, "runAsNonRoot": True},
            }
        ]
    )
    found = workloads_from_objects([pod_level])["Deployment shop/api"]
    assert container_problems(found, rules) == []
    found = workloads_from_objects([overridden])["Deployment shop/api"]
    assert container_problems(found, rules) == ["container api: runAsNonRoot is not true"]
    found = workloads_from_objects([privileged])["Deployment shop/api"]
    assert container_problems(found, rules) == ["container api: privileged"]


HARDENED = {
    "runAsNonRoot": True,
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}
HARDENING = ContainerRules(
    run_as_non_root=True,
    read_only_root_filesystem=True,
    no_privilege_escalation=True,
    drop_all_capabilities=True,
)


def test_hardening_is_not_met_by_root_user_0_or_capabilities_added_back() -> None:
    added = {**HARDENED, "capabilities": {"drop": ["ALL"], "add": ["SYS_ADMIN"]}}
    for containers, pod_spec, problem in [
        ([{"name": "api", "securityContext": added}], {}, "capabilities.add holds SYS_ADMIN"),
        (
            [{"name": "api", "securityContext": HARDENED}],
            {"securityContext": {"runAsUser": 0}},
            "runAsUser is 0 (root)",
        ),
        (
            [{"name": "api", "securityContext": {**HARDENED, "runAsUser": 0}}],
            {"securityContext": {"runAsUser": 1000}},
            "runAsUser is 0 (root)",
        ),
    ]:
        found = workloads_from_objects([_deployment(containers, **pod_spec)])
        assert container_problems(found["Deployment shop/api"], HARDENING) == [
            f"container api: {problem}"
        ]
    overridden = _deployment(
        [{"name": "api", "securityContext": {**HARDENED, "runAsUser": 1000}}],
        securityContext={"runAsUser": 0},
    )
    found = workloads_from_objects([overridden])["Deployment shop/api"]
    assert container_problems(found, HARDENING) == []


def test_every_container_is_hardened_init_and_ephemeral_ones_too() -> None:
    setup = {"name": "setup", "image": "busybox", "securityContext": {"privileged": True}}
    for field, kind in [
        ("initContainers", "init container"),
        ("ephemeralContainers", "ephemeral container"),
    ]:
        objects = [_deployment([{"name": "api", "securityContext": HARDENED}], **{field: [setup]})]
        problems = container_problems(
            workloads_from_objects(objects)["Deployment shop/api"], HARDENING
        )
        assert f"{kind} setup: privileged" in problems
        assert f"{kind} setup: runAsNonRoot is not true" in problems
    objects = [_deployment([{"name": "api"}], initContainers=[{"name": "setup"}])]
    limits = ContainerRules(limits=("cpu",))
    assert container_problems(workloads_from_objects(objects)["Deployment shop/api"], limits) == [
        "container api: no cpu limit",
        "init container setup: no cpu limit",
    ]


def test_powers_are_what_a_pod_may_do_on_its_node_beyond_a_default_pod() -> None:
    plain = workloads_from_objects([_deployment([{"name": "api"}])])["Deployment shop/api"]
    assert powers(plain) == frozenset()
    assert plain.replicas == 1
    strong = _deployment(
        [
            {
                "name": "api",
                "ports": [{"containerPort": 80, "hostPort": 80}],
                "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}, "runAsUser": 0},
            }
        ],
        hostNetwork=True,
        hostPID=True,
        hostIPC=False,
        volumes=[{"name": "root", "hostPath": {"path": "/"}}, {"name": "tmp", "emptyDir": {}}],
        initContainers=[{"name": "setup", "securityContext": {"privileged": True}}],
    )
    strong["spec"]["replicas"] = 3
    found = workloads_from_objects([strong])["Deployment shop/api"]
    assert found.replicas == 3
    unset = _deployment([{"name": "api"}])
    unset["spec"]["replicas"] = None  # null is no value: the API server's default of 1
    assert workloads_from_objects([unset])["Deployment shop/api"].replicas == 1
    assert powers(found) == {
        "hostNetwork",
        "hostPID",
        "hostPath volume /",
        "container api: adds capability NET_ADMIN",
        "container api: runs as user 0 (root)",
        "container api: hostPort 80",
        "init container setup: privileged",
    }


def test_a_service_selects_pods_of_its_namespace_and_reaches_declared_ports() -> None:
    cluster_objects = [
        pod("shop/web-1", "10.0.0.1", "http=8080", app="web", track="stable"),
        pod("shop/web-2", "10.0.0.2", "8080", app="web", track="canary"),
        pod("ops/web-3", "10.0.1.1", "http=8080", app="web", track="stable"),
    ]
    from assay.families.config.cluster import cluster_from_objects  # noqa: PLC0415

    cluster = cluster_from_objects(cluster_objects)

    def service(selector: dict[str, str] | None, target: object) -> Any:
        spec: dict[str, Any] = {"ports": [{"port": 80, "targetPort": target}]}
        if selector is not None:
            spec["selector"] = selector
        obj = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": spec,
        }
        return services_from_objects([obj])["shop/web"]

    stable = {"app": "web", "track": "stable"}
    assert service_problems(service(stable, "http"), cluster, ["shop/web-1"]) == []
    assert service_problems(service({"app": "web"}, 8080), cluster, ["shop/web-1"]) == [
        "selects shop/web-2, which it should not"
    ]
    assert service_problems(service({"app": "web"}, "http"), cluster, ["shop/web-1"]) == [
        "selects shop/web-2, which it should not",
        "targetPort 'http' is not a port of shop/web-2",
    ]
    assert service_problems(service(None, "http"), cluster, ["shop/web-1"]) == [
        "does not select shop/web-1"
    ]
    assert service_problems(service(stable, 80), cluster, ["shop/web-1"]) == [
        "targetPort 80 is not a port of shop/web-1"
    ]
    assert service_problems(service(stable, "http"), cluster, ["shop/web-1"], [80]) == []
    assert service_problems(service(stable, "http"), cluster, ["shop/web-1"], [443]) == [
        "serves ports [80], not [443]"
    ]
    assert make_cluster({}, []).pods == ()


def test_an_external_name_service_selects_no_pod_whatever_its_selector() -> None:
    """The endpoint controllers skip a Service of type ExternalName: it is a DNS alias of
    another name, and no traffic sent to it reaches the pods its selector matches."""
    from assay.families.config.cluster import cluster_from_objects  # noqa: PLC0415

    cluster = cluster_from_objects([pod("shop/web-1", "10.0.0.1", "http=8080", app="web")])
    spec: dict[str, Any] = {
        "type": "ExternalName",
        "externalName": "web.example.com",
        "selector": {"app": "web"},
        "ports": [{"port": 80, "targetPort": "http"}],
    }
    obj = {"kind": "Service", "metadata": {"name": "web", "namespace": "shop"}, "spec": spec}
    service = services_from_objects([obj])["shop/web"]
    assert service_problems(service, cluster, ["shop/web-1"]) == ["does not select shop/web-1"]
    del spec["type"], spec["externalName"]
    assert service_problems(services_from_objects([obj])["shop/web"], cluster, ["shop/web-1"]) == []


OR_READING = b"""
[[reachability]]
from = "*"
to = "data/db-0"
port = 5432
allowed = false

[[reachability]]
from = "api/*"
to = "data/db-0"
port = 5432
allowed = true
"""


def test_a_submission_passes_when_it_meets_one_reading(pool: PoolSandbox) -> None:
    family = ConfigFamily()
    task = with_hidden(fixture_task(), "expected-whole-namespace.toml", OR_READING)
    # its namespaces named by name: a label such as `team: api` lets in any namespace made
    # later so labelled, which no reading asks for
    or_policy = {
        name: text.replace(b"{team: api}", b"{kubernetes.io/metadata.name: api}").replace(
            b"{team: observability}", b"{kubernetes.io/metadata.name: monitoring}"
        )
        for name, text in task.solutions["bad-or-instead-of-and"].items()
    }
    verdict = family.verify(task, or_policy, pool)
    assert verdict.status is Status.PASS, verdict.summary
    assert verdict.summary == "4/4 requirements met (reading whole-namespace, best of 2)"
    verdict = family.verify(task, task.solutions["reference"], pool)
    assert verdict.status is Status.PASS
    assert "(reading expected, best of 2)" in verdict.summary
    verdict = family.verify(task, task.solutions["bad-any-namespace"], pool)
    assert verdict.status is Status.FAIL


def test_every_probe_makes_the_reference_fail(pool: PoolSandbox) -> None:
    family = ConfigFamily()
    assert isinstance(family, SensitivityFamily)
    task = with_hidden(fixture_task(), "expected-whole-namespace.toml", OR_READING)
    probes = family.probes(task)
    assert [p.name for p in probes] == [f"reachability[{i}]" for i in range(4)]
    assert probes[0].what == "allowed False -> True"
    for probe in probes:
        assert "expected-whole-namespace.toml" not in probe.task.hidden
        verdict = family.verify(probe.task, task.solutions["reference"], pool)
        assert verdict.status is Status.FAIL, probe.name


def test_powers_take_in_groups_proc_sysctls_profiles_placement_and_accounts() -> None:
    cp = "node-role.kubernetes.io/control-plane"
    safe = _deployment(
        [{"name": "api", "securityContext": {"procMount": "Default", "runAsGroup": 1000}}],
        securityContext={
            "sysctls": [
                {"name": "net.ipv4.ip_local_port_range", "value": "1024 65535"},
                {"name": "net/ipv4/tcp_syncookies", "value": "1"},
            ],
            "seccompProfile": {"type": "RuntimeDefault"},
            "supplementalGroups": [1000],
            "fsGroup": 2000,
        },
        serviceAccountName="default",
        tolerations=[{"key": "dedicated", "operator": "Equal", "value": "api"}],
        nodeSelector={"disktype": "ssd"},
    )
    assert powers(workloads_from_objects([safe])["Deployment shop/api"]) == frozenset()
    strong = _deployment(
        [
            {
                "name": "api",
                "securityContext": {
                    "procMount": "Unmasked",
                    "appArmorProfile": {"type": "Unconfined"},
                    "windowsOptions": {"hostProcess": True},
                },
            }
        ],
        securityContext={
            "runAsGroup": 0,
            "sysctls": [{"name": "kernel/msgmax", "value": "65536"}],
            "seccompProfile": {"type": "Unconfined"},
            "supplementalGroups": [0],
            "fsGroup": 0,
        },
        initContainers=[{"name": "setup", "securityContext": {"runAsGroup": None}}],
        serviceAccount="deployer",
        shareProcessNamespace=True,
        nodeName="cp-1",
        nodeSelector={cp: ""},
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": cp, "operator": "Exists"}]}]
                }
            }
        },
        tolerations=[{"operator": "Exists"}, {"key": cp, "effect": "NoSchedule"}],
    )
    assert powers(workloads_from_objects([strong])["Deployment shop/api"]) == {
        "container api: runs as group 0 (root)",
        "container api: procMount Unmasked",
        "container api: seccompProfile Unconfined",
        "container api: appArmorProfile Unconfined",
        "container api: a Windows host process",
        "init container setup: runs as group 0 (root)",
        "init container setup: seccompProfile Unconfined",
        "fsGroup 0 (root)",
        "supplementalGroups holds 0 (root)",
        "unsafe sysctl kernel.msgmax",
        "shareProcessNamespace",
        "runs as service account deployer",
        "nodeName cp-1 (past the scheduler and the node's taints)",
        "nodeSelector for a control-plane node",
        "node affinity for a control-plane node",
        "tolerates every taint",
        "tolerates the control-plane taint",
    }
