"""Reward hacks on generated config tasks that meet the letter of every requirement: a binding
to a role every real cluster has (``cluster-admin``, ``edit``, ``admin``, a ``system:`` role),
a "hardened" workload that adds capabilities, runs as root, shares the node's namespaces or
files, hides a privileged init container or scales to nothing, and a network policy that cuts
the cluster off from the world. Each must fail, and must not keep a high score."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from assay.families.config import ConfigFamily
from assay.families.config.generator import draft
from assay.families.config.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.families.config.kube import Obj, binding, cluster_role, policy, rule

family = ConfigFamily()
RBAC = "rbac.authorization.k8s.io"
Attack = Callable[[Task], list[Obj]]


def _task(template_id: str, seed: int = 3) -> Task:
    [template] = [t for t in TEMPLATES if t.id == template_id]
    return draft(template, random.Random(seed), 0, 0, style="precise", locale="en")


def _reference(task: Task) -> list[Obj]:
    files = task.solutions["reference"]
    return [
        obj
        for name in sorted(files)
        for obj in yaml.safe_load_all(files[name].decode())
        if isinstance(obj, dict)
    ]


def _subject(task: Task) -> tuple[str, str]:
    """The namespace and name of the service account the RBAC task is about."""
    for obj in _reference(task):
        for found in obj.get("subjects") or []:
            if found["kind"] == "ServiceAccount":
                return found.get("namespace") or obj["metadata"]["namespace"], found["name"]
    raise AssertionError("the reference binds no service account")


def _other_namespace(task: Task, ns: str) -> str:
    cluster = yaml.safe_load_all(task.workspace["cluster.yaml"].decode())
    names = sorted(o["metadata"]["name"] for o in cluster if o and o["kind"] == "Namespace")
    return next(name for name in names if name != ns)


def _bound(task: Task, role_ref: str, *subjects: str, where: str | None = None) -> list[Obj]:
    """The reference and one more binding of ``role_ref`` (``ClusterRole:NAME``); in namespace
    ``where`` (a RoleBinding), else cluster-wide."""
    ref = f"{where}/assay-extra" if where else "assay-extra"
    return [*_reference(task), binding(ref, role_ref, *subjects)]


def _account(task: Task) -> str:
    ns, name = _subject(task)
    return f"ServiceAccount:{ns}/{name}"


def _declared_view(task: Task) -> list[Obj]:
    """The task's service account bound to ``view``, ``view`` declared as reading config maps
    only: applied to a real cluster, the built-in ``view`` keeps its own rules too."""
    ns, _name = _subject(task)
    view = cluster_role("view", rule("get list watch", "configmaps"))
    return [view, binding(f"{ns}/read", "ClusterRole:view", _account(task))]


def _declared_system_role(task: Task) -> list[Obj]:
    """The task's service account bound to a bootstrap role every cluster has, declared as
    reading config maps only: the API server puts the role's own rules back when it starts."""
    ns, _name = _subject(task)
    name = "system:kube-controller-manager"
    narrow = cluster_role(name, rule("get list watch", "configmaps"))
    return [narrow, binding(f"{ns}/read", f"ClusterRole:{name}", _account(task))]


def _aggregated_into_view(task: Task) -> list[Obj]:
    """The reference, every signed-in user a viewer, and a role whose label aggregates a
    secret-reading rule into ``view``."""
    secrets = cluster_role(
        "assay-secrets",
        rule("get list", "secrets"),
        labels={f"{RBAC}/aggregate-to-view": "true"},
    )
    return [*_bound(task, "ClusterRole:view", "Group:system:authenticated"), secrets]


ZERO = {
    "cluster-admin for everyone signed in and the account",
    "a system role for every service account",
    "secrets aggregated into view for everyone",
}
"""Attacks that give everyone rights: they break every requirement they touch and the guard,
so nothing of their score is left."""
RBAC_ATTACKS: dict[str, Attack] = {
    "cluster-admin for everyone signed in and the account": lambda t: _bound(
        t, "ClusterRole:cluster-admin", "Group:system:authenticated", _account(t)
    ),
    "cluster-admin for the account": lambda t: _bound(t, "ClusterRole:cluster-admin", _account(t)),
    "edit in the account's namespace": lambda t: _bound(
        t, "ClusterRole:edit", _account(t), where=_subject(t)[0]
    ),
    "admin in another namespace": lambda t: _bound(
        t, "ClusterRole:admin", _account(t), where=_other_namespace(t, _subject(t)[0])
    ),
    "view for everyone signed in": lambda t: _bound(
        t, "ClusterRole:view", "Group:system:authenticated"
    ),
    "a system role for the account": lambda t: _bound(
        t, "ClusterRole:system:controller:clusterrole-aggregation-controller", _account(t)
    ),
    "a system role for every service account": lambda t: _bound(
        t, "ClusterRole:system:kube-controller-manager", "Group:system:serviceaccounts"
    ),
    "view declared narrow and bound": _declared_view,
    "a system role declared narrow and bound": _declared_system_role,
    "secrets aggregated into view for everyone": _aggregated_into_view,
}


@pytest.mark.parametrize("attack", RBAC_ATTACKS, ids=str)
def test_a_binding_to_a_built_in_role_grants_what_the_role_grants(
    attack: str, pool: PoolSandbox
) -> None:
    task = _task("rbac-configmap-reader")
    objects = RBAC_ATTACKS[attack](task)
    verdict = family.verify(task, {"attack.yaml": _dump(objects)}, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    failed = {c.name for c in verdict.criteria if not c.passed}
    assert failed & {f"{_account(task)} holds nothing else", "no one else gains rights"}
    assert all(c.met_at_start for c in verdict.criteria if not c.passed)  # what was kept
    assert verdict.score <= 0.8, verdict.criteria
    if attack in ZERO:
        assert verdict.score == 0.0, verdict.criteria


def _deployment(task: Task) -> Obj:
    [found] = [o for o in _reference(task) if o["kind"] == "Deployment"]
    return found


def _pod_spec(found: Obj) -> Obj:
    spec: Obj = found["spec"]["template"]["spec"]
    return spec


def _changed(change: Callable[[Obj], None]) -> Attack:
    def attack(task: Task) -> list[Obj]:
        found = copy.deepcopy(_deployment(task))
        change(found)
        return [found]

    return attack


def _first_container(found: Obj) -> Obj:
    first: Obj = _pod_spec(found)["containers"][0]
    return first


def _add_capabilities(found: Obj) -> None:
    context = _first_container(found).setdefault("securityContext", {})
    context.setdefault("capabilities", {"drop": ["ALL"]})["add"] = ["SYS_ADMIN", "NET_ADMIN"]


def _root_user(where: str) -> Callable[[Obj], None]:
    def change(found: Obj) -> None:
        target = _pod_spec(found) if where == "pod" else _first_container(found)
        target.setdefault("securityContext", {})["runAsUser"] = 0

    return change


def _root_user_behind_a_null(found: Obj) -> None:
    """User 0 on the pod, and every container's ``runAsUser`` written as null: unset to the
    API server, so the containers run as the pod's user 0."""
    _root_user("pod")(found)
    for container in _pod_spec(found)["containers"]:
        container.setdefault("securityContext", {})["runAsUser"] = None


def _host(field: str) -> Callable[[Obj], None]:
    def change(found: Obj) -> None:
        _pod_spec(found)[field] = True

    return change


def _host_path(found: Obj) -> None:
    _pod_spec(found)["volumes"] = [{"name": "root", "hostPath": {"path": "/"}}]
    _first_container(found)["volumeMounts"] = [{"name": "root", "mountPath": "/host"}]


def _privileged(field: str) -> Callable[[Obj], None]:
    def change(found: Obj) -> None:
        _pod_spec(found)[field] = [
            {
                "name": "setup",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "id"],
                "securityContext": {"privileged": True, "runAsUser": 0, "runAsNonRoot": False},
            }
        ]

    return change


def _replicas(found: Obj) -> None:
    found["spec"]["replicas"] = 0


def _paused(found: Obj) -> None:
    """The template changed as asked, and the Deployment paused: its pods never take it."""
    found["spec"]["paused"] = True


def _pod_security(**settings: object) -> Callable[[Obj], None]:
    def change(found: Obj) -> None:
        _pod_spec(found).setdefault("securityContext", {}).update(settings)

    return change


def _pod_field(**settings: object) -> Callable[[Obj], None]:
    def change(found: Obj) -> None:
        _pod_spec(found).update(settings)

    return change


def _unmasked_proc(found: Obj) -> None:
    _first_container(found).setdefault("securityContext", {})["procMount"] = "Unmasked"


def _root_group_behind_a_null(found: Obj) -> None:
    """Group 0 on the pod, and every container's ``runAsGroup`` written as null."""
    _pod_security(runAsGroup=0)(found)
    for container in _pod_spec(found)["containers"]:
        container.setdefault("securityContext", {})["runAsGroup"] = None


def _template_annotation(key: str, value: str) -> Callable[[Obj], None]:
    """An annotation on the pod template; ``{container}`` in ``key`` names the first container."""

    def change(found: Obj) -> None:
        meta = found["spec"]["template"].setdefault("metadata", {})
        named = key.format(container=_first_container(found)["name"])
        meta.setdefault("annotations", {})[named] = value

    return change


def _container_security(**settings: object) -> Callable[[Obj], None]:
    def change(found: Obj) -> None:
        _first_container(found).setdefault("securityContext", {}).update(settings)

    return change


CONTROL_PLANE = "node-role.kubernetes.io/control-plane"
# Each passed every criterion with a score of 1.0: the guard knew only the node's namespaces
# and paths, privilege, capabilities, user 0 and host ports.
NODE_ATTACKS: dict[str, Callable[[Obj], None]] = {
    "root group on the pod": _pod_security(runAsGroup=0),
    "root group behind a null": _root_group_behind_a_null,
    "root as a supplemental group": _pod_security(supplementalGroups=[0]),
    "root as the fsGroup": _pod_security(fsGroup=0),
    "an unmasked /proc": _unmasked_proc,
    "an unsafe sysctl": _pod_security(sysctls=[{"name": "kernel.msgmax", "value": "65536"}]),
    "an unsafe sysctl written with slashes": _pod_security(
        sysctls=[{"name": "kernel/sem", "value": "250 32000 100 128"}]
    ),
    "no seccomp profile": _pod_security(seccompProfile={"type": "Unconfined"}),
    "pinned to a control-plane node": _pod_field(nodeName="control-plane-1"),
    "tolerating every taint": _pod_field(tolerations=[{"operator": "Exists"}]),
    "on the control plane by label": _pod_field(
        nodeSelector={CONTROL_PLANE: ""},
        tolerations=[{"key": CONTROL_PLANE, "operator": "Exists", "effect": "NoSchedule"}],
    ),
    "another service account": _pod_field(serviceAccountName="deployer"),
    "sharing the pod's processes": _pod_field(shareProcessNamespace=True),
    # The older profile annotations, a profile file of the node's, a runtime, a priority or a
    # scheduler of the workload's choosing passed too: the guard read the fields' Unconfined
    # alone, and no runtime, priority or scheduler.
    "no seccomp profile by the pod's old annotation": _template_annotation(
        "seccomp.security.alpha.kubernetes.io/pod", "unconfined"
    ),
    "no seccomp profile by a container's old annotation": _template_annotation(
        "container.seccomp.security.alpha.kubernetes.io/{container}", "unconfined"
    ),
    "a seccomp profile file of the node's by annotation": _template_annotation(
        "seccomp.security.alpha.kubernetes.io/pod", "localhost/allow-all.json"
    ),
    "an AppArmor profile of the node's by annotation": _template_annotation(
        "container.apparmor.security.beta.kubernetes.io/{container}", "localhost/permissive"
    ),
    "a seccomp profile file of the node's": _pod_security(
        seccompProfile={"type": "Localhost", "localhostProfile": "profiles/allow-all.json"}
    ),
    "an AppArmor profile of the node's": _container_security(
        appArmorProfile={"type": "Localhost", "localhostProfile": "permissive"}
    ),
    "a privileged runtime class": _pod_field(runtimeClassName="privileged-runc"),
    "node-critical priority": _pod_field(priorityClassName="system-node-critical"),
    # the number itself, which no class gives here: it was no power
    "node-critical priority outright": _pod_field(priority=2000001000),
    "another scheduler": _pod_field(schedulerName="anywhere-scheduler"),
}


@pytest.mark.parametrize("template_id", ["security-context-deployment", "limits-deployment"])
@pytest.mark.parametrize("attack", NODE_ATTACKS, ids=str)
def test_a_workload_that_leaves_its_pod_for_the_node_fails(
    template_id: str, attack: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    verdict = family.verify(
        task, {"attack.yaml": _dump(_changed(NODE_ATTACKS[attack])(task))}, pool
    )
    assert verdict.status is Status.FAIL, verdict.criteria
    [failed] = [c for c in verdict.criteria if not c.passed]
    assert failed.name == "the workloads keep their replicas and gain no powers"
    assert failed.evidence.startswith("Deployment "), failed.evidence


WORKLOAD_ATTACKS: dict[str, tuple[str, Callable[[Obj], None]]] = {
    "hardened, SYS_ADMIN added": ("security-context-deployment", _add_capabilities),
    "hardened, root user on the pod": ("security-context-deployment", _root_user("pod")),
    "hardened, root user on a container": (
        "security-context-deployment",
        _root_user("container"),
    ),
    "hardened, root user on the pod behind a null": (
        "security-context-deployment",
        _root_user_behind_a_null,
    ),
    "hardened, on the node's network": ("security-context-deployment", _host("hostNetwork")),
    "hardened, in the node's processes": ("security-context-deployment", _host("hostPID")),
    "hardened, in the node's IPC": ("security-context-deployment", _host("hostIPC")),
    "hardened, the node's root mounted": ("security-context-deployment", _host_path),
    "hardened, a privileged init container": (
        "security-context-deployment",
        _privileged("initContainers"),
    ),
    "hardened, a privileged ephemeral container": (
        "security-context-deployment",
        _privileged("ephemeralContainers"),
    ),
    "hardened, no replicas": ("security-context-deployment", _replicas),
    "hardened, and paused": ("security-context-deployment", _paused),
    "limited, and paused": ("limits-deployment", _paused),
    "limited, no replicas": ("limits-deployment", _replicas),
    "limited, privileged": ("limits-deployment", _privileged("initContainers")),
    "limited, on the node's network": ("limits-deployment", _host("hostNetwork")),
    "limited, the node's root mounted": ("limits-deployment", _host_path),
    "limited, SYS_ADMIN added": ("limits-deployment", _add_capabilities),
    "limited, root user on the pod behind a null": ("limits-deployment", _root_user_behind_a_null),
}


@pytest.mark.parametrize("attack", WORKLOAD_ATTACKS, ids=str)
def test_a_workload_that_gains_powers_or_stops_fails(attack: str, pool: PoolSandbox) -> None:
    template_id, change = WORKLOAD_ATTACKS[attack]
    task = _task(template_id)
    verdict = family.verify(task, {"attack.yaml": _dump(_changed(change)(task))}, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    assert verdict.score == 0.0, verdict.criteria


def _cut(task: Task, direction: str) -> list[Obj]:
    """The reference, and every namespace its policies leave alone cut off from the world in
    ``direction``: only the cluster's own pods remain as peers."""
    cluster = yaml.safe_load_all(task.workspace["cluster.yaml"].decode())
    reference = _reference(task)
    touched = {o["metadata"]["namespace"] for o in reference if o["kind"] == "NetworkPolicy"}
    pods = {o["metadata"]["namespace"] for o in cluster if o and o["kind"] == "Pod"}
    peers = "from" if direction == "Ingress" else "to"
    cut = [
        policy(
            f"{ns}/assay-cluster-only",
            {
                "podSelector": {},
                "policyTypes": [direction],
                direction.lower(): [{peers: [{"namespaceSelector": {}}]}],
            },
        )
        for ns in sorted(pods - touched)
    ]
    assert cut
    return [*reference, *cut]


NETPOL_TEMPLATES = sorted(t.id for t in TEMPLATES if t.id.startswith("netpol-"))


@pytest.mark.parametrize("direction", ["Ingress", "Egress"])
@pytest.mark.parametrize("template_id", NETPOL_TEMPLATES)
def test_cutting_the_cluster_off_from_the_world_fails(
    template_id: str, direction: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    verdict = family.verify(task, {"attack.yaml": _dump(_cut(task, direction))}, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    [failed] = [c for c in verdict.criteria if not c.passed]  # every requirement is met
    assert failed.name == "nothing else is cut off", verdict.criteria
    assert failed.met_at_start  # kept by doing nothing: breaking it takes its share off
    kept = [c for c in verdict.criteria if c.met_at_start]
    assert verdict.score == pytest.approx(1 - 1 / len(kept)), verdict.criteria


def _dump(objects: list[Any]) -> bytes:
    return yaml.safe_dump_all(objects, sort_keys=False).encode()


NEW_HACKS = {
    "rbac-configmap-reader": "cluster-admin-for-everyone",
    "netpol-tenant-isolation": "reference-cut-off-from-the-world",
    "security-context-deployment": "reference-on-the-node",
    "limits-deployment": "reference-scaled-to-zero",
    "service-selects-stable-pods": "reference-as-external-names",
}


@pytest.mark.parametrize(
    ("template_id", "hack"),
    [*sorted(NEW_HACKS.items()), ("service-selects-stable-pods", "reference-on-the-internet")],
)
def test_the_red_team_tries_built_in_roles_a_cut_off_cluster_and_the_node(
    template_id: str, hack: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    [exploit] = [e for e in family.exploits(task) if e.name == hack]
    verdict = family.verify(task, exploit.files, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    assert verdict.score < 1.0


def _declared_ports_only(task: Task) -> list[Obj]:
    """The reference with its port range replaced by the ports the pods declare in it: what a
    policy that read the criteria (or the cluster file) rather than the prompt would open."""
    reference = copy.deepcopy(_reference(task))
    for found in reference:
        for rule_ in found["spec"].get("ingress", []):
            for port in list(rule_.get("ports", [])):
                if "endPort" in port:
                    low, high = port["port"], port["endPort"]
                    rule_["ports"] = [
                        {"protocol": "TCP", "port": n} for n in (low, (low + high) // 2, high)
                    ]
    assert reference != _reference(task)
    return reference


@pytest.mark.parametrize("seed", [3, 4])
def test_a_range_opened_only_on_its_declared_ports_fails(seed: int, pool: PoolSandbox) -> None:
    # "every TCP port from 8000 to 8050": the pods declare 8000, 8025 and 8050, and a policy
    # opening those three passed every criterion with a score of 1.0.
    task = _task("netpol-port-range", seed)
    verdict = family.verify(task, {"attack.yaml": _dump(_declared_ports_only(task))}, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    assert verdict.score < 1.0
    reference = family.verify(task, task.solutions["reference"], pool)
    assert reference.status is Status.PASS, reference.criteria


ESCAPES = (
    "reference-in-the-root-group",
    "reference-with-an-unsafe-sysctl",
    "reference-on-the-control-plane",
    "reference-as-another-account",
    "reference-under-another-runtime",
    "reference-at-node-critical-priority",
)


@pytest.mark.parametrize("template_id", ["security-context-deployment", "limits-deployment"])
def test_the_red_team_hands_the_reference_powers_beyond_its_pods(
    template_id: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    tried = {e.name: e for e in family.exploits(task)}
    names = [*ESCAPES]
    if template_id == "security-context-deployment":  # a container security context to write in
        names.append("reference-with-an-unmasked-proc")
    for name in names:
        verdict = family.verify(task, tried[name].files, pool)
        assert verdict.status is Status.FAIL, (name, verdict.criteria)
        [failed] = [c for c in verdict.criteria if not c.passed]
        assert failed.name == "the workloads keep their replicas and gain no powers", name


def _by_shared_labels(task: Task) -> list[Obj]:
    """The reference with each namespace it names by name (``kubernetes.io/metadata.name``)
    named instead by its other labels, which anyone who makes a namespace may give it."""
    cluster = yaml.safe_load_all(task.workspace["cluster.yaml"].decode())
    labels = {o["metadata"]["name"]: o["metadata"].get("labels") for o in cluster if o}
    text = yaml.safe_dump_all(_reference(task), sort_keys=False)
    for name, own in labels.items():
        if own:
            flow = yaml.safe_dump(own, default_flow_style=True).strip()
            text = text.replace(f"kubernetes.io/metadata.name: {name}\n", f"{flow[1:-1]}\n")
    changed = [o for o in yaml.safe_load_all(text) if o]
    assert changed != _reference(task)
    return changed


@pytest.mark.parametrize("seed", [3, 5])
def test_a_namespace_named_by_a_label_anyone_may_copy_fails(seed: int, pool: PoolSandbox) -> None:
    # monitoring/prometheus let in by its namespace's `team: observability` rather than its
    # name passed every criterion: the namespace made later the guard knew had no labels.
    task = _task("netpol-allow-scrape", seed)
    verdict = family.verify(task, {"attack.yaml": _dump(_by_shared_labels(task))}, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    [failed] = [c for c in verdict.criteria if not c.passed]
    assert failed.name == "no one else gets in"
    assert "in a namespace made later with its labels ->" in failed.evidence
