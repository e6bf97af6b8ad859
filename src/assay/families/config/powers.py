"""What a workload's pods may do beyond what a pod may by default, for the workload guard.

Each power is one line naming where it comes from. A pod gains one by:

- sharing the node's network, process or IPC namespace (``hostNetwork``, ``hostPID``,
  ``hostIPC``), or mounting a path of the node (a ``hostPath`` volume);
- a container (init and ephemeral ones too) run privileged, with an added capability, as user
  0 or group 0 (``runAsGroup``, or the pod's ``fsGroup`` or ``supplementalGroups``, which every
  process of the pod joins), with the node's ``/proc`` unmasked (``procMount: Unmasked``),
  outside the runtime's seccomp or AppArmor profile (``Unconfined``, or the older annotations
  ``seccomp.security.alpha.kubernetes.io/pod``,
  ``container.seccomp.security.alpha.kubernetes.io/NAME`` and
  ``container.apparmor.security.beta.kubernetes.io/NAME`` saying ``unconfined``), under a
  profile of the node's it picks (``Localhost``, or ``localhost/PATH`` in those annotations: a
  file on the node may allow everything), as a Windows host process, or on a port of the node
  (``hostPort``);
- an SELinux label of its choosing, of the pod or a container (``seLinuxOptions``): a ``type``
  outside those the baseline Pod Security Standard admits (:data:`SELINUX_TYPES`; ``spc_t``,
  the super-privileged container, is unconfined as a privileged one is), or a ``user`` or
  ``role``;
- a sysctl outside Kubernetes' safe set (:data:`SAFE_SYSCTLS`): the others reach past the pod
  into the node's kernel;
- seeing its other containers' processes and files (``shareProcessNamespace``);
- running where the scheduler would not put it: on a node named outright (``nodeName``, past
  the scheduler and its taints), by another scheduler (``schedulerName``), on a control-plane
  node by its label (``nodeSelector``, a required node affinity), or tolerating the
  control-plane taint or every taint;
- running under a container runtime of its choosing (``runtimeClassName``: a class may name a
  runtime with none of the default's isolation), or at a priority of its choosing
  (``priorityClassName``: ``system-node-critical`` pods evict others from the node and are the
  last evicted themselves; or ``priority``, the number itself, which a cluster's admission
  refuses unless its class gives it);
- running as a service account other than its namespace's ``default`` (its rights are not the
  pod's to choose in a task that never names it).

What a pod declines that a pod has by default is no power of its own, but a workload that
stops declining what the reference's declines is told apart by :func:`restraints`: its service
account's token (``automountServiceAccountToken: false`` on the pod, or, where the pod leaves
it unset, on its service account; a projected volume of the token mounts it all the same), and
the node's user namespace (``hostUsers: false``: the pod's users are not the node's, so its
root is not the node's root; like ``hostPID`` and ``hostNetwork``, sharing the node's is the
power, only it is the default).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assay.families.config.cluster import mapping_of, metadata
from assay.families.config.workloads import (
    Container,
    Workload,
    added_capabilities,
    inherited,
)

SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    }
)
"""The sysctls Kubernetes counts safe (namespaced, isolated between pods): the kubelet allows
them by default and the baseline Pod Security Standard admits no other."""
CONTROL_PLANE_LABELS = (
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
)
"""The label and taint key of a control-plane node (``master`` before Kubernetes 1.24)."""
DEFAULT_ACCOUNT = "default"
SELINUX_TYPES = frozenset(
    {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
)
"""The SELinux types the baseline Pod Security Standard admits: the runtime's confined
container domains. Any other (``spc_t``, ``unconfined_t``) runs outside that confinement."""
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"
"""The prefix of the annotation that set a container's AppArmor profile before the
``appArmorProfile`` field (the API server still reads it); the container's name follows."""
SECCOMP_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"
"""The prefix of the annotation that set a container's seccomp profile before the
``seccompProfile`` field; the container's name follows."""
SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
"""The annotation that set the seccomp profile of every container of a pod before the
``seccompProfile`` field."""
DEFAULT_SCHEDULER = "default-scheduler"
MOUNTS_DECLINED = "mounts its service account's token, which it declined"
USERS_LEFT = "runs in the node's user namespace, which it left (hostUsers: false)"


def powers(workload: Workload) -> frozenset[str]:
    """What ``workload``'s pods may do beyond what a pod may by default, one line each (see
    the module's docstring); empty for a plain pod."""
    found = set(workload.host_namespaces)
    found |= {f"hostPath volume {path}" for path in workload.host_paths}
    for where, c in workload.every_container():
        found |= {f"{where}: {power}" for power in _container_powers(c, workload)}
    found |= _pod_powers(workload.pod_spec, workload.pod_security, workload.annotations)
    return frozenset(found)


def account_tokens(objects: Iterable[Mapping[str, object]]) -> dict[str, bool]:
    """Each ``ServiceAccount`` among ``objects`` that says whether pods mount its token
    (``automountServiceAccountToken``), by ``ns/name``."""
    found = {}
    for obj in objects:
        if obj.get("kind") == "ServiceAccount":
            mounted = obj.get("automountServiceAccountToken")
            if isinstance(mounted, bool):
                name, namespace, _labels = metadata(obj)
                found[f"{namespace}/{name}"] = mounted
    return found


def token_mounted(workload: Workload, accounts: Mapping[str, bool]) -> bool:
    """Whether ``workload``'s pods mount their service account's API token: by a projected
    volume of it, whatever else says; else as the pod spec says
    (``automountServiceAccountToken``), else as its service account does (``accounts``, from
    :func:`account_tokens`), else they do."""
    spec = workload.pod_spec
    if _projects_a_token(spec):
        return True
    mounted = spec.get("automountServiceAccountToken")
    if isinstance(mounted, bool):
        return mounted
    account = spec.get("serviceAccountName") or spec.get("serviceAccount") or DEFAULT_ACCOUNT
    return accounts.get(f"{workload.namespace}/{account}", True)


def _projects_a_token(spec: Mapping[str, object]) -> bool:
    """Whether a projected volume of the pod holds its service account's token
    (``serviceAccountToken``): mounted where ``automountServiceAccountToken`` is false too."""
    volumes = spec.get("volumes")
    for volume in volumes if isinstance(volumes, list) else []:
        sources = mapping_of(mapping_of(volume).get("projected")).get("sources")
        for source in sources if isinstance(sources, list) else []:
            if mapping_of(source).get("serviceAccountToken") is not None:
                return True
    return False


def restraints(workload: Workload, accounts: Mapping[str, bool]) -> frozenset[str]:
    """What ``workload``'s pods decline that a pod has by default, each as the line that
    says it is lost (:data:`MOUNTS_DECLINED`, :data:`USERS_LEFT`); ``accounts`` as for
    :func:`token_mounted`."""
    found = set()
    if not token_mounted(workload, accounts):
        found.add(MOUNTS_DECLINED)
    if workload.pod_spec.get("hostUsers") is False:
        found.add(USERS_LEFT)
    return frozenset(found)


def _container_powers(c: Container, workload: Workload) -> set[str]:
    security = c.security
    found = set()
    if security.get("privileged") is True:
        found.add("privileged")
    found |= {f"adds capability {cap}" for cap in added_capabilities(c)}
    if inherited(c, workload, "runAsUser") == 0:
        found.add("runs as user 0 (root)")
    if inherited(c, workload, "runAsGroup") == 0:
        found.add("runs as group 0 (root)")
    if security.get("procMount") not in (None, "Default"):
        found.add(f"procMount {str(security.get('procMount'))[:40]}")
    for key in ("seccompProfile", "appArmorProfile"):
        profile = mapping_of(inherited(c, workload, key))
        if profile.get("type") == "Unconfined":
            found.add(f"{key} Unconfined")
        elif profile.get("type") == "Localhost":
            found.add(f"{key} Localhost {str(profile.get('localhostProfile'))[:80]}")
    for kind, prefix in (("AppArmor", APPARMOR_ANNOTATION), ("seccomp", SECCOMP_ANNOTATION)):
        found |= _annotated(kind, workload.annotations.get(prefix + c.name))
    found |= _selinux(security)
    if mapping_of(inherited(c, workload, "windowsOptions")).get("hostProcess") is True:
        found.add("a Windows host process")
    found |= {f"hostPort {port}" for port in c.host_ports}
    return found


def _pod_powers(
    spec: Mapping[str, object],
    security: Mapping[str, object],
    annotations: Mapping[str, object],
) -> set[str]:
    found = set()
    if security.get("fsGroup") == 0:
        found.add("fsGroup 0 (root)")
    groups = security.get("supplementalGroups")
    if isinstance(groups, list) and 0 in groups:
        found.add("supplementalGroups holds 0 (root)")
    sysctls = security.get("sysctls")
    for item in sysctls if isinstance(sysctls, list) else []:
        name = str(mapping_of(item).get("name", "")).replace("/", ".")
        if name not in SAFE_SYSCTLS:
            found.add(f"unsafe sysctl {name[:80]}")
    found |= {f"pod {power}" for power in _selinux(security)}
    found |= {
        f"pod {power}" for power in _annotated("seccomp", annotations.get(SECCOMP_POD_ANNOTATION))
    }
    for key, what in (
        ("runtimeClassName", "runtime class"),
        ("priorityClassName", "priority class"),
    ):
        chosen = spec.get(key)
        if isinstance(chosen, str) and chosen:
            found.add(f"{what} {chosen[:80]}")
    priority = spec.get("priority")
    if isinstance(priority, int) and not isinstance(priority, bool):
        found.add(f"priority {priority} given outright")
    if spec.get("shareProcessNamespace") is True:
        found.add("shareProcessNamespace")
    found |= _placement(spec)
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if isinstance(account, str) and account and account != DEFAULT_ACCOUNT:
        found.add(f"runs as service account {account[:80]}")
    return found


def _placement(spec: Mapping[str, object]) -> set[str]:
    """Where the pod runs that the scheduler would not put it: a node named outright, a
    control-plane node, past the control-plane taint or every taint."""
    found = set()
    node = spec.get("nodeName")
    if isinstance(node, str) and node:
        found.add(f"nodeName {node[:80]} (past the scheduler and the node's taints)")
    scheduler = spec.get("schedulerName")
    if isinstance(scheduler, str) and scheduler not in ("", DEFAULT_SCHEDULER):
        found.add(f"schedulerName {scheduler[:80]} (past the default scheduler)")
    selector = mapping_of(spec.get("nodeSelector"))
    if any(key in selector for key in CONTROL_PLANE_LABELS):
        found.add("nodeSelector for a control-plane node")
    required = mapping_of(
        mapping_of(mapping_of(spec.get("affinity")).get("nodeAffinity")).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
    )
    terms = required.get("nodeSelectorTerms")
    for term in terms if isinstance(terms, list) else []:
        expressions = mapping_of(term).get("matchExpressions")
        for expression in expressions if isinstance(expressions, list) else []:
            if mapping_of(expression).get("key") in CONTROL_PLANE_LABELS:
                found.add("node affinity for a control-plane node")
    tolerations = spec.get("tolerations")
    for item in tolerations if isinstance(tolerations, list) else []:
        toleration = mapping_of(item)
        key = toleration.get("key")
        if not key and toleration.get("operator") == "Exists":
            found.add("tolerates every taint")
        elif key in CONTROL_PLANE_LABELS:
            found.add("tolerates the control-plane taint")
    return found


def _annotated(kind: str, value: object) -> set[str]:
    """The power an older profile annotation's ``value`` gives: none, or its ``kind`` of
    profile ``unconfined`` or one of the node's (``localhost/PATH``)."""
    if not isinstance(value, str):
        return set()
    if value == "unconfined":
        return {f"{kind} unconfined (annotation)"}
    if value.startswith("localhost/"):
        return {f"{kind} profile {value[:80]} of the node (annotation)"}
    return set()


def _selinux(security: Mapping[str, object]) -> set[str]:
    """The SELinux label a security context chooses beyond the baseline's: a type outside
    :data:`SELINUX_TYPES`, a user or a role."""
    options = mapping_of(security.get("seLinuxOptions"))
    found = set()
    kind = options.get("type")
    if kind is not None and kind not in SELINUX_TYPES:
        found.add(f"seLinuxOptions type {str(kind)[:40]} (outside the container domains)")
    for key in ("user", "role"):
        if options.get(key):
            found.add(f"seLinuxOptions {key} {str(options[key])[:40]}")
    return found
