"""RBAC templates: what a subject may do, where, and nothing else."""

from __future__ import annotations

import random

from assay.families.config.templates._kit import (
    ClusterBuilder,
    Obj,
    Problem,
    Reading,
    Template,
    binding,
    role,
    rule,
    service_account,
    team_namespaces,
    text,
)

RBAC_KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")


def _cluster(rng: random.Random, count: int = 3) -> tuple[ClusterBuilder, list[str]]:
    built = ClusterBuilder(rng)
    names = team_namespaces(rng, count)
    for name in names:
        built.namespace(name, team=name)
        for app in rng.sample(["api", "web", "worker", "redis", "gateway"], rng.randint(1, 3)):
            built.app(name, app, rng.randint(1, 2))
        built.add(service_account(name, rng.choice(["default-runner", "ci-deployer", "backup"])))
    return built, names


def _permission(subject: str, verbs: str, resource: str, allowed: bool, **extra: object) -> Obj:
    return {
        "subject": subject,
        "verbs": verbs.split(),
        "resource": resource,
        "allowed": allowed,
        **extra,
    }


def _configmap_reader(rng: random.Random) -> Problem:
    built, (ns, other, _third) = _cluster(rng)
    account = rng.choice(["config-reloader", "app-settings", "feature-flags"])
    built.add(service_account(ns, account))
    subject = f"ServiceAccount:{ns}/{account}"
    reader = role(ns, f"{account}-read", rule("get list watch", "configmaps"))
    bound = binding(ns, f"{account}-read", f"Role:{account}-read", f"ServiceAccount:{ns}/{account}")
    expected = {
        "permissions": [
            _permission(subject, "get list watch", "configmaps", True, namespace=ns),
            _permission(subject, "get list", "configmaps", False, namespace=other),
            _permission(subject, "list", "configmaps", False),
            _permission(subject, "get", "secrets", False, namespace=ns),
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {
                        "verbs": ["get", "list", "watch"],
                        "resources": ["configmaps"],
                        "namespace": ns,
                    }
                ],
            }
        ],
    }
    with_secrets = {
        "permissions": [
            expected["permissions"][0],
            _permission(subject, "get list watch", "secrets", True, namespace=ns),
            expected["permissions"][1],
            expected["permissions"][2],
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {
                        "verbs": ["get", "list", "watch"],
                        "resources": ["configmaps", "secrets"],
                        "namespace": ns,
                    }
                ],
            }
        ],
    }
    wide = role(None, f"{account}-read", rule("get list watch", "configmaps"))
    return Problem(
        kinds=RBAC_KINDS,
        cluster=built.objects,
        precise=text(
            f"The service account `{account}` of the namespace `{ns}` must be able to get, "
            f"list and watch config maps in `{ns}`, and nothing else: no other resource, no "
            "other verb, no other namespace.",
            f"Das Service-Konto `{account}` im Namespace `{ns}` soll ConfigMaps in `{ns}` "
            "lesen können (get, list, watch), und sonst nichts: keine anderen Ressourcen, "
            "Verben oder Namespaces.",
            f"Le compte de service `{account}` du namespace `{ns}` doit pouvoir lire (get, list, "
            f"watch) les config maps de `{ns}`, et rien d'autre : aucune autre ressource, aucun "
            "autre verbe, aucun autre namespace.",
        ),
        terse=text(
            f"sa {ns}/{account}: read configmaps in {ns}. least privilege.",
            f"SA {ns}/{account}: ConfigMaps in {ns} lesen. Minimale Rechte.",
            f"sa {ns}/{account} : lire les configmaps dans {ns}. moindre privilège.",
        ),
        vague=text(
            f"{account} in {ns} needs to read its configuration. Give it what it needs, no more.",
            f"{account} in {ns} muss seine Konfiguration lesen. Bitte nur das Nötigste geben.",
            f"{account} dans {ns} doit lire sa configuration. Donnez-lui le nécessaire, pas plus.",
        ),
        readings=(
            Reading(
                "configmaps-and-secrets",
                with_secrets,
                [role(ns, f"{account}-read", rule("get list watch", "configmaps secrets")), bound],
            ),
        ),
        expected=expected,
        reference=[reader, bound],
        bad={
            "wildcard-verbs": [role(ns, f"{account}-read", rule("*", "configmaps")), bound],
            "cluster-role-binding": [
                wide,
                binding(None, f"{account}-read", f"ClusterRole:{account}-read", subject),
            ],
            "binding-in-wrong-namespace": [
                role(other, f"{account}-read", rule("get list watch", "configmaps")),
                binding(other, f"{account}-read", f"Role:{account}-read", subject),
            ],
        },
        tags=("rbac", "service-account", "least-privilege"),
    )


def _pod_logs(rng: random.Random) -> Problem:
    built, (ns, other, _third) = _cluster(rng)
    group = f"oncall-{ns}"
    subject = f"Group:{group}"

    def granting(*rules: Obj, cluster: bool = False) -> list[Obj]:
        if cluster:
            return [
                role(None, "log-reader", *rules),
                binding(None, "log-reader", "ClusterRole:log-reader", subject),
            ]
        return [
            role(ns, "log-reader", *rules),
            binding(ns, "log-reader", "Role:log-reader", subject),
        ]

    rules = (rule("get list", "pods"), rule("get", "pods/log"))
    expected = {
        "permissions": [
            _permission(subject, "get list", "pods", True, namespace=ns),
            _permission(subject, "get", "pods/log", True, namespace=ns),
            _permission(subject, "get", "pods/log", False, namespace=other),
            _permission(subject, "delete", "pods", False, namespace=ns),
            _permission(subject, "create", "pods/exec", False, namespace=ns),
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {"verbs": ["get", "list"], "resources": ["pods"], "namespace": ns},
                    {"verbs": ["get"], "resources": ["pods/log"], "namespace": ns},
                ],
            }
        ],
    }
    return Problem(
        kinds=RBAC_KINDS,
        cluster=built.objects,
        precise=text(
            f"Members of the group `{group}` must be able to list and get the pods of `{ns}` "
            f"and read their logs (`pods/log`), in `{ns}` only. They may not exec into pods, "
            "delete anything, or see other namespaces.",
            f"Mitglieder der Gruppe `{group}` sollen die Pods in `{ns}` auflisten und abrufen "
            f"und ihre Logs lesen (`pods/log`), nur in `{ns}`. Kein exec, kein Löschen, keine "
            "anderen Namespaces.",
            f"Les membres du groupe `{group}` doivent pouvoir lister et lire les pods de `{ns}` et "
            f"leurs journaux (`pods/log`), dans `{ns}` seulement. Pas d'exec dans les pods, "
            "aucune suppression, aucun autre namespace.",
        ),
        terse=text(
            f"{group}: pods get/list + logs in {ns}. nothing else",
            f"{group}: Pods get/list + Logs in {ns}. Sonst nichts",
            f"{group} : pods get/list + logs dans {ns}. rien d'autre",
        ),
        expected=expected,
        reference=granting(*rules),
        bad={
            "missing-subresource": granting(rule("get list", "pods")),
            "wildcard-resources": granting(rule("get list", "*")),
            "cluster-role-binding": granting(*rules, cluster=True),
        },
        tags=("rbac", "group", "subresource"),
    )


def _named_secret(rng: random.Random) -> Problem:
    built, (ns, _other, _third) = _cluster(rng)
    account = rng.choice(["payments-api", "mailer", "exporter"])
    secret = rng.choice(["stripe-key", "smtp-credentials", "db-password"])
    built.add(service_account(ns, account))
    subject = f"ServiceAccount:{ns}/{account}"

    def granting(*rules: Obj, cluster: bool = False) -> list[Obj]:
        if cluster:
            return [
                role(None, f"read-{secret}", *rules),
                binding(None, f"read-{secret}", f"ClusterRole:read-{secret}", subject),
            ]
        return [
            role(ns, f"read-{secret}", *rules),
            binding(ns, f"read-{secret}", f"Role:read-{secret}", subject),
        ]

    expected = {
        "permissions": [
            _permission(subject, "get", "secrets", True, namespace=ns, names=[secret]),
            _permission(subject, "get", "secrets", False, namespace=ns, names=["other-secret"]),
            _permission(subject, "list watch", "secrets", False, namespace=ns),
            _permission(subject, "update delete", "secrets", False, namespace=ns, names=[secret]),
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {"verbs": ["get"], "resources": ["secrets"], "namespace": ns, "names": [secret]}
                ],
            }
        ],
    }
    return Problem(
        kinds=RBAC_KINDS,
        cluster=built.objects,
        precise=text(
            f"The service account `{ns}/{account}` must be able to read (get) the secret "
            f"`{secret}` of `{ns}`, and no other secret; it may not list, watch or change "
            "secrets, and gets nothing else.",
            f"Das Service-Konto `{ns}/{account}` soll das Secret `{secret}` in `{ns}` lesen "
            "(get) dürfen, kein anderes Secret; kein list, watch oder Ändern, sonst nichts.",
            f"Le compte de service `{ns}/{account}` doit pouvoir lire (get) le secret `{secret}` "
            f"de `{ns}`, et aucun autre secret ; il ne peut ni lister, ni surveiller, ni modifier "
            "de secrets, et n'a rien d'autre.",
        ),
        terse=text(
            f"{account}: get secret/{secret} in {ns}. only that one.",
            f"{account}: get secret/{secret} in {ns}. Nur dieses.",
            f"{account} : get secret/{secret} dans {ns}. celui-là seulement.",
        ),
        expected=expected,
        reference=granting(rule("get", "secrets", names=[secret])),
        bad={
            "missing-resource-names": granting(rule("get", "secrets")),
            "wildcard-verbs": granting(rule("*", "secrets", names=[secret])),
            "cluster-role-binding": granting(rule("get", "secrets", names=[secret]), cluster=True),
        },
        tags=("rbac", "resource-names", "secrets"),
    )


def _deployment_restarter(rng: random.Random) -> Problem:
    built, (ns, other, _third) = _cluster(rng)
    user = rng.choice(["alice", "dev-bot", "release-captain"])
    subject = f"User:{user}"

    def granting(*rules: Obj, cluster: bool = False) -> list[Obj]:
        if cluster:
            return [
                role(None, "restarter", *rules),
                binding(None, "restarter", "ClusterRole:restarter", subject),
            ]
        return [role(ns, "restarter", *rules), binding(ns, "restarter", "Role:restarter", subject)]

    expected = {
        "permissions": [
            _permission(subject, "get list patch", "deployments", True, group="apps", namespace=ns),
            _permission(subject, "patch", "deployments", False, group="apps", namespace=other),
            _permission(subject, "delete create", "deployments", False, group="apps", namespace=ns),
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {
                        "verbs": ["get", "list", "patch"],
                        "groups": ["apps"],
                        "resources": ["deployments"],
                        "namespace": ns,
                    }
                ],
            }
        ],
    }
    grant = rule("get list patch", "deployments", group="apps")
    return Problem(
        kinds=RBAC_KINDS,
        cluster=built.objects,
        precise=text(
            f"The user `{user}` must be able to restart deployments in `{ns}` with "
            "`kubectl rollout restart`: get, list and patch `deployments` of the `apps` API "
            f"group in `{ns}`. Nothing more, and nowhere else.",
            f"Der Benutzer `{user}` soll Deployments in `{ns}` mit `kubectl rollout restart` "
            "neu starten können: get, list und patch auf `deployments` der API-Gruppe `apps` "
            f"in `{ns}`. Nicht mehr, und nirgendwo sonst.",
            f"L'utilisateur `{user}` doit pouvoir redémarrer les deployments de `{ns}` avec "
            "`kubectl rollout restart` : get, list et patch sur `deployments` du groupe d'API "
            f"`apps` dans `{ns}`. Rien de plus, et nulle part ailleurs.",
        ),
        terse=text(
            f"{user} needs rollout restart in {ns}",
            f"{user} braucht rollout restart in {ns}",
            f"{user} a besoin de rollout restart dans {ns}",
        ),
        expected=expected,
        reference=granting(grant),
        bad={
            "wrong-api-group": granting(rule("get list patch", "deployments")),
            "wildcard-verbs": granting(rule("*", "deployments", group="apps")),
            "cluster-role-binding": granting(grant, cluster=True),
        },
        tags=("rbac", "user", "api-groups"),
    )


CLUSTER_RESOURCES = (
    ("nodes", ""),
    ("persistentvolumes", ""),
    ("namespaces", ""),
    ("storageclasses", "storage.k8s.io"),
    ("customresourcedefinitions", "apiextensions.k8s.io"),
    ("priorityclasses", "scheduling.k8s.io"),
)


def _cluster_reader(rng: random.Random) -> Problem:
    built, (ns, _other, _third) = _cluster(rng)
    group = rng.choice(
        ["capacity-planning", "sre-dashboards", "autoscaler-admins", "finops", "platform-audit"]
    )
    resource, api_group = rng.choice(CLUSTER_RESOURCES)
    subject = f"Group:{group}"
    reader = rule("get list watch", resource, group=api_group)
    expected = {
        "permissions": [
            _permission(subject, "get list watch", resource, True, group=api_group),
            _permission(subject, "update delete", resource, False, group=api_group),
            _permission(subject, "list", "pods", False, namespace=ns),
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {
                        "verbs": ["get", "list", "watch"],
                        "groups": [api_group],
                        "resources": [resource],
                    }
                ],
            }
        ],
    }
    name = f"{resource}-reader"
    cluster_role = role(None, name, reader)
    where = f"`{resource}`" + (f" (API group `{api_group}`)" if api_group else "")
    return Problem(
        kinds=RBAC_KINDS,
        cluster=built.objects,
        precise=text(
            f"Members of the group `{group}` must be able to get, list and watch the cluster's "
            f"{where}, a cluster-scoped resource, and nothing else.",
            f"Mitglieder der Gruppe `{group}` sollen {where} des Clusters, eine clusterweite "
            "Ressource, abrufen, auflisten und beobachten können, sonst nichts.",
            f"Les membres du groupe `{group}` doivent pouvoir lire, lister et surveiller les "
            f"{where} du cluster, une ressource de portée cluster, et rien d'autre.",
        ),
        terse=text(
            f"{group}: read-only {resource}",
            f"{group}: {resource} nur lesen",
            f"{group} : {resource} en lecture seule",
        ),
        expected=expected,
        reference=[cluster_role, binding(None, name, f"ClusterRole:{name}", subject)],
        bad={
            "role-binding-for-a-cluster-resource": [
                cluster_role,
                binding(ns, name, f"ClusterRole:{name}", subject),
            ],
            "wildcard-resources": [
                role(None, name, rule("get list watch", "*", group=api_group)),
                binding(None, name, f"ClusterRole:{name}", subject),
            ],
        },
        tags=("rbac", "cluster-scoped", resource),
    )


def _two_namespaces(rng: random.Random) -> Problem:
    built, (home, second, third) = _cluster(rng)
    account = rng.choice(["inventory-sync", "backup-agent", "cost-exporter"])
    built.add(service_account(home, account))
    subject = f"ServiceAccount:{home}/{account}"
    reader = role(None, "pod-reader", rule("get list", "pods"))

    def bound(ns: str, who: str = subject) -> Obj:
        return binding(ns, f"{account}-pods", "ClusterRole:pod-reader", who)

    expected = {
        "permissions": [
            _permission(subject, "get list", "pods", True, namespace=home),
            _permission(subject, "get list", "pods", True, namespace=second),
            _permission(subject, "get list", "pods", False, namespace=third),
            _permission(subject, "list", "pods", False),
        ],
        "only": [
            {
                "subject": subject,
                "allow": [
                    {"verbs": ["get", "list"], "resources": ["pods"], "namespace": home},
                    {"verbs": ["get", "list"], "resources": ["pods"], "namespace": second},
                ],
            }
        ],
    }
    return Problem(
        kinds=RBAC_KINDS,
        cluster=built.objects,
        precise=text(
            f"The service account `{account}` of `{home}` must be able to get and list pods in "
            f"`{home}` and in `{second}`, and in no other namespace; it gets nothing else.",
            f"Das Service-Konto `{account}` aus `{home}` soll Pods in `{home}` und in "
            f"`{second}` abrufen und auflisten können, in keinem anderen Namespace; sonst nichts.",
            f"Le compte de service `{account}` de `{home}` doit pouvoir lire et lister les pods de "
            f"`{home}` et de `{second}`, et d'aucun autre namespace ; il n'a rien d'autre.",
        ),
        terse=text(
            f"{home}/{account}: get/list pods in {home} + {second}",
            f"{home}/{account}: Pods get/list in {home} + {second}",
            f"{home}/{account} : get/list pods dans {home} + {second}",
        ),
        expected=expected,
        reference=[reader, bound(home), bound(second)],
        bad={
            "cluster-role-binding": [
                reader,
                binding(None, f"{account}-pods", "ClusterRole:pod-reader", subject),
            ],
            "one-namespace-only": [reader, bound(home)],
            "service-account-namespace-missing": [
                reader,
                bound(home, f"ServiceAccount:{account}"),
                bound(second, f"ServiceAccount:{account}"),
            ],
        },
        tags=("rbac", "service-account", "namespaces"),
    )


TEMPLATES = (
    Template("rbac-configmap-reader", "rbac", "easy", _configmap_reader),
    Template("rbac-pod-logs", "rbac", "medium", _pod_logs),
    Template("rbac-named-secret", "rbac", "medium", _named_secret),
    Template("rbac-deployment-restarter", "rbac", "medium", _deployment_restarter),
    Template("rbac-cluster-reader", "rbac", "easy", _cluster_reader),
    Template("rbac-two-namespaces", "rbac", "hard", _two_namespaces),
)
