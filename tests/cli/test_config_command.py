"""``assay config reachability`` and ``assay config permissions``: the semantics checked against
the examples of the Kubernetes documentation and hand-worked cases, the JSON shape and order,
and bad input as one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result

from tests.families.config.kube import namespace, pod

Run = Callable[..., Result]


def _write(path: Path, *objects: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump_all(objects))
    return path


def _policy(name: str, spec: dict[str, Any], ns: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def _reach(run_cli: Run, *files: Path) -> dict[tuple[str, str, int, str], bool]:
    result = run_cli("config", "reachability", *map(str, files), "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    keys = [(r["from"], r["to"], r["port"], r["protocol"]) for r in rows]
    assert keys == sorted(keys)
    assert all(set(r) == {"from", "to", "port", "protocol", "allowed"} for r in rows)
    return {key: r["allowed"] for key, r in zip(keys, rows, strict=True)}


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    """Namespaces and pods for the documentation's NetworkPolicy examples."""
    return _write(
        tmp_path / "cluster.yaml",
        namespace("default"),
        namespace("myproject", project="myproject"),
        namespace("other"),
        pod("default/db", "172.17.0.10", "redis=6379", role="db"),
        pod("default/frontend", "172.17.0.20", "http=8080", role="frontend"),
        pod("default/excepted", "172.17.1.9", "http=8080", role="other"),
        pod("myproject/worker", "192.168.5.1", "9000", app="worker"),
        pod("other/in-block", "172.17.3.4", "", app="x"),
        pod("other/outside", "192.168.9.9", "", app="y"),
        pod("other/ext", "10.0.0.7", "5978 dns=53/UDP", app="ext"),
    )


def test_every_ordered_pair_and_declared_port_is_a_row_and_all_are_open(
    run_cli: Run, cluster: Path
) -> None:
    rows = _reach(run_cli, cluster)
    ports = {"default/db": 1, "default/frontend": 1, "default/excepted": 1,
             "myproject/worker": 1, "other/ext": 2}  # fmt: skip
    assert len(rows) == sum(6 * count for count in ports.values())
    assert all(rows.values())
    assert ("other/outside", "other/ext", 53, "UDP") in rows


def test_the_documentation_example_policy(run_cli: Run, cluster: Path, tmp_path: Path) -> None:
    """The ``test-network-policy`` example of the NetworkPolicy concept page: ingress to role=db
    on TCP 6379 from 172.17.0.0/16 except 172.17.1.0/24, from namespaces labelled
    project=myproject, and from role=frontend pods of default; egress to 10.0.0.0/24 on 5978."""
    policy = _policy(
        "test-network-policy",
        {
            "podSelector": {"matchLabels": {"role": "db"}},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [
                {
                    "from": [
                        {"ipBlock": {"cidr": "172.17.0.0/16", "except": ["172.17.1.0/24"]}},
                        {"namespaceSelector": {"matchLabels": {"project": "myproject"}}},
                        {"podSelector": {"matchLabels": {"role": "frontend"}}},
                    ],
                    "ports": [{"protocol": "TCP", "port": 6379}],
                }
            ],
            "egress": [
                {
                    "to": [{"ipBlock": {"cidr": "10.0.0.0/24"}}],
                    "ports": [{"protocol": "TCP", "port": 5978}],
                }
            ],
        },
    )
    rows = _reach(run_cli, cluster, _write(tmp_path / "policy.yaml", policy))
    to_db = {
        key[0]: allowed for key, allowed in rows.items() if key[1:] == ("default/db", 6379, "TCP")
    }
    assert to_db == {
        "default/frontend": True,  # pod selector, and 172.17.0.20 is in the block
        "default/excepted": False,  # 172.17.1.9 is excepted, and role=other
        "myproject/worker": True,  # namespace selector
        "other/in-block": True,  # 172.17.3.4 is in the block
        "other/outside": False,
        "other/ext": False,
    }
    assert rows["default/db", "other/ext", 5978, "TCP"] is True
    assert rows["default/db", "other/ext", 53, "UDP"] is False
    assert rows["default/db", "default/frontend", 8080, "TCP"] is False
    assert rows["default/frontend", "default/excepted", 8080, "TCP"] is True


def test_default_deny_ingress_and_allow_all_egress(
    run_cli: Run, cluster: Path, tmp_path: Path
) -> None:
    deny = _policy("default-deny-ingress", {"podSelector": {}, "policyTypes": ["Ingress"]})
    rows = _reach(run_cli, cluster, _write(tmp_path / "deny.yaml", deny))
    for (source, destination, _port, _protocol), allowed in rows.items():
        assert allowed is (not destination.startswith("default/")), (source, destination)
    allow_all = _policy(
        "allow-all-ingress", {"podSelector": {}, "ingress": [{}], "policyTypes": ["Ingress"]}
    )
    rows = _reach(
        run_cli, cluster, tmp_path / "deny.yaml", _write(tmp_path / "allow.yaml", allow_all)
    )
    assert all(rows.values())


def test_default_deny_egress(run_cli: Run, cluster: Path, tmp_path: Path) -> None:
    deny = _policy("default-deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]})
    rows = _reach(run_cli, cluster, _write(tmp_path / "deny.yaml", deny))
    for (source, _destination, _port, _protocol), allowed in rows.items():
        assert allowed is (not source.startswith("default/"))


def test_namespace_and_pod_selector_in_one_peer_is_and_in_two_is_or(
    run_cli: Run, tmp_path: Path
) -> None:
    """The documentation's "Behavior of to and from selectors": one element with both selectors
    admits role=client pods in namespaces labelled user=alice; two elements admit every pod
    of such namespaces and every role=client pod of the policy's own namespace."""
    cluster = _write(
        tmp_path / "cluster.yaml",
        namespace("default"),
        namespace("alice", user="alice"),
        pod("default/server", "10.0.0.1", "80", app="server"),
        pod("default/client", "10.0.0.2", "", role="client"),
        pod("alice/client", "10.0.1.2", "", role="client"),
        pod("alice/other", "10.0.1.3", "", role="other"),
    )
    both = {
        "namespaceSelector": {"matchLabels": {"user": "alice"}},
        "podSelector": {"matchLabels": {"role": "client"}},
    }
    either = [
        {"namespaceSelector": {"matchLabels": {"user": "alice"}}},
        {"podSelector": {"matchLabels": {"role": "client"}}},
    ]
    selected = {"podSelector": {"matchLabels": {"app": "server"}}}
    and_policy = _policy("and", {**selected, "ingress": [{"from": [both]}]})
    or_policy = _policy("or", {**selected, "ingress": [{"from": either}]})
    and_rows = _reach(run_cli, cluster, _write(tmp_path / "and.yaml", and_policy))
    or_rows = _reach(run_cli, cluster, _write(tmp_path / "or.yaml", or_policy))

    def sources(rows: dict[tuple[str, str, int, str], bool]) -> set[str]:
        return {key[0] for key, allowed in rows.items() if allowed and key[1] == "default/server"}

    assert sources(and_rows) == {"alice/client"}
    assert sources(or_rows) == {"alice/client", "alice/other", "default/client"}


def test_the_table_shows_every_row(run_cli: Run, cluster: Path) -> None:
    result = run_cli("config", "reachability", str(cluster))
    assert result.exit_code == 0, result.output
    assert "default/frontend" in result.output
    assert "36 connections: 36 allowed, 0 denied" in result.output


RBAC: list[dict[str, Any]] = [
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"namespace": "default", "name": "pod-reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "watch", "list"]}],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "read-pods", "namespace": "default"},
        "subjects": [{"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"kind": "Role", "name": "pod-reader", "apiGroup": "rbac.authorization.k8s.io"},
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "secret-reader"},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "watch", "list"]}],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "read-secrets", "namespace": "development"},
        "subjects": [{"kind": "User", "name": "dave", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {
            "kind": "ClusterRole",
            "name": "secret-reader",
            "apiGroup": "rbac.authorization.k8s.io",
        },
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "read-secrets-global"},
        "subjects": [
            {"kind": "Group", "name": "manager", "apiGroup": "rbac.authorization.k8s.io"},
            {"kind": "ServiceAccount", "name": "auditor", "namespace": "ops"},
        ],
        "roleRef": {
            "kind": "ClusterRole",
            "name": "secret-reader",
            "apiGroup": "rbac.authorization.k8s.io",
        },
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"namespace": "default", "name": "configmap-updater"},
        "rules": [
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "resourceNames": ["my-configmap"],
                "verbs": ["update", "get"],
            }
        ],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "update-config", "namespace": "default"},
        "subjects": [{"kind": "Group", "name": "system:serviceaccounts:ops"}],
        "roleRef": {
            "kind": "Role",
            "name": "configmap-updater",
            "apiGroup": "rbac.authorization.k8s.io",
        },
    },
]


def _perms(run_cli: Run, path: Path, subject: str) -> list[tuple[Any, ...]]:
    result = run_cli("config", "permissions", str(path), "--subject", subject, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert all(set(r) == {"namespace", "group", "resource", "name", "verb"} for r in rows)
    return [(r["namespace"], r["group"], r["resource"], r["name"], r["verb"]) for r in rows]


def test_the_documentation_rbac_examples(run_cli: Run, tmp_path: Path) -> None:
    rbac = _write(tmp_path / "rbac.yaml", *RBAC)
    assert _perms(run_cli, rbac, "User:jane") == [
        ("default", "", "pods", None, verb) for verb in ("get", "list", "watch")
    ]
    # A RoleBinding to a ClusterRole grants it in the binding's namespace only.
    assert _perms(run_cli, rbac, "User:dave") == [
        ("development", "", "secrets", None, verb) for verb in ("get", "list", "watch")
    ]
    # A ClusterRoleBinding grants it everywhere.
    assert _perms(run_cli, rbac, "Group:manager") == [
        (None, "", "secrets", None, verb) for verb in ("get", "list", "watch")
    ]
    # A service account: by name, and as a member of its namespace's group; resource names kept.
    assert _perms(run_cli, rbac, "ServiceAccount:ops/auditor") == [
        *((None, "", "secrets", None, verb) for verb in ("get", "list", "watch")),
        *(("default", "", "configmaps", "my-configmap", verb) for verb in ("get", "update")),
    ]
    assert _perms(run_cli, rbac, "User:nobody") == []


def test_the_permissions_table(run_cli: Run, tmp_path: Path) -> None:
    rbac = _write(tmp_path / "rbac.yaml", *RBAC)
    result = run_cli("config", "permissions", str(rbac), "--subject", "Group:manager")
    assert result.exit_code == 0, result.output
    assert "(cluster)" in result.output
    assert "Group:manager: 3 permissions" in result.output


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["reachability", "missing.yaml"], "missing.yaml: cannot read it: No such file"),
        (["permissions", "RBAC", "--subject", "Robot:x"], "--subject: 'Robot:x' is not"),
        (["permissions", "RBAC", "--subject", "ServiceAccount:x"], "ServiceAccount:NS/NAME"),
        (["reachability", "BAD"], "bad.yaml: not UTF-8 text"),
        (["reachability", "TYPO"], "typo.yaml: document 1: NetworkPolicy: spec"),
        (["reachability", "RBAC", "--kubernetes", "1.2"], "no schemas for Kubernetes 1.2"),
        (["reachability", "HUGE"], f"huge.yaml: {64 << 30} bytes, more than the limit of"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str], problem: str, run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    files = {
        "RBAC": _write(tmp_path / "rbac.yaml", *RBAC),
        "TYPO": _write(
            tmp_path / "typo.yaml", _policy("x", {"podSelecter": {}, "policyTypes": ["Ingress"]})
        ),
        "BAD": tmp_path / "bad.yaml",
        "HUGE": tmp_path / "huge.yaml",
    }
    with files["HUGE"].open("wb") as huge:  # sparse: read whole, it would take all memory
        huge.truncate(64 << 30)
    files["BAD"].write_bytes(b"kind: \xff\n")
    result = run_cli("config", *(str(files.get(arg, arg)) for arg in args))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert problem in lines[0]


def test_manifests_in_a_list_are_read_as_kubectl_reads_them(
    run_cli: Run, cluster: Path, tmp_path: Path
) -> None:
    deny = _policy("deny-all", {"podSelector": {}, "policyTypes": ["Ingress"]})
    listed = tmp_path / "list.yaml"
    listed.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [deny]}))
    plain = _write(tmp_path / "plain.yaml", deny)
    assert _reach(run_cli, cluster, listed) == _reach(run_cli, cluster, plain)
    listed.write_text("apiVersion: v1\nkind: List\nitems: [[]]\n")
    result = run_cli("config", "reachability", str(cluster), str(listed))
    assert result.exit_code == 2
    assert f"{listed}: document 1: a list whose items are not all objects" in result.output
    assert len(result.output.strip().splitlines()) == 1
