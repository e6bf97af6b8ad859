"""Ways out of a pod's isolation that meet every requirement of a workload task: an SELinux
label outside the container domains (``spc_t``, the super-privileged container), AppArmor
switched off by its field or its older annotation, the node's user namespace where the
reference leaves it (``hostUsers: false``), and a service account token mounted where the
reference's pods inherit their account's refusal of it. And a network policy that names a
namespace by the labels its owner chose, which anyone may give a namespace made later. Each
must fail, and the references of generated tasks must still pass."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

import pytest
import yaml

from assay.families.config import ConfigFamily
from assay.families.config.expectations import Expectations
from assay.families.config.generator import draft
from assay.families.config.guards import guard_criteria
from assay.families.config.meaning import applied, meaning
from assay.families.config.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status, Verdict
from tests.families.config.conftest import with_workspace
from tests.families.config.kube import Obj, namespace, pod

family = ConfigFamily()
GUARD = "the workloads keep their replicas and gain no powers"
CLUSTER = [namespace("shop"), pod("shop/web", "10.0.0.1", "http=8080", app="web")]
NOTHING = Expectations.model_validate({})
APPARMOR = "container.apparmor.security.beta.kubernetes.io/"


def _deployment(
    pod_spec: Obj | None = None, container: Obj | None = None, annotations: Obj | None = None
) -> Obj:
    """A Deployment ``shop/api`` of one container ``api``; ``container`` is its security
    context."""
    main: Obj = {"name": "api", "image": "api:1"}
    if container is not None:
        main["securityContext"] = container
    template: Obj = {"metadata": {"labels": {"app": "api"}}}
    if annotations is not None:
        template["metadata"]["annotations"] = annotations
    template["spec"] = {"containers": [main], **(pod_spec or {})}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "api"}}, "template": template},
    }


def _guard(submitted: list[Obj], reference: list[Obj], cluster: list[Obj] = CLUSTER) -> str:
    """The workload guard's evidence for ``submitted`` against ``reference``; empty when it
    passes."""
    [guard] = guard_criteria(
        meaning(applied(cluster, submitted)),
        meaning(applied(cluster, reference)),
        [NOTHING],
        kinds=("Deployment", "ServiceAccount"),
        task_id="t",
    )
    assert guard.name == GUARD
    return "" if guard.passed else guard.evidence


PLAIN = _deployment()


@pytest.mark.parametrize(
    ("submitted", "line"),
    [
        (
            _deployment({"securityContext": {"seLinuxOptions": {"type": "spc_t"}}}),
            "pod seLinuxOptions type spc_t (outside the container domains)",
        ),
        (
            _deployment(container={"seLinuxOptions": {"type": "spc_t"}}),
            "container api: seLinuxOptions type spc_t (outside the container domains)",
        ),
        (
            _deployment(container={"seLinuxOptions": {"level": "s0", "type": "unconfined_t"}}),
            "container api: seLinuxOptions type unconfined_t (outside the container domains)",
        ),
        (
            _deployment(container={"seLinuxOptions": {"user": "system_u"}}),
            "container api: seLinuxOptions user system_u",
        ),
        (
            _deployment({"securityContext": {"seLinuxOptions": {"role": "sysadm_r"}}}),
            "pod seLinuxOptions role sysadm_r",
        ),
        (
            _deployment(annotations={f"{APPARMOR}api": "unconfined"}),
            "container api: AppArmor unconfined (annotation)",
        ),
        (
            _deployment({"securityContext": {"appArmorProfile": {"type": "Unconfined"}}}),
            "container api: appArmorProfile Unconfined",
        ),
        (
            _deployment(container={"appArmorProfile": {"type": "Unconfined"}}),
            "container api: appArmorProfile Unconfined",
        ),
    ],
)
def test_an_unconfined_selinux_or_apparmor_label_is_a_power(submitted: Obj, line: str) -> None:
    assert _guard([submitted], [PLAIN]) == f"Deployment shop/api: {line}"
    assert _guard([submitted], [submitted]) == ""  # the reference's own label is no gain


@pytest.mark.parametrize(
    "kept",
    [
        _deployment(container={"seLinuxOptions": {"type": "container_t", "level": "s0:c1,c2"}}),
        _deployment({"securityContext": {"seLinuxOptions": {"type": "container_init_t"}}}),
        _deployment(annotations={f"{APPARMOR}api": "runtime/default"}),
        _deployment(annotations={f"{APPARMOR}other": "unconfined", "note": "unconfined"}),
        _deployment(container={"appArmorProfile": {"type": "RuntimeDefault"}}),
    ],
)
def test_a_confined_label_is_no_power(kept: Obj) -> None:
    assert _guard([kept], [PLAIN]) == ""


def test_leaving_the_user_namespace_the_reference_keeps_fails() -> None:
    """``hostUsers: false`` gives the pods a user namespace of their own (their root is not
    the node's); like ``hostPID``, sharing the node's is the power, only it is the default."""
    own = _deployment({"hostUsers": False})
    assert _guard([own], [own]) == ""
    assert _guard([own], [PLAIN]) == ""  # more isolation than the reference is no power
    for shared in (PLAIN, _deployment({"hostUsers": True})):
        assert _guard([shared], [own]) == (
            "Deployment shop/api: runs in the node's user namespace, which it left "
            "(hostUsers: false)"
        )


def _account(name: str, mounted: bool | None) -> Obj:
    found: Obj = {"apiVersion": "v1", "kind": "ServiceAccount"}
    found["metadata"] = {"name": name, "namespace": "shop"}
    if mounted is not None:
        found["automountServiceAccountToken"] = mounted
    return found


TAKEN = "Deployment shop/api: mounts its service account's token, which it declined"


def test_a_token_its_service_account_declines_is_not_mounted_back() -> None:
    """The reference's pods leave the field unset and inherit their account's refusal: a pod
    that sets it true, or an account that stops refusing, mounts the token."""
    declining = [*CLUSTER, _account("default", False), _account("builder", False)]
    assert _guard([PLAIN], [PLAIN], declining) == ""
    taken = _deployment({"automountServiceAccountToken": True})
    assert _guard([taken], [PLAIN], declining) == TAKEN
    web = "Pod shop/web: mounts its service account's token, which it declined"
    for account in (_account("default", True), _account("default", None)):
        # the account stops declining for every pod that runs as it: the cluster's too
        assert _guard([PLAIN, account], [PLAIN], declining) == f"{TAKEN}; {web}"
    # another account that declines it too: a power (another account), but no token
    builder = _deployment({"serviceAccountName": "builder"})
    assert _guard([builder], [PLAIN], declining) == (
        "Deployment shop/api: runs as service account builder"
    )
    # where only another account declines it, the reference's pods mount it too: none taken
    assert _guard([taken], [PLAIN], [*CLUSTER, _account("builder", False)]) == ""


PROJECTED = {
    "name": "sa",
    "projected": {"sources": [{"serviceAccountToken": {"path": "token", "audience": "api"}}]},
}


def test_a_token_declined_and_mounted_by_a_projected_volume_is_mounted() -> None:
    declined = _deployment({"automountServiceAccountToken": False})
    projected = _deployment({"automountServiceAccountToken": False, "volumes": [PROJECTED]})
    assert _guard([projected], [declined]) == TAKEN
    assert _guard([projected], [PLAIN]) == ""  # every pod mounts it by default
    config = {"name": "cfg", "projected": {"sources": [{"configMap": {"name": "settings"}}]}}
    other = _deployment({"automountServiceAccountToken": False, "volumes": [config]})
    assert _guard([other], [declined]) == ""


# End to end, on generated tasks.


def _task(template_id: str, seed: int = 3) -> Task:
    [template] = [t for t in TEMPLATES if t.id == template_id]
    return draft(template, random.Random(seed), 0, 0, style="precise", locale="en")


def _reference(task: Task) -> list[Obj]:
    files = task.solutions["reference"]
    return [o for n in sorted(files) for o in yaml.safe_load_all(files[n]) if isinstance(o, dict)]


def _dump(objects: list[Obj]) -> dict[str, bytes]:
    return {"attack.yaml": yaml.safe_dump_all(objects, sort_keys=False).encode()}


def _changed(task: Task, change: Callable[[Obj], None]) -> list[Obj]:
    """The reference with ``change`` made to its Deployment."""
    objects = copy.deepcopy(_reference(task))
    [deployment] = [o for o in objects if o["kind"] == "Deployment"]
    change(deployment)
    return objects


def _pod_spec(deployment: Obj) -> Obj:
    spec: Obj = deployment["spec"]["template"]["spec"]
    return spec


def _pod_security(**settings: object) -> Callable[[Obj], None]:
    def change(deployment: Obj) -> None:
        _pod_spec(deployment).setdefault("securityContext", {}).update(settings)

    return change


def _container_security(**settings: object) -> Callable[[Obj], None]:
    def change(deployment: Obj) -> None:
        for container in _pod_spec(deployment)["containers"]:
            container.setdefault("securityContext", {}).update(settings)

    return change


def _unconfined_by_annotation(deployment: Obj) -> None:
    names = [c["name"] for c in _pod_spec(deployment)["containers"]]
    annotations = {f"{APPARMOR}{name}": "unconfined" for name in names}
    deployment["spec"]["template"]["metadata"]["annotations"] = annotations


def _pod_field(**settings: object) -> Callable[[Obj], None]:
    def change(deployment: Obj) -> None:
        _pod_spec(deployment).update(settings)

    return change


ESCAPES: dict[str, Callable[[Obj], None]] = {
    "spc_t on the pod": _pod_security(seLinuxOptions={"type": "spc_t"}),
    "spc_t on each container": _container_security(seLinuxOptions={"type": "spc_t"}),
    "AppArmor unconfined by annotation": _unconfined_by_annotation,
    "AppArmor unconfined on the pod": _pod_security(appArmorProfile={"type": "Unconfined"}),
    "AppArmor unconfined on each container": _container_security(
        appArmorProfile={"type": "Unconfined"}
    ),
}
DEPLOYMENT_TEMPLATES = ("security-context-deployment", "limits-deployment")


def _failed_on_the_guard(verdict: Verdict) -> str:
    assert verdict.status is Status.FAIL, verdict.criteria
    [failed] = [c for c in verdict.criteria if not c.passed]
    assert failed.name == GUARD, verdict.criteria
    return failed.evidence


@pytest.mark.parametrize("template_id", DEPLOYMENT_TEMPLATES)
@pytest.mark.parametrize("escape", ESCAPES, ids=str)
def test_a_workload_unconfined_by_selinux_or_apparmor_fails(
    template_id: str, escape: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    verdict = family.verify(task, _dump(_changed(task, ESCAPES[escape])), pool)
    assert _failed_on_the_guard(verdict).startswith("Deployment ")


@pytest.mark.parametrize("template_id", DEPLOYMENT_TEMPLATES)
def test_the_red_team_tries_spc_t_and_apparmor_unconfined(
    template_id: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    tried = {e.name: e for e in family.exploits(task)}
    names = ["reference-as-a-super-privileged-container"]
    if template_id == "security-context-deployment":  # a container security context to write in
        names.append("reference-without-apparmor")
    for name in names:
        _failed_on_the_guard(family.verify(task, tried[name].files, pool))


def _with_reference(task: Task, objects: list[Obj]) -> Task:
    solutions = {**task.solutions, "reference": _dump(objects)}
    return task.model_copy(update={"solutions": solutions})


@pytest.mark.parametrize("template_id", DEPLOYMENT_TEMPLATES)
def test_the_node_user_namespace_where_the_reference_leaves_it_fails(
    template_id: str, pool: PoolSandbox
) -> None:
    """A task whose reference runs its pods in a user namespace of their own: the generated
    reference, which leaves ``hostUsers`` unset, now shares the node's."""
    task = _task(template_id)
    own = _changed(task, _pod_field(hostUsers=False))
    task = _with_reference(task, own)
    assert family.verify(task, _dump(own), pool).status is Status.PASS
    [hack] = [e for e in family.exploits(task) if e.name == "reference-in-the-node-user-namespace"]
    for shared in (
        _reference(_task(template_id)),
        _changed(task, _pod_field(hostUsers=True)),
        [o for o in yaml.safe_load_all(hack.files["exploit.yaml"]) if o],
    ):
        evidence = _failed_on_the_guard(family.verify(task, _dump(shared), pool))
        assert "runs in the node's user namespace, which it left" in evidence


@pytest.mark.parametrize("template_id", DEPLOYMENT_TEMPLATES)
def test_the_red_team_takes_back_the_token_the_reference_declines(
    template_id: str, pool: PoolSandbox
) -> None:
    task = _task(template_id)
    declined = _changed(task, _pod_field(automountServiceAccountToken=False))
    task = _with_reference(task, declined)
    assert family.verify(task, _dump(declined), pool).status is Status.PASS
    tried = {e.name: e for e in family.exploits(task)}
    for name in ("reference-mounting-its-token", "reference-projecting-its-token"):
        evidence = _failed_on_the_guard(family.verify(task, tried[name].files, pool))
        assert "mounts its service account's token, which it declined" in evidence, name


@pytest.mark.parametrize("template_id", DEPLOYMENT_TEMPLATES)
def test_a_token_the_namespace_account_declines_is_not_mounted_back(
    template_id: str, pool: PoolSandbox
) -> None:
    """A cluster whose namespace's ``default`` account declines its token: the reference's
    pods inherit that; a submission that sets the pod's field true mounts it."""
    task = _task(template_id)
    [deployment] = [o for o in _reference(task) if o["kind"] == "Deployment"]
    account = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "default", "namespace": deployment["metadata"]["namespace"]},
        "automountServiceAccountToken": False,
    }
    cluster = task.workspace["cluster.yaml"] + b"---\n" + yaml.safe_dump(account).encode()
    task = with_workspace(task, "cluster.yaml", cluster)
    assert family.verify(task, task.solutions["reference"], pool).status is Status.PASS
    taken = _changed(task, _pod_field(automountServiceAccountToken=True))
    evidence = _failed_on_the_guard(family.verify(task, _dump(taken), pool))
    assert "mounts its service account's token, which it declined" in evidence


SHARED_LABELS = "reference-by-shared-labels"
NETPOL_TEMPLATES = sorted(t.id for t in TEMPLATES if t.id.startswith("netpol-"))
TARGETED = ("netpol-allow-scrape", "netpol-db-only-from-client", "netpol-egress-dns-and-db")
"""The templates whose reference names a labelled namespace by name."""


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("template_id", NETPOL_TEMPLATES)
def test_naming_namespaces_by_labels_anyone_may_copy_fails_wherever_it_is_tried(
    template_id: str, seed: int, pool: PoolSandbox
) -> None:
    """The red team's hack: the reference with each namespace it names by name
    (``kubernetes.io/metadata.name``) named instead by its owner's labels, which a namespace
    made later may carry too, letting in its pods that copy the labels of the pods meant."""
    task = _task(template_id, seed)
    hacks = [e for e in family.exploits(task) if e.name == SHARED_LABELS]
    assert bool(hacks) == (template_id in TARGETED)
    for hack in hacks:
        assert b"kubernetes.io/metadata.name" not in hack.files["exploit.yaml"] or (
            template_id == "netpol-egress-dns-and-db"  # kube-system has no other label
        )
        verdict = family.verify(task, hack.files, pool)
        assert verdict.status is Status.FAIL, verdict.criteria
        failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
        assert "in a namespace made later with its labels" in failed["no one else gets in"]
    assert family.verify(task, task.solutions["reference"], pool).status is Status.PASS
