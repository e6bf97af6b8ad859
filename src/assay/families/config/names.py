"""Names as the API server validates them (apimachinery's ``ValidateObjectMeta`` and the
validation of each kind), so that an object a real cluster refuses is refused here too.

- ``metadata.name`` is required. ``Namespace`` names are DNS-1123 labels, ``Service`` names
  DNS-1035 labels (a label that starts with a letter); RBAC objects (``Role``, ``ClusterRole``,
  ``RoleBinding``, ``ClusterRoleBinding``) take any path segment (not ``.`` or ``..``, no
  ``/`` or ``%``); the other kinds of the family need a DNS-1123 subdomain; a kind the family
  does not know, a path segment at least.
- ``metadata.namespace`` of a namespaced object is a DNS-1123 label (a cluster-scoped object's
  namespace is dropped by the API server, and not checked).
- A container's name is a DNS-1123 label; a container port's name, and a port name a Service
  or a NetworkPolicy refers to, an ``IANA_SVC_NAME``; a Service port's name a DNS-1123 label.

Each ``*_problem`` function says why a value breaks its rule, or None when it does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from assay.families.config.selectors import ObjectError

_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_PORT_NAME = re.compile(r"^[-a-z0-9]{1,15}$")
_SHOWN = 80
"""How many characters of a refused value its refusal shows."""


def dns_label_problem(value: str) -> str | None:
    """RFC 1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a
    letter or digit."""
    if len(value) > 63 or not _LABEL.match(value):
        return (
            f"{value[:_SHOWN]!r} is not a DNS-1123 label (at most 63 lowercase letters, digits "
            "and '-', starting and ending with a letter or digit)"
        )
    return None


def dns_1035_label_problem(value: str) -> str | None:
    """RFC 1035 label: a DNS-1123 label that starts with a letter."""
    if len(value) > 63 or not _LABEL_1035.match(value):
        return (
            f"{value[:_SHOWN]!r} is not a DNS-1035 label (at most 63 lowercase letters, digits "
            "and '-', starting with a letter and ending with a letter or digit)"
        )
    return None


def dns_subdomain_problem(value: str) -> str | None:
    """RFC 1123 subdomain: at most 253 lowercase letters, digits, '-' and '.', starting and
    ending with a letter or digit."""
    if len(value) > 253 or not _SUBDOMAIN.match(value):
        return (
            f"{value[:_SHOWN]!r} is not a DNS-1123 subdomain (at most 253 lowercase letters, "
            "digits, '-' and '.', starting and ending with a letter or digit)"
        )
    return None


def path_segment_problem(value: str) -> str | None:
    """A name that can be one segment of a URL path: not ``.`` or ``..``, no ``/`` or ``%``."""
    if value in (".", "..") or "/" in value or "%" in value:
        return f"{value[:_SHOWN]!r} is not a path segment name (not '.' or '..', no '/' or '%')"
    return None


def port_name_problem(value: str) -> str | None:
    """IANA_SVC_NAME: at most 15 lowercase letters, digits and '-', a letter among them, no
    '-' at either end nor two together."""
    if (
        not _PORT_NAME.match(value)
        or not any(c.isalpha() for c in value)
        or value.startswith("-")
        or value.endswith("-")
        or "--" in value
    ):
        return (
            f"{value[:_SHOWN]!r} is not a valid port name (IANA_SVC_NAME: at most 15 lowercase "
            "letters, digits and single inner '-', with a letter)"
        )
    return None


_RBAC = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
_SUBDOMAIN_KINDS = (
    "Pod",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "Job",
    "CronJob",
    "NetworkPolicy",
    "ServiceAccount",
    "ConfigMap",
    "Secret",
)
NAME_RULES: Mapping[str, Callable[[str], str | None]] = {
    "Namespace": dns_label_problem,
    "Service": dns_1035_label_problem,
    **dict.fromkeys(_RBAC, path_segment_problem),
    **dict.fromkeys(_SUBDOMAIN_KINDS, dns_subdomain_problem),
}
"""The rule of ``metadata.name`` by kind; :func:`path_segment_problem` for any other kind."""


def check_metadata(obj: Mapping[str, object], where: str, *, namespaced: bool) -> None:
    """Refuse ``obj`` (``where`` names it) with :class:`ObjectError` when its name, or its
    namespace when ``namespaced``, breaks the rule of its kind."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name, namespace = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str) or not name:
        raise ObjectError(f"{where}: metadata.name is required")
    problem = NAME_RULES.get(str(obj.get("kind")), path_segment_problem)(name)
    if problem is not None:
        raise ObjectError(f"{where}: metadata.name: {problem}")
    if namespaced and isinstance(namespace, str) and namespace:
        problem = dns_label_problem(namespace)
        if problem is not None:
            raise ObjectError(f"{where}: metadata.namespace: {problem}")
