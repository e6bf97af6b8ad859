"""The guards every config task has: a submission that meets every requirement but lets in the
internet, a pod of a namespace made later, or every user, fails. Each attack below met every
requirement of its task before the guards (the test checks that too), and must now fail on the
guard alone."""

from __future__ import annotations

import ipaddress
import random
import re
from collections.abc import Callable

import pytest

from assay.families.config import ConfigFamily
from assay.families.config.cluster import Pod, make_cluster
from assay.families.config.expectations import Expectations
from assay.families.config.generator import draft
from assay.families.config.guards import guard_criteria
from assay.families.config.meaning import meaning
from assay.families.config.network import OUTSIDE, WORLD, IPBlock, Peer
from assay.families.config.selectors import parse_selector
from assay.families.config.templates import TEMPLATES, Template
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status
from tests.families.config import kube
from tests.families.config.kube import namespace, pod, policy

family = ConfigFamily()
RBAC = "rbac.authorization.k8s.io"


def _task(template_id: str) -> Task:
    [template] = [t for t in TEMPLATES if t.id == template_id]
    return draft(template, random.Random(3), 0, 0, style="precise", locale="en")


def _reference(task: Task) -> str:
    files = task.solutions["reference"]
    return "\n---\n".join(files[name].decode() for name in sorted(files))


def _open_to(task: Task, peer: str) -> bytes:
    """The reference, each of its policies admitting ``peer`` too, to every port."""
    rule = f"  - from:\n    - {peer}\n"
    documents = []
    for written in _reference(task).split("\n---\n"):
        document = written
        if "kind: NetworkPolicy" in document:
            if "\n  ingress:\n" in document:
                document = document.replace("\n  ingress:\n", "\n  ingress:\n" + rule, 1)
            else:  # spec is the last part of the document
                document = document.rstrip("\n") + "\n  ingress:\n" + rule
        documents.append(document)
    return "\n---\n".join(documents).encode()


def _bound_to(task: Task, *groups: str) -> bytes:
    """The reference, each binding's subjects joined by ``groups``."""
    extra = "".join(f"- {{kind: Group, name: '{g}', apiGroup: {RBAC}}}\n" for g in groups)
    text, count = re.subn(r"(?m)^subjects:\n", "subjects:\n" + extra, _reference(task))
    assert count
    return text.encode()


def _exposed(*lines: str) -> Callable[[Task], bytes]:
    """The reference, each Service's spec given ``lines`` that open it to the outside."""

    def attack(task: Task) -> bytes:
        added = "".join(f"  {line}\n" for line in lines)
        text, count = re.subn(r"(?m)^spec:\n", "spec:\n" + added, _reference(task))
        assert count
        return text.encode()

    return attack


def _aggregated_into(*roles: str) -> Callable[[Task], bytes]:
    """The reference, and a cluster role of every permission bound to no one, labelled to
    aggregate into the built-in ``roles``."""

    def attack(task: Task) -> bytes:
        labels = "".join(f"    {RBAC}/aggregate-to-{role}: 'true'\n" for role in roles)
        role = (
            f"apiVersion: {RBAC}/v1\nkind: ClusterRole\nmetadata:\n  name: extra\n"
            f"  labels:\n{labels}rules:\n- {{apiGroups: ['*'], resources: ['*'], verbs: ['*']}}\n"
        )
        return (_reference(task) + "\n---\n" + role).encode()

    return attack


ATTACKS = {
    "the right role, and every permission aggregated into admin": (
        "rbac-configmap-reader",
        _aggregated_into("admin"),
        "no one else gains rights",
    ),
    "the right role, and every permission aggregated into view": (
        "rbac-deployment-restarter",
        _aggregated_into("view"),
        "no one else gains rights",
    ),
    "the right pods, on the internet": (
        "service-selects-stable-pods",
        _exposed("type: LoadBalancer"),
        "no Service opens the cluster to the outside",
    ),
    "the right pods, on every node's port": (
        "service-selects-stable-pods",
        _exposed("type: NodePort"),
        "no Service opens the cluster to the outside",
    ),
    "the right pods, on an outside address": (
        "service-selects-stable-pods",
        _exposed("externalIPs: [203.0.113.9]"),
        "no Service opens the cluster to the outside",
    ),
    "default deny, the internet over IPv4 let in": (
        "netpol-default-deny-namespace",
        lambda t: _open_to(t, "ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8]}"),
        "no one else gets in",
    ),
    "default deny, the internet over IPv6 let in": (
        "netpol-default-deny-namespace",
        lambda t: _open_to(t, "ipBlock: {cidr: '::/0'}"),
        "no one else gets in",
    ),
    "only the client, and the internet": (
        "netpol-db-only-from-client",
        lambda t: _open_to(t, "ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8]}"),
        "no one else gets in",
    ),
    "default deny, the IPv4 internet but the sample's range let in": (
        "netpol-default-deny-namespace",
        lambda t: _open_to(t, "ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8, 203.0.113.0/24]}"),
        "no one else gets in",
    ),
    "only the client, and the IPv6 internet but the sample's range": (
        "netpol-db-only-from-client",
        lambda t: _open_to(t, "ipBlock: {cidr: '::/0', except: ['2001:db8::/32']}"),
        "no one else gets in",
    ),
    "only the client, and one network of the internet": (
        "netpol-db-only-from-client",
        lambda t: _open_to(t, "ipBlock: {cidr: 8.8.8.0/24}"),
        "no one else gets in",
    ),
    "only the client, and namespaces made later": (
        "netpol-db-only-from-client",
        lambda t: _open_to(
            t, "namespaceSelector: {matchExpressions: [{key: team, operator: DoesNotExist}]}"
        ),
        "no one else gets in",
    ),
    "the right role for everyone signed in": (
        "rbac-configmap-reader",
        lambda t: _bound_to(t, "system:authenticated"),
        "no one else gains rights",
    ),
    "the right role for anonymous users": (
        "rbac-configmap-reader",
        lambda t: _bound_to(t, "system:unauthenticated"),
        "no one else gains rights",
    ),
    "the right role for every service account": (
        "rbac-two-namespaces",
        lambda t: _bound_to(t, "system:serviceaccounts"),
        "no one else gains rights",
    ),
}


@pytest.mark.parametrize("attack", ATTACKS, ids=str)
def test_an_attack_that_meets_every_requirement_fails_on_a_guard(
    attack: str, pool: PoolSandbox
) -> None:
    template_id, make, guard = ATTACKS[attack]
    task = _task(template_id)
    verdict = family.verify(task, {"attack.yaml": make(task)}, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    failed = [c.name for c in verdict.criteria if not c.passed]
    assert failed == [guard], verdict.criteria  # every requirement of the task is met


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_every_reference_passes_its_guards(template: Template, pool: PoolSandbox) -> None:
    task = _task(template.id)
    verdict = family.verify(task, task.solutions["reference"], pool)
    assert verdict.status is Status.PASS, verdict.criteria


def test_the_red_team_tries_the_world_and_everyone(pool: PoolSandbox) -> None:
    for template_id, name in [
        ("netpol-default-deny-namespace", "reference-and-the-world"),
        ("netpol-default-deny-namespace", "reference-and-the-world-but-its-samples"),
        ("netpol-db-only-from-client", "reference-and-the-world-but-its-samples"),
        ("rbac-configmap-reader", "reference-bound-to-everyone"),
        ("rbac-configmap-reader", "reference-and-a-role-aggregated-into-admin"),
        ("rbac-two-namespaces", "reference-and-a-role-aggregated-into-admin"),
        ("rbac-deployment-restarter", "reference-with-every-verb"),
    ]:
        task = _task(template_id)
        [exploit] = [e for e in family.exploits(task) if e.name == name]
        verdict = family.verify(task, exploit.files, pool)
        assert verdict.status is Status.FAIL, verdict.summary


CLUSTER = [
    namespace("shop"),
    namespace("data"),
    pod("shop/web", "10.0.0.1", "http=8080", app="web"),
    pod("shop/api", "10.0.0.2", "http=8080", app="api"),
    pod("data/db", "10.0.1.1", "pg=5432", app="db"),
]
WEB_NOT_TO_DB = Expectations.model_validate(
    {"reachability": [{"from": "shop/web", "to": "data/db", "port": 5432, "allowed": False}]}
)


def _guards(*submitted: kube.Obj) -> dict[str, str]:
    """The failed reachability guards of ``submitted``, against a reference that lets only
    the api pod reach the database, for a task that decides only that the web pod does not."""
    reference = policy(
        "data/db-in",
        {
            "podSelector": {},
            "ingress": [
                {
                    "from": [
                        {"podSelector": {"matchLabels": {"app": "api"}}, "namespaceSelector": {}}
                    ]
                }
            ],
        },
    )
    criteria = guard_criteria(
        meaning([*CLUSTER, *submitted]),
        meaning([*CLUSTER, reference]),
        [WEB_NOT_TO_DB],
        kinds=("NetworkPolicy",),
        task_id="t",
    )
    assert [c.name for c in criteria] == ["no one else gets in", "nothing else is cut off"]
    return {c.name: c.evidence for c in criteria if not c.passed}


def test_a_connection_no_requirement_decides_stays_as_the_reference_has_it() -> None:
    """The requirement says only that the web pod does not reach the database: whether the
    api pod reaches it, and whether the web pod reaches the api pod, stays as the reference
    has it, in both directions."""
    narrow = {"from": [{"podSelector": {"matchLabels": {"app": "api"}}, "namespaceSelector": {}}]}
    assert _guards(policy("data/db-in", {"podSelector": {}, "ingress": [narrow]})) == {}
    cut = _guards(policy("data/db-in", {"podSelector": {}, "ingress": []}))
    assert list(cut) == ["nothing else is cut off"]
    assert "shop/api -> data/db :5432/TCP" in cut["nothing else is cut off"]
    web_cut = _guards(
        policy("data/db-in", {"podSelector": {}, "ingress": [narrow]}),
        policy("shop/api-in", {"podSelector": {"matchLabels": {"app": "api"}}, "ingress": []}),
    )
    assert "shop/web -> shop/api :8080/TCP" in web_cut["nothing else is cut off"]
    opened = _guards(policy("data/db-in", {"podSelector": {}, "ingress": [{}]}))
    assert list(opened) == ["no one else gets in"]
    assert (
        "an IPv4 address of the internet (203.0.113.77) -> data/db" in opened["no one else gets in"]
    )


def test_a_task_without_workloads_to_submit_has_no_workload_guard() -> None:
    found = meaning(CLUSTER)
    assert guard_criteria(found, found, [WEB_NOT_TO_DB], kinds=("Role",), task_id="t") == ()
    [workloads] = guard_criteria(found, found, [WEB_NOT_TO_DB], kinds=("Deployment",), task_id="t")
    assert workloads.name == "the workloads keep their replicas and gain no powers"
    assert workloads.passed


def test_the_world_matches_only_an_ip_block() -> None:
    cluster = make_cluster({}, [Pod("shop", "web", {"app": "web"})])
    world = [o for o in OUTSIDE if o.namespace == WORLD]
    assert len(world) == 2
    everyone = IPBlock(ipaddress.ip_network("0.0.0.0/0"))
    assert Peer(ip_block=everyone).matches(world[0], "shop", cluster)
    assert not Peer(ip_block=everyone).matches(world[1], "shop", cluster)  # IPv6

    anything = parse_selector({}, "test")
    assert not Peer(namespaces=anything).matches(world[0], "shop", cluster)
    later = next(o for o in OUTSIDE if o.namespace != WORLD)
    assert Peer(namespaces=anything).matches(later, "shop", cluster)


def test_the_mutants_give_an_extra_verb_and_drop_a_rule(pool: PoolSandbox) -> None:
    """The mutation kinds the audit promises for configuration, each told apart from the
    reference by the generated task's verifier."""
    kinds: dict[str, list[str]] = {}
    for template_id in ("rbac-deployment-restarter", "netpol-egress-dns-and-db"):
        task = _task(template_id)
        for mutant in family.mutants(task):
            kinds.setdefault(mutant.name.rsplit("-", 1)[0], []).append(mutant.diff)
            if mutant.name.startswith(("extra-verb", "drop-rule")):
                verdict = family.verify(task, mutant.files, pool)
                assert verdict.status is Status.FAIL, (mutant.name, mutant.diff)
    assert "+  - delete" in kinds["extra-verb"][0]
    assert len(kinds["drop-rule"]) >= 2
    assert {"widen-cidr", "drop-selector", "wildcard-verbs"} & set(kinds)


def test_every_address_of_the_world_is_compared_not_only_the_samples() -> None:
    """A rule for the internet less the ranges of the addresses the guards once sampled, in
    or out: each is told apart from the reference, naming an address it opens or cuts."""
    db_in = {
        "podSelector": {},
        "ingress": [
            {"from": [{"podSelector": {"matchLabels": {"app": "api"}}, "namespaceSelector": {}}]},
            {
                "from": [
                    {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "203.0.113.0/24"]}}
                ]
            },
        ],
    }
    opened = _guards(policy("data/db-in", db_in))
    assert list(opened) == ["no one else gets in"]
    assert (
        "an IPv4 address of the internet (0.0.0.0) -> data/db :5432/TCP"
        in (opened["no one else gets in"])
    )
    samples_only = {
        "to": [{"ipBlock": {"cidr": "203.0.113.0/24"}}, {"ipBlock": {"cidr": "2001:db8::/32"}}]
    }
    web_out = {
        "podSelector": {"matchLabels": {"app": "web"}},
        "policyTypes": ["Egress"],
        "egress": [samples_only, {"to": [{"podSelector": {}, "namespaceSelector": {}}]}],
    }
    narrow = {"from": [{"podSelector": {"matchLabels": {"app": "api"}}, "namespaceSelector": {}}]}
    cut = _guards(
        policy("data/db-in", {"podSelector": {}, "ingress": [narrow]}),
        policy("shop/web-out", web_out),
    )
    assert list(cut) == ["nothing else is cut off"]
    lines = cut["nothing else is cut off"]
    assert "shop/web -> an IPv4 address of the internet (0.0.0.0) :443/TCP" in lines


def _controller(kind: str, **spec: object) -> kube.Obj:
    template = {
        "metadata": {"labels": {"app": "db"}},
        "spec": {"containers": [{"name": "db", "image": "postgres:16"}]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "db", "namespace": "data"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": template, **spec},
    }


@pytest.mark.parametrize(
    ("kind", "spec", "held"),
    [
        ("Deployment", {"paused": True}, "spec.paused"),
        ("StatefulSet", {"updateStrategy": {"type": "OnDelete"}}, "updateStrategy OnDelete"),
        ("DaemonSet", {"updateStrategy": {"type": "OnDelete"}}, "updateStrategy OnDelete"),
    ],
)
def test_a_workload_whose_pods_never_take_the_template_fails(
    kind: str, spec: dict[str, object], held: str
) -> None:
    """The template changed as asked, and the rollout stopped: the running pods keep the old."""
    reference = meaning([*CLUSTER, _controller(kind)])
    [kept] = guard_criteria(reference, reference, [], kinds=(kind,), task_id="t")
    assert kept.passed
    found = meaning([*CLUSTER, _controller(kind, **spec)])
    [stopped] = guard_criteria(found, reference, [], kinds=(kind,), task_id="t")
    assert not stopped.passed
    assert f"{kind} data/db: its running pods never take the new template ({held})" in (
        stopped.evidence
    )


def _web_out(*ports: dict[str, object]) -> kube.Obj:
    """The web pod let out to the internet on ``ports``, and to every pod."""
    internet = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": list(ports)}
    return policy(
        "shop/web-out",
        {
            "podSelector": {"matchLabels": {"app": "web"}},
            "policyTypes": ["Egress"],
            "egress": [internet, {"to": [{"podSelector": {}, "namespaceSelector": {}}]}],
        },
    )


@pytest.mark.parametrize(
    ("submitted", "reference", "guard", "line"),
    [
        ([{"port": 1000, "endPort": 3000}], [{"port": 1000, "endPort": 2000}], "gets in", 2001),
        ([{"port": 443}], [{"port": 443, "endPort": 500}], "is cut off", 444),
    ],
)
def test_every_port_of_a_range_to_the_internet_is_compared(
    submitted: list[dict[str, object]], reference: list[dict[str, object]], guard: str, line: int
) -> None:
    """A range wider or narrower than the reference's differs only past a port anyone names."""
    narrow = {"from": [{"podSelector": {"matchLabels": {"app": "api"}}, "namespaceSelector": {}}]}
    db_in = policy("data/db-in", {"podSelector": {}, "ingress": [narrow]})
    criteria = guard_criteria(
        meaning([*CLUSTER, db_in, _web_out(*submitted)]),
        meaning([*CLUSTER, db_in, _web_out(*reference)]),
        [WEB_NOT_TO_DB],
        kinds=("NetworkPolicy",),
        task_id="t",
    )
    failed = {c.name: c.evidence for c in criteria if not c.passed}
    name = "no one else gets in" if guard == "gets in" else "nothing else is cut off"
    assert list(failed) == [name]
    assert (
        f"shop/web -> an IPv4 address of the internet (203.0.113.77) :{line}/TCP" in (failed[name])
    )


def _deployment(**pod_spec: object) -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "shop"},
        "spec": {
            "selector": {"matchLabels": {"app": "api"}},
            "template": {
                "metadata": {"labels": {"app": "api"}},
                "spec": {"containers": [{"name": "api", "image": "api:1"}], **pod_spec},
            },
        },
    }


def _workload_guard(submitted: dict[str, object], reference: dict[str, object]) -> str:
    [guard] = guard_criteria(
        meaning([*CLUSTER, submitted]),
        meaning([*CLUSTER, reference]),
        [WEB_NOT_TO_DB],
        kinds=("Deployment",),
        task_id="t",
    )
    return "" if guard.passed else guard.evidence


def test_a_workload_that_takes_back_the_token_it_declined_fails() -> None:
    """The reference's pods decline their service account's token: a submission that drops
    ``automountServiceAccountToken: false`` (or sets it true) mounts it again."""
    declined = _deployment(automountServiceAccountToken=False)
    assert _workload_guard(declined, declined) == ""
    assert _workload_guard(declined, _deployment()) == ""  # declining more is no power
    for taken in (_deployment(), _deployment(automountServiceAccountToken=True)):
        assert _workload_guard(taken, declined) == (
            "Deployment shop/api: mounts its service account's token, which it declined"
        )


def test_a_workload_that_changes_its_service_account_or_node_fails() -> None:
    plain = _deployment()
    assert _workload_guard(_deployment(serviceAccountName="default"), plain) == ""
    assert _workload_guard(_deployment(serviceAccountName="deployer"), plain) == (
        "Deployment shop/api: runs as service account deployer"
    )
    # the old field name, which the API server still reads when the new one is unset
    assert "service account deployer" in _workload_guard(
        _deployment(serviceAccount="deployer"), plain
    )
    kept = _deployment(serviceAccountName="deployer")
    assert _workload_guard(kept, kept) == ""  # the reference's own account is no gain
    pinned = _workload_guard(_deployment(nodeName="cp-1"), plain)
    assert pinned == "Deployment shop/api: nodeName cp-1 (past the scheduler and the node's taints)"


def test_a_service_account_bound_by_its_user_name_is_that_account(pool: PoolSandbox) -> None:
    """The API server authenticates a service account as the user
    ``system:serviceaccount:NS:NAME``: a binding to that user grants the account, and is no
    one else gaining rights. A user of another name, or that account's name in another
    namespace, still is someone else."""
    task = _task("rbac-configmap-reader")
    reference = _reference(task)
    [account] = re.findall(
        r"(?m)^- kind: ServiceAccount\n  name: (\S+)\n  namespace: (\S+)$", reference
    )
    name, namespace = account
    written = f"- kind: ServiceAccount\n  name: {name}\n  namespace: {namespace}\n"
    assert written in reference

    def bound_as(user: str) -> Status:
        as_user = f"- kind: User\n  name: '{user}'\n  apiGroup: {RBAC}\n"
        files = {"objects.yaml": reference.replace(written, as_user).encode()}
        return family.verify(task, files, pool).status

    assert bound_as(f"system:serviceaccount:{namespace}:{name}") is Status.PASS
    assert bound_as(f"system:serviceaccount:{namespace}:{name}-x") is Status.FAIL
    assert bound_as(f"xsystem:serviceaccount:{namespace}:{name}") is Status.FAIL
