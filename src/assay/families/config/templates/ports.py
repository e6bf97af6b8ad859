"""NetworkPolicy templates about where and how: egress, protocols, addresses, port ranges."""

from __future__ import annotations

import random

from assay.families.config.templates._kit import (
    ClusterBuilder,
    Obj,
    Problem,
    Template,
    four_namespaces,
    netpol,
    peer,
    ports,
    reach,
    team_namespaces,
    text,
)


def _egress_dns_and_db(rng: random.Random) -> Problem:
    built, app_ns, data_ns, web_ns = four_namespaces(rng)
    built.namespace("kube-system")
    dns = [f"kube-system/coredns-{i}" for i in range(2)]
    for index, ref in enumerate(dns):
        built.add(_dns_pod(ref.split("/")[1], f"10.96.0.{10 + index}"))
    built.pods["kube-system/coredns"] = dns
    cache = _dns_pod("node-local-dns-0", "10.96.0.50")  # also on 53, but not kube-dns
    cache["metadata"]["labels"] = {"k8s-app": "node-local-dns"}
    built.add(cache)
    built.pods["kube-system/node-local-dns"] = ["kube-system/node-local-dns-0"]
    workers = built.app(app_ns, "worker", 2)
    built.app(app_ns, "api")
    dbs = built.app(data_ns, "postgres")
    built.app(data_ns, "redis")
    built.app(web_ns, "web")
    built.app(web_ns, "postgres")  # another team's database: not the one allowed
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
            f"Les pods `app: worker` de `{app_ns}` ne peuvent ouvrir de connexions que vers le DNS "
            "du cluster (les pods `k8s-app: kube-dns` de `kube-system`, port 53 en UDP et TCP) "
            f"et vers les pods postgres de `{data_ns}` sur 5432. Rien d'autre. Le trafic entrant "
            "et tous les autres pods ne changent pas.",
        ),
        terse=text(
            f"egress lockdown {app_ns}/worker: dns (53 udp+tcp) + {data_ns}/postgres:5432 only",
            f"Egress-Sperre {app_ns}/worker: nur DNS (53 UDP+TCP) + {data_ns}/postgres:5432",
            f"verrouillage egress {app_ns}/worker : dns (53 udp+tcp) + "
            f"{data_ns}/postgres:5432 seulement",
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


def _ip_block(rng: random.Random) -> Problem:
    built, app_ns, data_ns, _web_ns = four_namespaces(rng)
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
            f"Les pods ledger de `{data_ns}` (`app: ledger`, gRPC sur 50051) ne sont joignables "
            f"sur 50051 que depuis les adresses de `{cidr}`, le réseau partenaire, sauf la "
            f"plage en quarantaine `{excluded}`. Prendre les adresses des pods telles que le "
            "cluster les montre. Tout le reste reste en l'état.",
        ),
        terse=text(
            f"ledger:50051 <- {cidr} minus {excluded} only",
            f"ledger:50051 <- nur {cidr} ohne {excluded}",
            f"ledger:50051 <- {cidr} sauf {excluded} uniquement",
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
            # every port of the range, not only those the pods declare: a policy opening the
            # declared three would pass otherwise
            reach(
                "*", media, False, port=low, end_port=high, name="nothing else reaches the range"
            ),
            reach(
                frontends, media, True, port=low, end_port=high, name="the web pods reach the range"
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
            f"Les pods `app: media` de `{ns}` écoutent sur tous les ports TCP de {low} à {high}. "
            f"Seuls les pods `app: web` de `{ns}` peuvent joindre cette plage ; le port "
            "d'administration 9000 reste ouvert à tous, et rien d'autre ne change.",
        ),
        terse=text(
            f"{ns}/media tcp {low}-{high}: only web. 9000 open.",
            f"{ns}/media TCP {low}-{high}: nur web. 9000 offen.",
            f"{ns}/media tcp {low}-{high} : seulement web. 9000 ouvert.",
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
    Template("netpol-egress-dns-and-db", "networkpolicy", "hard", _egress_dns_and_db),
    Template("netpol-ip-block", "networkpolicy", "medium", _ip_block),
    Template("netpol-port-range", "networkpolicy", "medium", _port_range),
)
