"""What no configuration task asks for and every one forbids: letting in someone it never names,
cutting off what it never mentions, and giving a workload powers.

A task's requirements (:mod:`.expectations`) judge the pods of its cluster and the subjects its
prompt names. A submission can meet them all and still open the door to someone else: a rule
that admits ``0.0.0.0/0`` or ``::/0`` (the internet, which no pod of the cluster is), a
namespace selector that matches namespaces made later, the right role bound to
``system:authenticated``, ``system:unauthenticated`` or every service account; or close a door
nobody asked about (the cluster cut off from the internet); or harden a workload while letting
it into the node. These criteria, judged against the task's reference solution applied to the
same cluster, catch that:

``no one else gets in``
    For every pod of the cluster and every port it declares, a source outside the cluster's
    pods (every address of the world, and a pod of a namespace made later) may connect only
    where the reference lets it; every pod may connect to a destination outside them only on
    ports and addresses where the reference lets it; and
    a connection between pods of the cluster that no ``[[reachability]]`` requirement of any
    reading decides is allowed only where the reference allows it.
``nothing else is cut off``
    The same connections, each allowed wherever the reference allows it.
``no one else gains rights``
    Every subject but those the requirements give rights to (anonymous, any authenticated user,
    a service account of each namespace, and every subject a binding names; a user named
    ``system:serviceaccount:NS:NAME`` is that service account) holds nothing the reference
    does not give it; nor does whoever is bound later to an aggregated cluster role (the
    built-in ``admin``, ``edit`` and ``view``, which no one may hold today): a role labelled
    to aggregate into ``admin`` gives its rules to every namespace's admin to come.
``the workloads keep their replicas and gain no powers``
    For a task whose submission may hold workloads: every Deployment and StatefulSet runs as
    many replicas as with the reference, none stops rolling its template out to its pods where
    the reference's does (a paused Deployment, an ``OnDelete`` update strategy: the template
    meets every requirement and the running pods never take it), and no workload's pods gain a
    power on their node
    (:func:`~.powers.powers`: its namespaces or paths, a privileged container, an added
    capability, user or group 0, an unmasked ``/proc``, an unsafe sysctl, an unconfined
    seccomp, AppArmor or SELinux label or a profile file of the node's, a node it picks past
    the scheduler or the control-plane taint, a runtime class, priority class or scheduler of
    its choosing, another service account, a host port) that the reference does not
    give them, nor takes back what the reference's pods decline (:func:`~.powers.restraints`:
    the service account's token, by the pod or by its account; a user namespace of its own).
``no Service opens the cluster to the outside``
    For a task whose submission may hold Services: none is of type ``NodePort`` or
    ``LoadBalancer``, or takes ``externalIPs``, where the reference's Service of that name is
    not (selecting the right pods is no licence to put them on the internet).

``no one else gets in`` also lets in no pod made later in a namespace made later with the
labels of one of today's pods and namespaces (every label but the namespace's name, which only
the API server sets) where the reference keeps it out and the submission would keep it out
of a namespace without those labels: a rule naming a namespace by a label its
owner chose (``team: observability``) rather than by its name lets in whoever makes another
namespace so labelled.

The two reachability guards also hold a replica of each pod made later (its namespace, labels
and ports, an address nobody knows yet) to the access of the pod it copies, wherever the
reference does: a policy that names today's pods by their addresses (an ``ipBlock`` of each
one's ``/32``) meets every requirement about them and cuts off the next replica of their
workload.

A requirement that wants outsiders in (``from = "*"``, allowed) is met by the reference too, so
the guard asks nothing the reference does not do. Without a reference, or where the reference's
cluster could not be read, there is no guard.

The two reachability guards live in :mod:`.reach_guards`, what a workload's pods may do in
:mod:`.powers`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from assay.families.config.expectations import Expectations, criterion
from assay.families.config.meaning import Meaning
from assay.families.config.powers import powers, restraints
from assay.families.config.rbac import (
    SERVICE_ACCOUNT_USER,
    Grant,
    Permissions,
    Subject,
    describe,
)
from assay.families.config.reach_guards import CLEAN, reachability_criteria
from assay.families.config.workloads import WORKLOAD_KINDS
from assay.verdicts import Criterion

BYSTANDERS = (
    Subject("User", "system:anonymous", groups=("system:unauthenticated",)),
    Subject("User", "someone-authenticated", groups=("system:authenticated",)),
)


def guard_criteria(
    found: Meaning,
    reference: Meaning,
    expected: Iterable[Expectations],
    *,
    kinds: Collection[str],
    task_id: str,
) -> tuple[Criterion, ...]:
    """The guards' criteria: only those the task makes relevant (a task with no network
    policy in its reference has no reachability guards, one with no RBAC object no rights
    guard, and one whose submission may hold no workload (``kinds``) no workload guard, or
    no Service no Service guard)."""
    readings = list(expected)
    criteria = []
    if reference.reachability.policies or found.reachability.policies:
        criteria += reachability_criteria(
            found.reachability, reference.reachability, readings, task_id
        )
    if reference.permissions.bindings or found.permissions.bindings:
        criteria.append(_bystanders(found, reference, readings))
    if set(kinds) & set(WORKLOAD_KINDS):
        criteria.append(_workloads(found, reference))
    if "Service" in kinds:
        criteria.append(_services(found, reference))
    return tuple(criteria)


def _workloads(found: Meaning, reference: Meaning) -> Criterion:
    wrong = []
    for ref, workload in sorted(found.workloads.items()):
        before = reference.workloads.get(ref)
        if before is not None and workload.replicas != before.replicas:
            wrong.append(f"{ref} runs {workload.replicas} replicas, not {before.replicas}")
        if before is not None and workload.held and not before.held:
            wrong.append(f"{ref}: its running pods never take the new template ({workload.held})")
        if before is not None:
            lost = restraints(before, reference.accounts) - restraints(workload, found.accounts)
            wrong += [f"{ref}: {line}" for line in sorted(lost)]
        gained = powers(workload) - (powers(before) if before is not None else frozenset())
        wrong += [f"{ref}: {power}" for power in sorted(gained)]
    return criterion(
        "the workloads keep their replicas and gain no powers",
        wrong,
        max(len(found.workloads), 1),
        "workloads",
        clean=CLEAN,
    )


def _services(found: Meaning, reference: Meaning) -> Criterion:
    wrong = []
    for ref, service in sorted(found.services.items()):
        before = reference.services.get(ref)
        kept = set(before.exposure) if before is not None else set()
        wrong += [f"Service {ref}: {what}" for what in service.exposure if what not in kept]
    return criterion(
        "no Service opens the cluster to the outside",
        wrong,
        max(len(found.services), 1),
        "services",
        clean=CLEAN,
    )


def _bystanders(found: Meaning, reference: Meaning, readings: Sequence[Expectations]) -> Criterion:
    entitled = {check.subject for e in readings for check in e.permissions if check.allowed} | {
        check.subject for e in readings for check in e.only
    }
    subjects = [
        *BYSTANDERS,
        *(
            Subject("ServiceAccount", "someone", namespace)
            for namespace in sorted(found.reachability.cluster.namespaces)
        ),
        *_bound(found.permissions),
        *_bound(reference.permissions),
    ]
    wrong = []
    seen: set[str] = set()
    for subject in subjects:
        key = f"{subject}+{','.join(subject.groups)}"
        if str(subject) in entitled or key in seen:
            continue
        seen.add(key)
        for grant in found.permissions.grants(subject):
            if not _given(grant, subject, reference.permissions):
                wrong.append(f"{subject} {describe(grant)}")
    for role in _aggregated(found.permissions, reference.permissions):
        subject = Subject("User", f"whoever is bound to ClusterRole/{role} later")
        seen.add(str(subject))
        later = reference.permissions.bound_later(role, subject)
        for grant in found.permissions.bound_later(role, subject).grants(subject):
            if grant.binding == LATER and not _given(grant, subject, later):
                wrong.append(f"{subject} {describe(grant)}")
    return criterion(
        "no one else gains rights", wrong, max(len(seen), 1), "permissions", clean=CLEAN
    )


LATER = "ClusterRoleBinding/made-later"


def _aggregated(found: Permissions, reference: Permissions) -> list[str]:
    """The aggregated cluster roles both have (``admin``, ``edit`` and ``view`` at least):
    bound by no one today, they are bound whenever someone is made a namespace's admin, and a
    role labelled to aggregate into one gives its rules to everyone bound to it then."""
    return sorted(
        name
        for name, role in found.cluster_roles.items()
        if role.aggregation is not None and name in reference.cluster_roles
    )


def _bound(permissions: Permissions) -> list[Subject]:
    """Every subject a binding names, as the authorizer would see it ask."""
    found = []
    for binding in permissions.bindings:
        for kind, name, namespace in binding.subjects:
            account = _account(name) if kind == "User" else None
            if account is not None:  # a service account's own user name
                found.append(account)
            elif kind == "ServiceAccount":
                found.append(Subject(kind, name, namespace or binding.namespace))
            elif kind == "Group":
                found.append(Subject("User", f"a member of {name}", groups=(name,)))
            else:
                found.append(Subject(kind, name))
    return found


def _account(user: str) -> Subject | None:
    """The service account whose user name ``user`` is (``system:serviceaccount:NS:NAME``)."""
    prefix, _, rest = user.partition(SERVICE_ACCOUNT_USER)
    namespace, _, name = rest.partition(":")
    if prefix or not namespace or not name or ":" in name:
        return None
    return Subject("ServiceAccount", name, namespace)


def _given(grant: Grant, subject: Subject, reference: Permissions) -> bool:
    """Whether everything ``grant`` allows, ``reference`` allows ``subject`` too (a wildcard
    only where the reference has the same wildcard)."""
    rule = grant.rule
    if rule.non_resource_urls:
        return any(
            g.rule.non_resource_urls
            and set(rule.non_resource_urls) <= set(g.rule.non_resource_urls)
            and set(rule.verbs) <= set(g.rule.verbs)
            for g in reference.grants(subject)
        )
    names: Sequence[str | None] = rule.resource_names or (None,)
    return all(
        reference.can(subject, verb, group, resource, grant.namespace, name=name)
        for verb in rule.verbs
        for group in rule.api_groups
        for resource in rule.resources
        for name in names
    )
