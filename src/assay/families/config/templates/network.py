"""NetworkPolicy templates: who may reach whom, on which ports."""

from __future__ import annotations

import random

from assay.families.config.templates._kit import (
    APPS,
    ClusterBuilder,
    Obj,
    Problem,
    Reading,
    Template,
    netpol,
    peer,
    ports,
    reach,
    team_namespaces,
    text,
    typo,
)


def _base(rng: random.Random) -> tuple[ClusterBuilder, str, str, str]:
    """A cluster of an app namespace, a data namespace, a web namespace and monitoring."""
    built = ClusterBuilder(rng)
    app_ns, web_ns = team_namespaces(rng, 2)
    built.namespace(app_ns, team=app_ns)
    built.namespace("data", team="data")
    built.namespace(web_ns, team=web_ns)
    built.namespace("monitoring", team="observability")
    return built, app_ns, "data", web_ns


def _db_only_from_client(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = _base(rng)
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
        ),
        terse=text(
            f"{data_ns}/{db_app}:{port} <- only {app_ns}/app={client}. rest unchanged.",
            f"{data_ns}/{db_app}:{port} <- nur {app_ns}/app={client}. Rest unverändert.",
        ),
        vague=text(
            f"Lock down {db_app}: only the {client} should be able to talk to it on {port}. "
            "Don't break anything else.",
            f"Bitte {db_app} absichern: nur der {client} soll auf {port} damit reden dürfen. "
            "Sonst nichts kaputt machen.",
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
    built, app_ns, data_ns, web_ns = _base(rng)
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
        ),
        terse=text(
            f"default-deny ingress for ns {target}. egress + other ns untouched.",
            f"default-deny Ingress für ns {target}. Egress + andere ns unverändert.",
        ),
        vague=text(
            f"Nobody should be able to get into {target} anymore. Please close it off.",
            f"Niemand soll mehr in {target} hineinkommen. Bitte dichtmachen.",
        ),
        readings=(Reading("same-namespace-allowed", within, [same_ns]),),
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


def _egress_dns_and_db(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = _base(rng)
    built.namespace("kube-system")
    dns = [f"kube-system/coredns-{i}" for i in range(2)]
    for index, ref in enumerate(dns):
        built.add(_dns_pod(ref.split("/")[1], f"10.96.0.{10 + index}"))
    built.pods["kube-system/coredns"] = dns
    workers = built.app(app_ns, "worker", 2)
    built.app(app_ns, "api")
    dbs = built.app(data_ns, "postgres")
    built.app(data_ns, "redis")
    built.app(web_ns, "web")
    built.app("monitoring", "prometheus")
    dns_peer = [peer("kube-system", **{"k8s-app": "kube-dns"})]
    dns_ports = [*ports(53, protocol="UDP"), *ports(53)]
    db_rule = {"to": [peer(data_ns, app="postgres")], "ports": ports(5432)}

    def policy(dns_rule: Obj, types: tuple[str, ...] = ("Egress",)) -> Obj:
        key = "egress" if "Egress" in types else "ingress"
        rules = [dns_rule, db_rule]
        if key == "ingress":
            rules = [{"from": r.get("to", []), "ports": r["ports"]} for r in rules]
        return netpol(
            app_ns, "worker-egress", {"app": "worker"}, policyTypes=list(types), **{key: rules}
        )

    reference = policy({"to": dns_peer, "ports": dns_ports})
    expected = {
        "reachability": [
            reach(workers, "*", False, name="the workers reach nothing else"),
            reach(
                workers,
                dns,
                True,
                name="the workers resolve names over UDP",
                port=53,
                protocol="UDP",
            ),
            reach(workers, dns, True, name="the workers resolve names over TCP", port=53),
            reach(workers, dbs, True, name="the workers reach postgres", port=5432),
            reach(built.everyone_but(*workers), "*", True, name="other pods are unaffected"),
        ]
    }
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"The `app: worker` pods of `{app_ns}` may open connections only to the cluster DNS "
            "(the `k8s-app: kube-dns` pods of `kube-system`, port 53 over UDP and TCP) and to "
            f"the postgres pods of `{data_ns}` on 5432. Nothing else. Incoming traffic and "
            "all other pods must not change.",
            f"Die `app: worker`-Pods in `{app_ns}` dürfen Verbindungen nur zum Cluster-DNS "
            "(die `k8s-app: kube-dns`-Pods in `kube-system`, Port 53 über UDP und TCP) und zu "
            f"den Postgres-Pods in `{data_ns}` auf 5432 öffnen. Sonst nichts. Eingehender "
            "Verkehr und alle anderen Pods bleiben unverändert.",
        ),
        terse=text(
            f"egress lockdown {app_ns}/worker: dns (53 udp+tcp) + {data_ns}/postgres:5432 only",
            f"Egress-Sperre {app_ns}/worker: nur DNS (53 UDP+TCP) + {data_ns}/postgres:5432",
        ),
        expected=expected,
        reference=[reference],
        bad={
            "allow-all": [
                netpol(
                    app_ns, "worker-egress", {"app": "worker"}, policyTypes=["Egress"], egress=[{}]
                )
            ],
            "missing-udp": [policy({"to": dns_peer, "ports": ports(53)})],
            "missing-namespace-selector": [
                policy({"to": [peer(**{"k8s-app": "kube-dns"})], "ports": dns_ports})
            ],
            "ingress-instead-of-egress": [
                policy({"to": dns_peer, "ports": dns_ports}, types=("Ingress",))
            ],
        },
        tags=("networkpolicy", "egress", "dns"),
    )


def _dns_pod(name: str, ip: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "kube-system", "labels": {"k8s-app": "kube-dns"}},
        "spec": {
            "containers": [
                {
                    "name": "coredns",
                    "image": "registry.k8s.io/coredns/coredns:v1.11.1",
                    "ports": [
                        {"name": "dns", "containerPort": 53, "protocol": "UDP"},
                        {"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"},
                    ],
                }
            ]
        },
        "status": {"podIP": ip},
    }


def _allow_scrape(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = _base(rng)
    built.namespace("sandbox", team="experiments")
    targets = built.app(app_ns, "api", 2) + built.app(app_ns, "worker")
    built.app(app_ns, "web")
    built.app(data_ns, "postgres")
    built.app(web_ns, "web")
    prometheus = built.app("monitoring", "prometheus")
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
            f"`{app_ns}`: not the Prometheus of the `sandbox` namespace, and no other port.",
            f"Der Namespace `{app_ns}` verbietet jeden Ingress (Policy `default-deny-ingress`). "
            "Die Prometheus-Pods im Namespace `monitoring` (`app: prometheus`) sollen alle Pods "
            f"in `{app_ns}` auf dem Container-Port `metrics` scrapen dürfen. Sonst darf nichts "
            f"`{app_ns}` erreichen: nicht der Prometheus im Namespace `sandbox`, kein anderer "
            "Port.",
        ),
        terse=text(
            f"allow monitoring/prometheus -> {app_ns}/* port 'metrics'. keep default-deny.",
            f"monitoring/prometheus -> {app_ns}/* Port 'metrics' erlauben. default-deny bleibt.",
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
    built, app_ns, data_ns, web_ns = _base(rng)
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
        ),
        terse=text(
            f"{app_ns}: ingress only from same ns.",
            f"{app_ns}: Ingress nur aus demselben ns.",
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


def _ip_block(rng: random.Random) -> Problem:
    built, app_ns, data_ns, _web_ns = _base(rng)
    built.namespace("edge", team="network")
    second = rng.randint(16, 31)
    quarantined = rng.randint(100, 200)
    cidr, excluded = f"172.{second}.0.0/16", f"172.{second}.{quarantined}.0/24"
    gateways = built.app("edge", "gateway", ip=f"172.{second}.3.7")
    gateways += built.app("edge", "gateway", ip=f"172.{second}.40.2")
    built.app("edge", "gateway", ip=f"172.{second}.{quarantined}.9")  # quarantined
    built.app("edge", "gateway", ip=f"172.{second + 1}.3.7")  # just outside
    ledgers = built.app(data_ns, "ledger")
    built.app(app_ns, "api")
    built.app("monitoring", "prometheus")

    def policy(block: Obj) -> Obj:
        return netpol(
            data_ns,
            "ledger-from-partners",
            {"app": "ledger"},
            policyTypes=["Ingress"],
            ingress=[{"from": [{"ipBlock": block}], "ports": ports(50051)}],
        )

    expected = {
        "reachability": [
            reach("*", ledgers, False, port=50051, name="nothing else reaches the ledger"),
            reach(gateways, ledgers, True, port=50051, name="the partner gateways reach it"),
            reach("*", built.everyone_but(*ledgers), True, name="other pods are unaffected"),
        ]
    }
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"The ledger pods of `{data_ns}` (`app: ledger`, gRPC on 50051) may be reached on "
            f"50051 only from addresses in `{cidr}`, the partner network, except the "
            f"quarantined range `{excluded}`. Use the pods' addresses as the cluster shows them. "
            "Everything else stays as it is.",
            f"Die Ledger-Pods in `{data_ns}` (`app: ledger`, gRPC auf 50051) dürfen auf 50051 "
            f"nur aus `{cidr}` erreicht werden, dem Partnernetz, außer dem gesperrten Bereich "
            f"`{excluded}`. Maßgeblich sind die Pod-Adressen im Cluster. Alles andere bleibt.",
        ),
        terse=text(
            f"ledger:50051 <- {cidr} minus {excluded} only",
            f"ledger:50051 <- nur {cidr} ohne {excluded}",
        ),
        expected=expected,
        reference=[policy({"cidr": cidr, "except": [excluded]})],
        bad={
            "missing-except": [policy({"cidr": cidr})],
            "allow-all": [
                netpol(
                    data_ns,
                    "ledger-from-partners",
                    {"app": "ledger"},
                    policyTypes=["Ingress"],
                    ingress=[{}],
                )
            ],
            "cidr-typo": [
                policy(
                    {
                        "cidr": f"172.{second + 1}.0.0/16",
                        "except": [f"172.{second + 1}.{quarantined}.0/24"],
                    }
                )
            ],
        },
        tags=("networkpolicy", "ipblock"),
    )


def _port_range(rng: random.Random) -> Problem:
    built = ClusterBuilder(rng)
    ns = team_namespaces(rng, 1)[0]
    built.namespace(ns, team=ns)
    built.namespace("monitoring", team="observability")
    low = rng.choice([7000, 8000, 30000])
    high = low + rng.choice([50, 100, 200])
    span = [("svc-a", low, "TCP"), ("svc-b", (low + high) // 2, "TCP"), ("svc-c", high, "TCP")]
    media = built.app(ns, "media", 2, declared=[*span, ("admin", 9000, "TCP")])
    frontends = built.app(ns, "web", 2)
    built.app(ns, "worker")
    built.app("monitoring", "prometheus")

    def policy(port_list: list[Obj], from_: list[Obj] | None = None) -> Obj:
        rule = {
            "from": from_
            if from_ is not None
            else [{"podSelector": {"matchLabels": {"app": "web"}}}],
            "ports": port_list,
        }
        return netpol(
            ns,
            "media-ports",
            {"app": "media"},
            policyTypes=["Ingress"],
            ingress=[rule, {"ports": ports(9000)}],
        )

    ranged = [{"protocol": "TCP", "port": low, "endPort": high}]
    expected = {
        "reachability": [
            *(
                reach("*", media, False, port=number, name=f"nothing else reaches {number}")
                for _n, number, _p in span
            ),
            *(
                reach(frontends, media, True, port=number, name=f"the web pods reach {number}")
                for _n, number, _p in span
            ),
            reach("*", media, True, port=9000, name="the admin port stays open"),
            reach("*", built.everyone_but(*media), True, name="other pods are unaffected"),
        ]
    }
    return Problem(
        kinds=("NetworkPolicy",),
        cluster=built.objects,
        precise=text(
            f"The `app: media` pods of `{ns}` serve on every TCP port from {low} to {high}. "
            f"Only the `app: web` pods of `{ns}` may connect to that range; the admin port 9000 "
            "stays open to everyone, and nothing else changes.",
            f"Die `app: media`-Pods in `{ns}` lauschen auf allen TCP-Ports von {low} bis "
            f"{high}. Nur die `app: web`-Pods in `{ns}` dürfen diesen Bereich erreichen; der "
            "Admin-Port 9000 bleibt für alle offen, sonst ändert sich nichts.",
        ),
        terse=text(
            f"{ns}/media tcp {low}-{high}: only web. 9000 open.",
            f"{ns}/media TCP {low}-{high}: nur web. 9000 offen.",
        ),
        expected=expected,
        reference=[policy(ranged)],
        bad={
            "first-port-only": [policy(ports(low))],
            "allow-all": [policy(ranged, from_=[])],
            "udp-instead": [policy([{**ranged[0], "protocol": "UDP"}])],
        },
        tags=("networkpolicy", "port-range"),
    )


TEMPLATES = (
    Template("netpol-db-only-from-client", "networkpolicy", "medium", _db_only_from_client),
    Template("netpol-default-deny-namespace", "networkpolicy", "easy", _default_deny_namespace),
    Template("netpol-egress-dns-and-db", "networkpolicy", "hard", _egress_dns_and_db),
    Template("netpol-allow-scrape", "networkpolicy", "medium", _allow_scrape),
    Template("netpol-tenant-isolation", "networkpolicy", "easy", _tenant_isolation),
    Template("netpol-ip-block", "networkpolicy", "medium", _ip_block),
    Template("netpol-port-range", "networkpolicy", "medium", _port_range),
)
