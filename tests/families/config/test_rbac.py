"""RBAC effective permissions, rule by rule, as the Kubernetes RBAC documentation
(reference/access-authn-authz/rbac) and the authorizer's matching rules state them."""

from __future__ import annotations

import pytest

from assay.families.config.builtin import RBAC
from assay.families.config.rbac import Permissions, Subject, describe
from assay.families.config.selectors import ObjectError
from tests.families.config.kube import Obj, binding, cluster_role, role, rule

ALICE = Subject.parse("User:alice")
READER = Subject.parse("ServiceAccount:shop/reader")
CM_READER = rule("get list watch", "configmaps")


def perms(*objects: Obj) -> Permissions:
    return Permissions(objects)


def test_a_role_binding_grants_its_role_in_its_namespace_only() -> None:
    p = perms(role("shop/cm", CM_READER), binding("shop/cm", "Role:cm", "User:alice"))
    assert p.can(ALICE, "get", "", "configmaps", "shop")
    assert not p.can(ALICE, "get", "", "configmaps", "ops")
    assert not p.can(ALICE, "list", "", "configmaps", None)  # across all namespaces
    assert not p.can(ALICE, "delete", "", "configmaps", "shop")
    assert not p.can(ALICE, "get", "", "secrets", "shop")
    assert not p.can(Subject.parse("User:bob"), "get", "", "configmaps", "shop")


def test_a_role_binding_of_a_cluster_role_grants_it_in_the_bindings_namespace_only() -> None:
    """ "A RoleBinding can also reference a ClusterRole to grant the permissions defined in that
    ClusterRole to resources inside the RoleBinding's namespace"."""
    p = perms(cluster_role("cm", CM_READER), binding("shop/cm", "ClusterRole:cm", "User:alice"))
    assert p.can(ALICE, "get", "", "configmaps", "shop")
    assert not p.can(ALICE, "get", "", "configmaps", "ops")
    assert not p.can(ALICE, "get", "", "configmaps", None)


def test_a_cluster_role_binding_grants_everywhere_and_on_cluster_scoped_resources() -> None:
    p = perms(
        cluster_role("reader", rule("get list", "configmaps nodes")),
        binding("reader", "ClusterRole:reader", "User:alice"),
    )
    assert p.can(ALICE, "get", "", "configmaps", "shop")
    assert p.can(ALICE, "get", "", "configmaps", "ops")
    assert p.can(ALICE, "list", "", "configmaps", None)
    assert p.can(ALICE, "get", "", "nodes", None)


def test_a_role_binding_refers_to_a_role_of_its_own_namespace() -> None:
    p = perms(role("ops/cm", CM_READER), binding("shop/cm", "Role:cm", "User:alice"))
    assert not p.can(ALICE, "get", "", "configmaps", "shop")
    assert not p.can(ALICE, "get", "", "configmaps", "ops")


def test_a_binding_to_a_missing_role_grants_nothing() -> None:
    p = perms(binding("shop/cm", "Role:missing", "User:alice"))
    assert p.grants(ALICE) == []


def test_wildcards_match_every_verb_group_and_resource() -> None:
    p = perms(
        role("shop/all", {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}),
        binding("shop/all", "Role:all", "User:alice"),
    )
    assert p.can(ALICE, "delete", "apps", "deployments", "shop")
    assert p.can(ALICE, "escalate", "rbac.authorization.k8s.io", "roles", "shop")
    assert p.can(ALICE, "get", "", "pods", "shop", subresource="log")
    assert not p.can(ALICE, "get", "", "pods", "ops")


def test_wildcard_verbs_alone() -> None:
    p = perms(role("shop/cm", rule("*", "configmaps")), binding("shop/cm", "Role:cm", "User:alice"))
    assert p.can(ALICE, "delete", "", "configmaps", "shop")
    assert not p.can(ALICE, "get", "", "secrets", "shop")


def test_api_groups_must_match() -> None:
    p = perms(
        role("shop/deploy", rule("get", "deployments", groups="core")),
        binding("shop/deploy", "Role:deploy", "User:alice"),
    )
    assert not p.can(ALICE, "get", "apps", "deployments", "shop")
    assert p.can(ALICE, "get", "", "deployments", "shop")


def test_resource_names_restrict_requests_by_name_and_never_match_unnamed_ones() -> None:
    """ "you cannot restrict create or deletecollection requests by their resource name" and a
    list without a name is not matched by a rule with resourceNames."""
    p = perms(
        role("shop/one", rule("get list update", "configmaps", names="app-config")),
        binding("shop/one", "Role:one", "User:alice"),
    )
    assert p.can(ALICE, "get", "", "configmaps", "shop", name="app-config")
    assert not p.can(ALICE, "get", "", "configmaps", "shop", name="other")
    assert not p.can(ALICE, "list", "", "configmaps", "shop")


def test_an_empty_resource_name_matches_requests_without_a_name() -> None:
    """The authorizer compares each of ``resourceNames`` with the request's name, which is
    ``""`` for a list, a watch of all or a create: ``[""]`` lets those through."""
    sneaky = rule("list create", "secrets")
    sneaky["resourceNames"] = ["app-key", ""]
    p = perms(role("shop/s", sneaky), binding("shop/s", "Role:s", "User:alice"))
    assert p.can(ALICE, "list", "", "secrets", "shop")
    assert p.can(ALICE, "create", "", "secrets", "shop")
    assert not p.can(ALICE, "get", "", "secrets", "shop", name="other")


@pytest.mark.parametrize(
    ("resources", "pods", "log"),
    [
        ("pods", True, False),
        ("pods/log", False, True),
        ("pods pods/log", True, True),
        ("*/log", False, True),
        ("*", True, True),
        ("pods/*", False, False),
    ],
)
def test_subresources(resources: str, pods: bool, log: bool) -> None:
    """The docs' pods/log example; ``*/log`` matches any resource's log subresource; ``*``
    everything; ``pods/*`` is no wildcard."""
    p = perms(role("shop/r", rule("get", resources)), binding("shop/r", "Role:r", "User:alice"))
    assert p.can(ALICE, "get", "", "pods", "shop") is pods
    assert p.can(ALICE, "get", "", "pods", "shop", subresource="log") is log


def test_a_role_bindings_service_account_without_namespace_is_in_the_bindings_namespace() -> None:
    p = perms(role("shop/cm", CM_READER), binding("shop/cm", "Role:cm", "ServiceAccount:reader"))
    assert p.can(READER, "get", "", "configmaps", "shop")
    other = Subject.parse("ServiceAccount:ops/reader")
    assert not p.can(other, "get", "", "configmaps", "shop")


def test_a_service_account_is_a_user_and_a_member_of_its_groups() -> None:
    p = perms(
        cluster_role("cm", CM_READER),
        binding("shop/as-user", "ClusterRole:cm", "User:system:serviceaccount:shop:reader"),
        binding("ops/all-sa", "ClusterRole:cm", "Group:system:serviceaccounts:shop"),
        binding("dev/everyone", "ClusterRole:cm", "Group:system:authenticated"),
    )
    assert p.can(READER, "get", "", "configmaps", "shop")
    assert p.can(READER, "get", "", "configmaps", "ops")
    assert p.can(READER, "get", "", "configmaps", "dev")
    stranger = Subject.parse("ServiceAccount:ops/reader")
    assert not p.can(stranger, "get", "", "configmaps", "shop")
    assert not p.can(stranger, "get", "", "configmaps", "ops")
    assert p.can(stranger, "get", "", "configmaps", "dev")


def test_groups_grant_to_their_members() -> None:
    p = perms(role("shop/cm", CM_READER), binding("shop/cm", "Role:cm", "Group:devs"))
    assert p.can(Subject.parse("Group:devs"), "get", "", "configmaps", "shop")
    assert p.can(Subject("User", "alice", groups=("devs",)), "get", "", "configmaps", "shop")
    assert not p.can(ALICE, "get", "", "configmaps", "shop")


def test_an_aggregated_cluster_role_has_the_rules_of_the_roles_it_selects() -> None:
    """The docs' "monitoring" example: the controller fills the aggregated role's rules with
    those of the labelled roles, replacing whatever rules it had; aggregation chains."""
    aggregated = cluster_role("monitoring", rule("delete", "secrets"))
    aggregated["aggregationRule"] = {
        "clusterRoleSelectors": [
            {"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}
        ]
    }
    endpoints = cluster_role(
        "monitoring-endpoints",
        rule("get list watch", "services endpointslices"),
        labels={"rbac.example.com/aggregate-to-monitoring": "true"},
    )
    chained = cluster_role("chained", labels={"rbac.example.com/aggregate-to-monitoring": "true"})
    chained["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {"extra": "yes"}}]}
    extra = cluster_role("extra-pods", rule("get", "pods"), labels={"extra": "yes"})
    p = perms(
        aggregated,
        endpoints,
        chained,
        extra,
        binding("mon", "ClusterRole:monitoring", "User:alice"),
    )
    assert p.can(ALICE, "list", "", "services", "shop")
    assert p.can(ALICE, "get", "", "pods", "shop")
    assert not p.can(ALICE, "delete", "", "secrets", "shop")
    assert not p.can(ALICE, "get", "", "nodes", None)


AGGREGATE_TO_VIEW = {"rbac.authorization.k8s.io/aggregate-to-view": "true"}


def test_cluster_admin_exists_in_every_cluster_and_grants_everything() -> None:
    p = perms(binding("root", "ClusterRole:cluster-admin", "Group:system:authenticated"))
    for verb, group, resource, namespace in [
        ("delete", "", "nodes", None),
        ("create", "rbac.authorization.k8s.io", "clusterrolebindings", None),
        ("get", "", "secrets", "kube-system"),
    ]:
        assert p.can(READER, verb, group, resource, namespace)
    assert not p.can(Subject.parse("User:system:anonymous"), "get", "", "secrets", "shop")


def test_view_edit_and_admin_exist_with_their_default_rules() -> None:
    """``view`` reads most of a namespace but not its secrets; ``edit`` also writes, secrets
    included, but no roles or bindings; ``admin`` also manages roles and bindings."""
    p = perms(
        binding("shop/v", "ClusterRole:view", "User:viewer"),
        binding("shop/e", "ClusterRole:edit", "User:editor"),
        binding("shop/a", "ClusterRole:admin", "User:admin"),
    )
    viewer, editor, admin = (Subject("User", n) for n in ("viewer", "editor", "admin"))
    assert p.can(viewer, "list", "", "pods", "shop")
    assert p.can(viewer, "get", "apps", "deployments", "shop")
    assert p.can(viewer, "get", "", "pods", "shop", subresource="log")
    assert not p.can(viewer, "get", "", "secrets", "shop")
    assert not p.can(viewer, "delete", "", "pods", "shop")
    assert not p.can(viewer, "get", "", "pods", "ops")  # a RoleBinding: its namespace only
    assert p.can(editor, "get", "", "secrets", "shop")
    assert p.can(editor, "update", "apps", "deployments", "shop")
    assert p.can(editor, "create", "", "pods", "shop", subresource="exec")
    assert not p.can(editor, "create", "rbac.authorization.k8s.io", "rolebindings", "shop")
    assert p.can(admin, "create", "rbac.authorization.k8s.io", "rolebindings", "shop")
    assert p.can(admin, "delete", "", "secrets", "shop")
    assert not p.can(admin, "get", "", "nodes", None)


def test_a_role_labelled_to_aggregate_into_view_adds_its_rules_to_view_edit_and_admin() -> None:
    p = perms(
        cluster_role("extra", rule("get", "secrets"), labels=AGGREGATE_TO_VIEW),
        binding("shop/v", "ClusterRole:view", "User:alice"),
        binding("shop/a", "ClusterRole:admin", "User:bob"),
    )
    assert p.can(ALICE, "get", "", "secrets", "shop")
    assert p.can(Subject("User", "bob"), "get", "", "secrets", "shop")
    assert not p.can(ALICE, "list", "", "secrets", "shop")


def test_a_built_in_role_declared_again_keeps_its_default_rules() -> None:
    """The API server puts a built-in role's default rules back when it starts: declaring
    ``view`` or ``cluster-admin`` narrowly does not narrow it."""
    p = perms(
        cluster_role("view", CM_READER),
        cluster_role("cluster-admin", CM_READER),
        binding("shop/v", "ClusterRole:view", "User:alice"),
        binding("root", "ClusterRole:cluster-admin", "User:bob"),
    )
    assert p.can(ALICE, "get", "", "configmaps", "shop")
    assert p.can(ALICE, "list", "", "pods", "shop")
    assert p.can(Subject("User", "bob"), "delete", "", "nodes", None)
    widened = perms(
        cluster_role("view", rule("get", "secrets")),
        binding("shop/v", "ClusterRole:view", "User:alice"),
    )
    assert widened.can(ALICE, "get", "", "secrets", "shop")  # what was added stays


def test_a_system_cluster_role_is_taken_to_grant_everything_declared_or_not() -> None:
    p = perms(
        binding("shop/ctl", "ClusterRole:system:controller:replicaset-controller", "User:alice"),
        binding("gone", "ClusterRole:not-a-system-role", "User:bob"),
    )
    assert p.can(ALICE, "delete", "", "secrets", "shop")
    assert not p.can(ALICE, "delete", "", "secrets", "ops")
    assert p.grants(Subject("User", "bob")) == []
    declared = perms(  # the API server puts a bootstrap role's own rules back when it starts
        cluster_role("system:kube-controller-manager", CM_READER),
        binding("reader", "ClusterRole:system:kube-controller-manager", "User:alice"),
    )
    assert declared.can(ALICE, "get", "", "configmaps", "shop")
    assert declared.can(ALICE, "get", "", "secrets", "shop")


def test_grants_list_every_rule_with_its_binding() -> None:
    p = perms(
        role("shop/cm", CM_READER),
        binding("shop/cm", "Role:cm", "User:alice"),
        cluster_role("nodes", rule("get", "nodes")),
        binding("nodes", "ClusterRole:nodes", "User:alice"),
    )
    lines = sorted(describe(g) for g in p.grants(ALICE))
    assert lines == [
        'cluster-wide: get nodes (groups "") via ClusterRoleBinding/nodes -> ClusterRole/nodes',
        'shop: get,list,watch configmaps (groups "") via RoleBinding/shop/cm -> Role/shop/cm',
    ]


def _with_subject(obj: Obj, kind: str, name: str, group: str | None) -> Obj:
    subject = {"kind": kind, "name": name, "namespace": "shop"}
    if group is not None:
        subject["apiGroup"] = group
    return {**obj, "subjects": [subject]}


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (binding("crb", "Role:cm", "User:alice"), "roleRef must name a ClusterRole"),
        ({**binding("shop/b", "Role:cm"), "roleRef": {"kind": "Role", "name": "x"}}, "apiGroup"),
        (binding("crb", "ClusterRole:cm", "ServiceAccount:reader"), "needs a namespace"),
        (role("shop/r", {"apiGroups": [""], "resources": ["pods"], "verbs": []}), "verb"),
        # ValidatePolicyRule: a rule the API server refuses takes its whole role with it, so a
        # role holding one beside the rules a task asks for grants nothing in a real cluster.
        (
            role("shop/r", rule("get", "configmaps"), {"resources": ["secrets"], "verbs": ["get"]}),
            "Role r: rules\\[1\\].apiGroups: a resource rule needs at least one",
        ),
        (
            cluster_role("r", {"apiGroups": [""], "verbs": ["get"]}),
            "ClusterRole r: rules\\[0\\].resources: a resource rule needs at least one",
        ),
        (
            role("shop/r", {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}),
            "rules\\[0\\].nonResourceURLs: a Role's rules cannot have them",
        ),
        (
            cluster_role(
                "r", {"nonResourceURLs": ["/healthz"], "apiGroups": [""], "verbs": ["get"]}
            ),
            "a rule has resources or nonResourceURLs, not both",
        ),
        (
            {**cluster_role("r"), "aggregationRule": {"clusterRoleSelectors": []}},
            "clusterRoleSelectors must list a selector",
        ),
        (
            _with_subject(binding("shop/b", "Role:cm"), "ServiceAccount", "reader", RBAC),
            "RoleBinding shop/b: subjects\\[0\\]: apiGroup 'rbac.authorization.k8s.io' of a "
            "ServiceAccount must be empty",
        ),
        (
            _with_subject(binding("b", "ClusterRole:cm"), "User", "alice", "example.com"),
            "apiGroup 'example.com' of a User must be rbac.authorization.k8s.io",
        ),
        (_with_subject(binding("b", "ClusterRole:cm"), "Group", "devs", "v1"), "of a Group"),
        (
            _with_subject(binding("shop/b", "Role:cm"), "ServiceAccount", "Reader_1", ""),
            "subjects\\[0\\]: name: 'Reader_1' is not a DNS-1123 subdomain",
        ),
        (binding("shop/b", "Role:read/db"), "roleRef.name: 'read/db' is not a path segment"),
        (binding("b", "ClusterRole:a%2Fb"), "roleRef.name: 'a%2Fb' is not a path segment"),
    ],
)
def test_objects_the_api_server_refuses_are_refused(obj: Obj, message: str) -> None:
    with pytest.raises(ObjectError, match=message):
        Permissions([obj])


def test_a_users_or_groups_empty_api_group_is_defaulted_as_the_api_server_does() -> None:
    p = perms(
        role("shop/cm", CM_READER),
        _with_subject(binding("shop/u", "Role:cm"), "User", "alice", None),
        _with_subject(binding("shop/g", "Role:cm"), "Group", "devs", ""),
        _with_subject(binding("shop/sa", "Role:cm"), "ServiceAccount", "reader", ""),
    )
    assert p.can(ALICE, "get", "", "configmaps", "shop")
    assert p.can(Subject("Group", "devs"), "get", "", "configmaps", "shop")
    assert p.can(Subject.parse("ServiceAccount:shop/reader"), "get", "", "configmaps", "shop")


@pytest.mark.parametrize("text", ["Robot:x", "User:", "ServiceAccount:reader", "ServiceAccount:/x"])
def test_subjects_are_parsed_strictly(text: str) -> None:
    with pytest.raises(ValueError, match="ServiceAccount"):
        Subject.parse(text)
