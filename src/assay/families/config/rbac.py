"""RBAC: the effective permissions of a subject, as the API server's RBAC authorizer grants them.

- A ``ClusterRoleBinding`` grants its ``ClusterRole``'s rules everywhere: in every namespace and
  on cluster-scoped resources. A ``RoleBinding`` grants its role's rules (a ``Role`` of its own
  namespace, or a ``ClusterRole``) in its own namespace only. A request without a namespace (a
  cluster-scoped resource, or a namespaced one across all namespaces) is granted by cluster role
  bindings only. A binding whose role does not exist grants nothing.
- The cluster roles every cluster has exist though no object declares them (:mod:`.builtin`):
  ``cluster-admin`` (everything), the aggregated ``admin``, ``edit`` and ``view`` with their
  default rules, and any other ``system:`` cluster role, taken to grant everything. An object
  declaring one of these names adds its rules to the default ones (the API server puts the
  defaults back when it starts).
- Subjects: ``User`` and ``Group`` by name; ``ServiceAccount`` by namespace and name (a role
  binding's service account without a namespace is in the binding's namespace). A service
  account is also the user ``system:serviceaccount:NS:NAME`` and a member of the groups
  ``system:serviceaccounts``, ``system:serviceaccounts:NS`` and ``system:authenticated``.
  As the API server does, a subject's ``apiGroup`` must be empty for a service account (whose
  name is a DNS-1123 subdomain) and ``rbac.authorization.k8s.io`` (the default when empty) for
  a user or a group, and a ``roleRef.name`` must be a path segment (:mod:`.names`). A rule
  needs verbs, and either ``apiGroups`` and ``resources`` or, in a ClusterRole only,
  ``nonResourceURLs`` alone: the API server refuses a role with any other rule, and so does
  this module.
- A rule allows a request when its verbs, API groups and resources contain the request's (``*``
  matching any), and, when it lists ``resourceNames``, the request names one of them (a request
  without a name, like list or create, is asked with the name ``""``: it matches only a rule
  that lists ``""``, as the authorizer compares them). A subresource is asked as
  ``resource/subresource`` (``pods/log``): ``pods`` does not grant ``pods/log``; ``*`` and
  ``*/log`` do.
- An aggregated ``ClusterRole`` (``aggregationRule.clusterRoleSelectors``) has the rules of every
  other cluster role whose labels a selector matches, as the aggregation controller writes them
  (its own ``rules`` are overwritten), to a fixed point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from assay.families.config.builtin import CLUSTER_ROLES, RBAC, SYSTEM
from assay.families.config.cluster import metadata
from assay.families.config.names import dns_subdomain_problem, path_segment_problem
from assay.families.config.selectors import ObjectError, Selector, parse_selector

ALL = "*"
SUBJECT_KINDS = ("User", "Group", "ServiceAccount")
SERVICE_ACCOUNT_USER = "system:serviceaccount:"
"""What a service account's user name starts with (``system:serviceaccount:NS:NAME``)."""


@dataclass(frozen=True)
class Subject:
    """Who asks: ``User:NAME``, ``Group:NAME`` or ``ServiceAccount:NAMESPACE/NAME``."""

    kind: str
    name: str
    namespace: str | None = None
    groups: tuple[str, ...] = ()
    """For a user: the groups it is a member of (a service account's are implied)."""

    @classmethod
    def parse(cls, text: str) -> Subject:
        """Read ``KIND:NAME`` (``ServiceAccount:NS/NAME``); raises :class:`ValueError`."""
        kind, _, name = text.partition(":")
        if kind not in SUBJECT_KINDS or not name:
            raise ValueError(f"{text!r} is not User:NAME, Group:NAME or ServiceAccount:NS/NAME")
        if kind == "ServiceAccount":
            namespace, _, account = name.partition("/")
            if not namespace or not account:
                raise ValueError(f"{text!r}: a service account is ServiceAccount:NS/NAME")
            return cls(kind, account, namespace)
        return cls(kind, name)

    @property
    def user(self) -> str | None:
        """The user name the authorizer sees, if the subject is a user or a service account."""
        if self.kind == "ServiceAccount":
            return f"{SERVICE_ACCOUNT_USER}{self.namespace}:{self.name}"
        return self.name if self.kind == "User" else None

    @property
    def member_of(self) -> frozenset[str]:
        """Every group the subject is in (for a group: itself)."""
        if self.kind == "Group":
            return frozenset({self.name})
        if self.kind == "ServiceAccount":
            return frozenset(
                {
                    "system:serviceaccounts",
                    f"system:serviceaccounts:{self.namespace}",
                    "system:authenticated",
                    *self.groups,
                }
            )
        return frozenset(self.groups)

    def __str__(self) -> str:
        if self.kind == "ServiceAccount":
            return f"ServiceAccount:{self.namespace}/{self.name}"
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True)
class PolicyRule:
    """One rule of a role."""

    verbs: tuple[str, ...]
    api_groups: tuple[str, ...] = ("",)
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    def allows(self, verb: str, group: str, resource: str, name: str | None) -> bool:
        """Whether this rule allows ``verb`` on ``resource`` (``resource/subresource``) of
        ``group``, named ``name`` (None: a request without a name)."""
        return (
            _has(self.verbs, verb)
            and _has(self.api_groups, group)
            and _resource_matches(self.resources, resource)
            and (not self.resource_names or (name or "") in self.resource_names)
        )


@dataclass(frozen=True)
class Grant:
    """One rule a subject holds, where it holds it, and through which binding."""

    namespace: str | None
    """The namespace it holds in; None: everywhere (a cluster role binding)."""
    rule: PolicyRule
    binding: str
    """``ClusterRoleBinding/NAME`` or ``RoleBinding/NS/NAME``."""
    role: str
    """``ClusterRole/NAME`` or ``Role/NS/NAME``."""


@dataclass(frozen=True)
class _Role:
    """A role's rules, labels and, for an aggregated cluster role, its selectors."""

    rules: tuple[PolicyRule, ...]
    labels: Mapping[str, str]
    aggregation: tuple[Selector, ...] | None = None
    kept: tuple[PolicyRule, ...] = ()
    """Rules an aggregation keeps beside those it selects (a built-in role's declared rules)."""


@dataclass(frozen=True)
class _Binding:
    namespace: str | None
    name: str
    role_kind: str
    role_name: str
    subjects: tuple[tuple[str, str, str | None], ...]
    """(kind, name, namespace) of each subject."""


class Permissions:
    """The RBAC objects of a cluster, and what they grant."""

    def __init__(self, objects: Iterable[Mapping[str, object]]) -> None:
        self.roles: dict[tuple[str, str], _Role] = {}
        self.cluster_roles: dict[str, _Role] = {}
        self.bindings: list[_Binding] = []
        for obj in objects:
            kind = obj.get("kind")
            if kind in ("Role", "ClusterRole"):
                self._add_role(obj)
            elif kind in ("RoleBinding", "ClusterRoleBinding"):
                self.bindings.append(_binding(obj))
        for name, default in BUILT_IN.items():
            declared = self.cluster_roles.get(name)
            self.cluster_roles[name] = default if declared is None else _merged(declared, default)
        for name, declared in list(self.cluster_roles.items()):
            if name.startswith(SYSTEM) and name not in BUILT_IN:  # maybe a bootstrap role
                self.cluster_roles[name] = _merged(declared, BUILT_IN["cluster-admin"])
        for binding in self.bindings:
            name = binding.role_name
            if binding.role_kind == "ClusterRole" and name.startswith(SYSTEM):
                self.cluster_roles.setdefault(name, BUILT_IN["cluster-admin"])
        _aggregate(self.cluster_roles)

    def grants(self, subject: Subject) -> list[Grant]:
        """Every rule ``subject`` holds, binding by binding."""
        found = []
        for binding in self.bindings:
            if not any(_applies(subject, s, binding.namespace) for s in binding.subjects):
                continue
            role = self._role(binding)
            if role is None:
                continue
            where = f"RoleBinding/{binding.namespace}/{binding.name}"
            if binding.namespace is None:
                where = f"ClusterRoleBinding/{binding.name}"
            role_ref = f"ClusterRole/{binding.role_name}"
            if binding.role_kind == "Role":
                role_ref = f"Role/{binding.namespace}/{binding.role_name}"
            found += [Grant(binding.namespace, rule, where, role_ref) for rule in role.rules]
        return found

    def can(
        self,
        subject: Subject,
        verb: str,
        group: str,
        resource: str,
        namespace: str | None,
        *,
        name: str | None = None,
        subresource: str | None = None,
    ) -> bool:
        """Whether ``subject`` may ``verb`` the ``resource`` of API ``group`` in ``namespace``
        (None: cluster-scoped, or across all namespaces), optionally one ``name``d object and
        its ``subresource``."""
        asked = f"{resource}/{subresource}" if subresource else resource
        return any(
            (grant.namespace is None or grant.namespace == namespace)
            and grant.rule.allows(verb, group, asked, name)
            for grant in self.grants(subject)
        )

    def bound_later(self, role: str, subject: Subject) -> Permissions:
        """These permissions with ``subject`` bound to the cluster role ``role`` everywhere, as
        a cluster role binding made later would bind it (the roles are shared, not copied)."""
        later = object.__new__(Permissions)
        later.roles = self.roles
        later.cluster_roles = self.cluster_roles
        later.bindings = [
            *self.bindings,
            _Binding(None, "made-later", "ClusterRole", role, (_subject_of(subject),)),
        ]
        return later

    def _add_role(self, obj: Mapping[str, object]) -> None:
        name, namespace, role = _parse_role(obj)
        if obj["kind"] == "ClusterRole":
            if name in self.cluster_roles:
                raise ObjectError(f"ClusterRole {name} is declared twice")
            self.cluster_roles[name] = role
        else:
            if (namespace, name) in self.roles:
                raise ObjectError(f"Role {namespace}/{name} is declared twice")
            self.roles[namespace, name] = role

    def _role(self, binding: _Binding) -> _Role | None:
        if binding.role_kind == "ClusterRole":
            return self.cluster_roles.get(binding.role_name)
        return self.roles.get((binding.namespace or "", binding.role_name))


def _parse_role(obj: Mapping[str, object]) -> tuple[str, str, _Role]:
    """A ``Role`` or ``ClusterRole`` object's name, namespace and meaning."""
    name, namespace, labels = metadata(obj)
    namespaced = obj["kind"] == "Role"
    rules = _rules(obj.get("rules"), f"{obj['kind']} {name}", namespaced=namespaced)
    aggregation = None
    if obj["kind"] == "ClusterRole":
        aggregation = _aggregation(obj.get("aggregationRule"), f"ClusterRole {name}")
    return name, namespace, _Role(rules, labels, aggregation)


def _merged(declared: _Role, default: _Role) -> _Role:
    """A built-in cluster role that an object also declares: the declared rules, labels and
    selectors beside the default ones (the API server restores the defaults when it starts,
    keeping what was added; declared rules are kept through aggregation)."""
    rules = declared.rules + tuple(r for r in default.rules if r not in declared.rules)
    selectors = (*(declared.aggregation or ()), *(default.aggregation or ()))
    aggregated = declared.aggregation is not None or default.aggregation is not None
    return _Role(
        rules,
        {**declared.labels, **default.labels},
        selectors if aggregated else None,
        kept=declared.rules if aggregated else (),
    )


def _subject_of(subject: Subject) -> tuple[str, str, str | None]:
    """``subject`` as a binding names it."""
    if subject.kind == "ServiceAccount":
        return subject.kind, subject.name, subject.namespace
    return subject.kind, subject.name, None


def _has(values: Sequence[str], wanted: str) -> bool:
    return ALL in values or wanted in values


def _resource_matches(resources: Sequence[str], asked: str) -> bool:
    """The authorizer's ResourceMatches: ``*``, the exact ``resource[/subresource]``, or
    ``*/subresource`` for a subresource."""
    _resource, _, subresource = asked.partition("/")
    for resource in resources:
        if resource in (ALL, asked):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def _applies(subject: Subject, bound: tuple[str, str, str | None], namespace: str | None) -> bool:
    kind, name, bound_namespace = bound
    if kind == "User":
        return subject.user == name
    if kind == "Group":
        return name in subject.member_of
    return (
        subject.kind == "ServiceAccount"
        and subject.name == name
        and subject.namespace == (bound_namespace or namespace)
    )


def _aggregate(roles: dict[str, _Role]) -> None:
    """Give aggregated cluster roles the rules of the roles they select, to a fixed point."""
    for _round in range(len(roles) + 1):
        changed = False
        for name, role in roles.items():
            if role.aggregation is None:
                continue
            rules: list[PolicyRule] = list(role.kept)
            for other_name, other in sorted(roles.items()):
                if other_name != name and any(s.matches(other.labels) for s in role.aggregation):
                    rules += [rule for rule in other.rules if rule not in rules]
            if tuple(rules) != role.rules:
                roles[name] = _Role(tuple(rules), role.labels, role.aggregation, role.kept)
                changed = True
        if not changed:
            return


def _rules(value: object, where: str, *, namespaced: bool) -> tuple[PolicyRule, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ObjectError(f"{where}: rules must be a list")
    return tuple(
        _rule(rule, f"{where}: rules[{i}]", namespaced=namespaced) for i, rule in enumerate(value)
    )


def _rule(value: object, where: str, *, namespaced: bool) -> PolicyRule:
    """One rule, refused as the API server's ``ValidatePolicyRule`` refuses it: without verbs;
    with ``nonResourceURLs`` in a Role or beside groups, resources or names; or, a resource
    rule, without ``apiGroups`` or ``resources`` (a rule the server refuses takes its whole
    role with it, so it is no rule that merely grants nothing)."""
    if not isinstance(value, dict):
        raise ObjectError(f"{where}: must be an object")
    fields = {}
    for key in ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"):
        items = value.get(key) or []
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ObjectError(f"{where}.{key}: must be a list of strings")
        fields[key] = tuple(items)
    if not fields["verbs"]:
        raise ObjectError(f"{where}.verbs: at least one verb is required")
    if fields["nonResourceURLs"]:
        if namespaced:
            raise ObjectError(f"{where}.nonResourceURLs: a Role's rules cannot have them")
        if fields["apiGroups"] or fields["resources"] or fields["resourceNames"]:
            raise ObjectError(f"{where}: a rule has resources or nonResourceURLs, not both")
    elif not fields["apiGroups"]:
        raise ObjectError(f"{where}.apiGroups: a resource rule needs at least one ('' is core)")
    elif not fields["resources"]:
        raise ObjectError(f"{where}.resources: a resource rule needs at least one")
    return PolicyRule(
        verbs=fields["verbs"],
        api_groups=fields["apiGroups"],
        resources=fields["resources"],
        resource_names=fields["resourceNames"],
        non_resource_urls=fields["nonResourceURLs"],
    )


def _aggregation(value: object, where: str) -> tuple[Selector, ...] | None:
    if value is None:
        return None
    selectors = value.get("clusterRoleSelectors") if isinstance(value, dict) else None
    if not isinstance(selectors, list) or not selectors:
        raise ObjectError(f"{where}: aggregationRule.clusterRoleSelectors must list a selector")
    return tuple(
        parse_selector(s, f"{where}: aggregationRule.clusterRoleSelectors[{i}]")
        for i, s in enumerate(selectors)
    )


def _binding(obj: Mapping[str, object]) -> _Binding:
    name, namespace, _labels = metadata(obj)
    cluster = obj["kind"] == "ClusterRoleBinding"
    where = f"{obj['kind']} {name if cluster else f'{namespace}/{name}'}"
    ref = obj.get("roleRef")
    if not isinstance(ref, dict) or ref.get("apiGroup") != RBAC:
        raise ObjectError(f"{where}: roleRef.apiGroup must be {RBAC}")
    kind, role = ref.get("kind"), ref.get("name")
    allowed = ("ClusterRole",) if cluster else ("Role", "ClusterRole")
    if kind not in allowed or not isinstance(role, str) or not role:
        raise ObjectError(f"{where}: roleRef must name a {' or '.join(allowed)}")
    problem = path_segment_problem(role)
    if problem is not None:
        raise ObjectError(f"{where}: roleRef.name: {problem}")
    listed = obj.get("subjects") or []
    if not isinstance(listed, list):
        raise ObjectError(f"{where}: subjects must be a list")
    subjects = []
    for index, subject in enumerate(listed):
        subjects.append(_subject(subject, f"{where}: subjects[{index}]", cluster))
    return _Binding(None if cluster else namespace, name, str(kind), role, tuple(subjects))


def _subject(value: object, where: str, cluster: bool) -> tuple[str, str, str | None]:
    if not isinstance(value, dict):
        raise ObjectError(f"{where}: must be an object")
    kind, name, namespace = value.get("kind"), value.get("name"), value.get("namespace")
    if kind not in SUBJECT_KINDS or not isinstance(name, str) or not name:
        raise ObjectError(f"{where}: needs a kind (User, Group, ServiceAccount) and a name")
    wanted = "" if kind == "ServiceAccount" else RBAC
    group = value.get("apiGroup") or wanted  # the API server's default when it is empty
    if group != wanted:
        text = wanted or 'empty ("")'
        raise ObjectError(f"{where}: apiGroup {str(group)[:80]!r} of a {kind} must be {text}")
    if kind == "ServiceAccount":
        problem = dns_subdomain_problem(name)
        if problem is not None:
            raise ObjectError(f"{where}: name: {problem}")
    if kind == "ServiceAccount" and cluster and not namespace:
        raise ObjectError(f"{where}: a service account needs a namespace here")
    return str(kind), name, namespace if isinstance(namespace, str) and namespace else None


def describe(grant: Grant) -> str:
    """One line for a grant: where, verbs, resources, names, and through what."""
    rule = grant.rule
    groups = ",".join(g or '""' for g in rule.api_groups)
    text = (
        f"{grant.namespace or 'cluster-wide'}: {','.join(rule.verbs)} "
        f"{','.join(rule.resources or rule.non_resource_urls)} (groups {groups})"
    )
    if rule.resource_names:
        text += f" named {','.join(rule.resource_names)}"
    return f"{text} via {grant.binding} -> {grant.role}"


BUILT_IN: Mapping[str, _Role] = {name: role for name, _ns, role in map(_parse_role, CLUSTER_ROLES)}
"""The cluster roles every cluster has (:mod:`.builtin`), by name."""
