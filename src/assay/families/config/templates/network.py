"""NetworkPolicy templates about who: pod and namespace selectors, default deny, isolation."""

from __future__ import annotations

import random

from assay.families.config.templates._kit import (
    APPS,
    Obj,
    Problem,
    Reading,
    Template,
    four_namespaces,
    netpol,
    peer,
    ports,
    reach,
    text,
    typo,
)


def _db_only_from_client(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = four_namespaces(rng)
    db_app = rng.choice(["postgres", "mysql", "redis"])
    port_name, port, _protocol = APPS[db_app][0]
    client = rng.choice(["api", "worker"])
    clients = built.app(app_ns, client, rng.randint(1, 3))
    built.app(app_ns, "web")
    dbs = built.app(data_ns, db_app)
    built.app(data_ns, "redis" if db_app != "redis" else "mysql")
    built.app(web_ns, "web", 2)
    decoy = built.app(web_ns, client)  # same app label, another namespace
    built.app("monitoring", "prometheus")
    others = built.everyone_but(*dbs)
    other_ports = [name for name, _n, _p in APPS[db_app][1:]]
    open_rest = [{"ports": ports(*other_ports)}] if other_ports else []

    def policy(from_: list[Obj], port_value: int | str = port, sel: str = db_app) -> Obj:
        rules = [{"from": from_, "ports": ports(port_value)}, *open_rest]
        return netpol(
            data_ns, f"{db_app}-ingress", {"app": sel}, policyTypes=["Ingress"], ingress=rules
        )

    and_peer = [peer(app_ns, app=client)]
    expected = {
        "reachability": [
            reach("*", dbs, False, port=port, name=f"nothing else reaches {db_app} on {port}"),
            reach(clients, dbs, True, port=port, name=f"the {client} pods reach {db_app}"),
            reach("*", others, True, name="all other traffic still flows"),
            *(
                reach("*", dbs, True, port=number, name=f"{db_app}'s {name} port stays open")
                for name, number, _p in APPS[db_app][1:]
            ),
        ]
    }
    any_ns = {**expected}
    any_ns["reachability"] = [
        expected["reachability"][0],
        reach([*clients, *decoy], dbs, True, port=port, name=f"app={client} pods reach {db_app}"),
        *expected["reachability"][2:],
    ]
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"Only the pods labelled `app: {client}` in the namespace `{app_ns}` may connect to "
            f"the {db_app} pods of the namespace `{data_ns}` on port {port} ({port_name}). No "
            f"other pod may connect to them on {port}, including pods labelled `app: {client}` "
            f"in other namespaces. All other traffic in the cluster must keep flowing as today.",
            f"Nur die Pods mit dem Label `app: {client}` im Namespace `{app_ns}` dürfen die "
            f"{db_app}-Pods im Namespace `{data_ns}` auf Port {port} ({port_name}) erreichen. "
            f"Kein anderer Pod darf sie auf {port} erreichen, auch keine Pods mit "
            f"`app: {client}` in anderen Namespaces. Aller übrige Verkehr im Cluster muss wie "
            "bisher funktionieren.",
            f"Seuls les pods étiquetés `app: {client}` du namespace `{app_ns}` peuvent se "
            f"connecter aux pods {db_app} du namespace `{data_ns}` sur le port {port} "
            f"({port_name}). Aucun autre pod ne doit les joindre sur {port}, y compris les "
            f"pods `app: {client}` d'autres namespaces. Tout le reste du trafic du cluster doit "
            "continuer comme aujourd'hui.",
        ),
        terse=text(
            f"{data_ns}/{db_app}:{port} <- only {app_ns}/app={client}. rest unchanged.",
            f"{data_ns}/{db_app}:{port} <- nur {app_ns}/app={client}. Rest unverändert.",
            f"{data_ns}/{db_app}:{port} <- uniquement {app_ns}/app={client}. le reste inchangé.",
        ),
        vague=text(
            f"Lock down {db_app}: only the {client} should be able to talk to it on {port}. "
            "Don't break anything else.",
            f"Bitte {db_app} absichern: nur der {client}-Service soll auf {port} damit reden "
            "dürfen. Sonst nichts kaputt machen.",
            f"Verrouiller {db_app} : seul le service {client} doit pouvoir lui parler sur {port}. "
            "Sans rien casser d'autre.",
        ),
        readings=(
            Reading(
                "any-namespace",
                any_ns,
                [
                    policy(
                        [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": client}}}]
                    )
                ],
            ),
        ),
        expected=expected,
        reference=[policy(and_peer)],
        bad={
            "allow-all": [policy([])],
            "missing-namespace-selector": [policy([peer(app=client)])],
            "or-instead-of-and": [policy([peer(app_ns), peer(app=client)])],
            "selector-typo": [policy(and_peer, sel=typo(db_app, rng))],
            "wrong-port": [policy(and_peer, port_value=port + 1)],
        },
        tags=("networkpolicy", "ingress", db_app),
    )


def _default_deny_namespace(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = four_namespaces(rng)
    built.app(app_ns, "api", 2)
    built.app(app_ns, "worker")
    built.app(data_ns, "postgres")
    built.app(web_ns, "web", 2)
    built.app("monitoring", "prometheus")
    target = rng.choice([app_ns, data_ns])
    inside = f"{target}/*"
    outside = [ref for ref in built.everyone_but() if not ref.startswith(f"{target}/")]
    deny = netpol(target, "default-deny-ingress", None, policyTypes=["Ingress"])
    same_ns = netpol(
        target,
        "deny-from-other-namespaces",
        None,
        policyTypes=["Ingress"],
        ingress=[{"from": [{"podSelector": {}}]}],
    )
    expected = {
        "reachability": [
            reach("*", inside, False, name=f"nothing reaches the pods of {target}"),
            reach("*", outside, True, name="other namespaces are unaffected"),
            reach(inside, outside, True, name=f"the pods of {target} still reach out"),
        ]
    }
    within = {
        "reachability": [
            reach("*", inside, False, name=f"nothing outside reaches the pods of {target}"),
            reach(inside, inside, True, name=f"the pods of {target} reach each other"),
            *expected["reachability"][1:],
        ]
    }
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"Deny all incoming connections to every pod of the namespace `{target}`, from "
            f"anywhere, including from other pods of `{target}`. Outgoing traffic from "
            f"`{target}` and all traffic of other namespaces must not change.",
            f"Alle eingehenden Verbindungen zu allen Pods im Namespace `{target}` verbieten, "
            f"von überall, auch von anderen Pods in `{target}`. Ausgehender Verkehr aus "
            f"`{target}` und der Verkehr anderer Namespaces darf sich nicht ändern.",
            f"Refuser toute connexion entrante vers tous les pods du namespace `{target}`, d'où "
            f"qu'elle vienne, y compris des autres pods de `{target}`. Le trafic sortant de "
            f"`{target}` et tout le trafic des autres namespaces ne changent pas.",
        ),
        terse=text(
            f"default-deny ingress for ns {target}. egress + other ns untouched.",
            f"default-deny Ingress für ns {target}. Egress + andere ns unverändert.",
            f"default-deny en entrée pour le ns {target}. egress + autres ns inchangés.",
        ),
        vague=text(
            f"Nobody should be able to get into {target} anymore. Please close it off.",
            f"Niemand soll mehr in {target} hineinkommen. Bitte dichtmachen.",
            f"Plus personne ne doit pouvoir entrer dans {target}. Fermez-le, s'il vous plaît.",
        ),
        # the pods of a namespace of one pod have no one to reach: a requirement that they
        # reach each other would decide no connection
        readings=(Reading("same-namespace-allowed", within, [same_ns]),)
        if target == app_ns
        else (),
        expected=expected,
        reference=[deny],
        bad={
            "allow-all": [netpol(target, "allow", None, policyTypes=["Ingress"], ingress=[{}])],
            "wrong-namespace": [
                netpol("default", "default-deny-ingress", None, policyTypes=["Ingress"])
            ],
            "selector-typo": [
                netpol(
                    target,
                    "default-deny-ingress",
                    {"app": typo("api", rng)},
                    policyTypes=["Ingress"],
                )
            ],
            "denies-egress-too": [
                netpol(target, "default-deny", None, policyTypes=["Ingress", "Egress"])
            ],
        },
        tags=("networkpolicy", "default-deny"),
    )


def _allow_scrape(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = four_namespaces(rng)
    built.namespace("sandbox", team="experiments")
    targets = built.app(app_ns, "api", 2) + built.app(app_ns, "worker")
    built.app(app_ns, "web")
    built.app(data_ns, "postgres")
    built.app(web_ns, "web")
    prometheus = built.app("monitoring", "prometheus")
    built.app("monitoring", "web")  # dashboards: in monitoring, but not Prometheus
    built.app("sandbox", "prometheus")
    built.add(netpol(app_ns, "default-deny-ingress", None, policyTypes=["Ingress"]))
    numbers = {ref: 9090 if "/api-" in ref else 9100 for ref in targets}

    def policy(from_: list[Obj], port: str = "metrics") -> Obj:
        return netpol(
            app_ns,
            "allow-prometheus-scrape",
            None,
            policyTypes=["Ingress"],
            ingress=[{"from": from_, "ports": ports(port)}],
        )

    scraped = [
        reach(prometheus, ref, True, port=number, name=f"prometheus scrapes {ref}")
        for ref, number in sorted(numbers.items())
    ]
    expected = {
        "reachability": [
            reach("*", f"{app_ns}/*", False, name=f"{app_ns} stays closed"),
            *scraped,
            reach(
                "*",
                [r for r in built.everyone_but() if not r.startswith(f"{app_ns}/")],
                True,
                name="other namespaces are unaffected",
            ),
        ]
    }
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"The namespace `{app_ns}` denies all ingress (policy `default-deny-ingress`). Let "
            "the Prometheus pods of the namespace `monitoring` (`app: prometheus`) scrape every "
            f"pod of `{app_ns}` on its container port named `metrics`. Nothing else may reach "
            f"`{app_ns}`: no other pod of `monitoring`, not the Prometheus of the `sandbox` "
            "namespace, and no other port.",
            f"Der Namespace `{app_ns}` verbietet jeden Ingress (Policy `default-deny-ingress`). "
            "Die Prometheus-Pods im Namespace `monitoring` (`app: prometheus`) sollen alle Pods "
            f"in `{app_ns}` auf dem Container-Port `metrics` scrapen dürfen. Sonst darf nichts "
            f"`{app_ns}` erreichen: kein anderer Pod aus `monitoring`, nicht der Prometheus im "
            "Namespace `sandbox`, kein anderer Port.",
            f"Le namespace `{app_ns}` refuse tout trafic entrant (policy `default-deny-ingress`). "
            "Permettre aux pods Prometheus du namespace `monitoring` (`app: prometheus`) de "
            f"collecter chaque pod de `{app_ns}` sur son port de conteneur nommé `metrics`. Rien "
            f"d'autre ne doit joindre `{app_ns}` : aucun autre pod de `monitoring`, ni le "
            "Prometheus du namespace `sandbox`, ni un autre port.",
        ),
        terse=text(
            f"allow monitoring/prometheus -> {app_ns}/* port 'metrics'. keep default-deny.",
            f"monitoring/prometheus -> {app_ns}/* Port 'metrics' erlauben. default-deny bleibt.",
            f"autoriser monitoring/prometheus -> {app_ns}/* port 'metrics'. garder default-deny.",
        ),
        expected=expected,
        reference=[policy([peer("monitoring", app="prometheus")])],
        bad={
            "allow-all": [
                netpol(
                    app_ns, "allow-prometheus-scrape", None, policyTypes=["Ingress"], ingress=[{}]
                )
            ],
            "missing-namespace-selector": [policy([peer(app="prometheus")])],
            "any-namespace": [
                policy(
                    [
                        {
                            "namespaceSelector": {},
                            "podSelector": {"matchLabels": {"app": "prometheus"}},
                        }
                    ]
                )
            ],
            "wrong-port-name": [policy([peer("monitoring", app="prometheus")], port="metric")],
        },
        tags=("networkpolicy", "ingress", "named-ports", "monitoring"),
    )


def _tenant_isolation(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = four_namespaces(rng)
    built.app(app_ns, "api", 2)
    built.app(app_ns, "worker")
    built.app(app_ns, "redis")
    built.app(data_ns, "postgres")
    built.app(web_ns, "web")
    built.app(web_ns, "api")
    built.app("monitoring", "prometheus")
    inside = f"{app_ns}/*"
    outside = [ref for ref in built.everyone_but() if not ref.startswith(f"{app_ns}/")]

    def policy(from_: list[Obj]) -> Obj:
        return netpol(
            app_ns, "same-namespace-only", None, policyTypes=["Ingress"], ingress=[{"from": from_}]
        )

    expected = {
        "reachability": [
            reach(outside, inside, False, name=f"other namespaces cannot reach {app_ns}"),
            reach(inside, inside, True, name=f"the pods of {app_ns} reach each other"),
            reach("*", outside, True, name="other namespaces are unaffected"),
        ]
    }
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"Isolate the tenant namespace `{app_ns}`: its pods accept connections only from "
            f"pods of `{app_ns}` itself, on any port. Pods of `{app_ns}` keep reaching "
            "everything they reach today, and other namespaces are not changed.",
            f"Den Mandanten-Namespace `{app_ns}` isolieren: seine Pods nehmen nur Verbindungen "
            f"von Pods aus `{app_ns}` selbst an, auf jedem Port. Die Pods von `{app_ns}` "
            "erreichen weiter alles wie bisher, andere Namespaces bleiben unverändert.",
            f"Isoler le namespace client `{app_ns}` : ses pods n'acceptent de connexions que des "
            f"pods de `{app_ns}` lui-même, sur tout port. Les pods de `{app_ns}` joignent "
            "toujours ce qu'ils joignent aujourd'hui, et les autres namespaces ne changent pas.",
        ),
        terse=text(
            f"{app_ns}: ingress only from same ns.",
            f"{app_ns}: Ingress nur aus demselben ns.",
            f"{app_ns} : entrée uniquement depuis le même ns.",
        ),
        expected=expected,
        reference=[policy([{"podSelector": {}}])],
        bad={
            "allow-all": [policy([])],
            "any-namespace": [policy([{"namespaceSelector": {}}])],
            "selector-typo": [
                policy([{"podSelector": {"matchLabels": {"app": typo("api", rng)}}}])
            ],
            "one-app-only": [policy([{"podSelector": {"matchLabels": {"app": "api"}}}])],
        },
        tags=("networkpolicy", "multi-tenant"),
    )


TEMPLATES = (
    Template("netpol-db-only-from-client", "networkpolicy", "medium", _db_only_from_client),
    Template("netpol-default-deny-namespace", "networkpolicy", "easy", _default_deny_namespace),
    Template("netpol-allow-scrape", "networkpolicy", "medium", _allow_scrape),
    Template("netpol-tenant-isolation", "networkpolicy", "easy", _tenant_isolation),
)
