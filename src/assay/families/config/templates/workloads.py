"""Workload templates: resource limits, security contexts, and Services that select the right
pods."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

from assay.families.config.templates._kit import (
    ClusterBuilder,
    Obj,
    Problem,
    Template,
    team_namespaces,
    text,
    typo,
)


def deployment(ns: str, name: str, containers: list[Obj], **pod_spec: Any) -> Obj:
    """A Deployment of pods labelled ``app: name``."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": containers, **pod_spec},
            },
        },
    }


def _containers(rng: random.Random, name: str) -> list[Obj]:
    found = [
        {
            "name": name,
            "image": f"registry.example.com/{name}:{rng.randint(1, 9)}.{rng.randint(0, 20)}.0",
            "ports": [{"name": "http", "containerPort": 8080}],
        }
    ]
    if rng.random() < 0.5:
        found.append({"name": "log-shipper", "image": "fluent/fluent-bit:3.0"})
    return found


NEIGHBOURS = ("cart", "recommender", "mailer", "auth-proxy", "indexer", "scheduler", "ledger-sync")


def _neighbours(built: ClusterBuilder, ns: str, name: str, rng: random.Random) -> None:
    """Other Deployments of the namespace, already set up, as a real namespace has them."""
    for other in rng.sample([n for n in NEIGHBOURS if n != name], rng.randint(1, 3)):
        resources = {
            "limits": {
                "cpu": f"{rng.choice([100, 200, 400])}m",
                "memory": f"{rng.choice([64, 128, 384])}Mi",
            }
        }
        containers = _with(_containers(rng, other), resources=resources)
        built.add(deployment(ns, other, containers))


def _with(containers: list[Obj], **fields: Mapping[str, Any]) -> list[Obj]:
    changed = copy.deepcopy(containers)
    for container in changed:
        container.update(copy.deepcopy(fields))
    return changed


def _images(containers: list[Obj]) -> dict[str, str]:
    return {c["name"]: c["image"] for c in containers}


def _limits(rng: random.Random) -> Problem:
    ns = team_namespaces(rng, 1)[0]
    name = rng.choice(["checkout", "search-api", "thumbnailer", "notifier", "invoicer", "geo"])
    built = ClusterBuilder(rng)
    built.namespace(ns, team=ns)
    containers = _containers(rng, name)
    built.add(deployment(ns, name, containers))
    _neighbours(built, ns, name, rng)
    cpu_m = rng.choice([250, 500, 1000])
    memory_mi = rng.choice([256, 512, 1024])
    cpu, memory = f"{cpu_m}m", f"{memory_mi}Mi"
    good = {
        "limits": {"cpu": cpu, "memory": memory},
        "requests": {"cpu": f"{cpu_m // 2}m", "memory": f"{memory_mi // 2}Mi"},
    }
    workload = f"Deployment {ns}/{name}"
    expected = {
        "containers": [
            {
                "workload": workload,
                "limits": ["cpu", "memory"],
                "requests": ["cpu", "memory"],
                "max_limits": {"cpu": cpu, "memory": memory},
                "images": _images(containers),
            }
        ]
    }
    over = {**good, "limits": {"cpu": f"{cpu_m * 2}m", "memory": f"{memory_mi * 2}Mi"}}
    return Problem(
        kinds=("Deployment",),
        cluster=built.objects,
        precise=text(
            f"Every container of the Deployment `{ns}/{name}` must set CPU and memory requests "
            f"and limits, with limits of at most {cpu} CPU and {memory} memory. Keep its "
            "containers and images as they are. Submit the whole Deployment.",
            f"Jeder Container des Deployments `{ns}/{name}` muss CPU- und Speicher-Requests "
            f"und -Limits setzen, Limits höchstens {cpu} CPU und {memory} Speicher. Container "
            "und Images bleiben, wie sie sind. Das ganze Deployment abgeben.",
            f"Chaque conteneur du Deployment `{ns}/{name}` doit définir des requests et des limits "
            f"de CPU et de mémoire, avec des limits d'au plus {cpu} de CPU et {memory} de "
            "mémoire. Garder ses conteneurs et images tels quels. Rendre le Deployment entier.",
        ),
        terse=text(
            f"{ns}/{name}: add requests+limits to all containers (max {cpu} / {memory})",
            f"{ns}/{name}: Requests+Limits für alle Container (max {cpu} / {memory})",
            f"{ns}/{name} : requests+limits sur tous les conteneurs (max {cpu} / {memory})",
        ),
        expected=expected,
        reference=[deployment(ns, name, _with(containers, resources=good))],
        bad={
            "missing-limits": [
                deployment(ns, name, _with(containers, resources={"requests": good["requests"]}))
            ],
            "limits-too-high": [deployment(ns, name, _with(containers, resources=over))],
            "first-container-only": [
                deployment(ns, name, [{**containers[0], "resources": good}, *containers[1:]])
                if len(containers) > 1
                else deployment(ns, name, _with(containers, resources={"limits": {"cpu": cpu}}))
            ],
        },
        tags=("resources", "limits", "deployment"),
    )


def _security_context(rng: random.Random) -> Problem:
    ns = team_namespaces(rng, 1)[0]
    name = rng.choice(["billing-api", "webhooks", "pdf-render", "gateway", "uploader", "sso"])
    built = ClusterBuilder(rng)
    built.namespace(ns, team=ns)
    containers = _containers(rng, name)
    built.add(deployment(ns, name, containers))
    _neighbours(built, ns, name, rng)
    hardened = {
        "runAsNonRoot": True,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    workload = f"Deployment {ns}/{name}"
    expected = {
        "containers": [
            {
                "workload": workload,
                "run_as_non_root": True,
                "no_privilege_escalation": True,
                "read_only_root_filesystem": True,
                "drop_all_capabilities": True,
                "images": _images(containers),
            }
        ]
    }

    def without(key: str, value: object = None) -> Obj:
        context = {k: v for k, v in hardened.items() if k != key}
        if value is not None:
            context[key] = value
        return deployment(ns, name, _with(containers, securityContext=context))

    pod_level = {k: v for k, v in hardened.items() if k != "runAsNonRoot"}
    return Problem(
        kinds=("Deployment",),
        cluster=built.objects,
        precise=text(
            f"Harden the Deployment `{ns}/{name}`: every container must run as a non-root "
            "user, must not be able to escalate privileges, must have a read-only root "
            "filesystem and must drop all Linux capabilities. Keep its containers and images.",
            f"Das Deployment `{ns}/{name}` härten: jeder Container läuft als Nicht-Root, darf "
            "keine Rechte ausweiten, hat ein schreibgeschütztes Root-Dateisystem und legt alle "
            "Linux-Capabilities ab. Container und Images bleiben.",
            f"Durcir le Deployment `{ns}/{name}` : chaque conteneur tourne en utilisateur non "
            "root, ne peut pas élever ses privilèges, a un système de fichiers racine en lecture "
            "seule et abandonne toutes les capabilities Linux. Garder conteneurs et images.",
        ),
        terse=text(
            f"{ns}/{name}: nonroot, no priv-esc, ro rootfs, drop ALL caps",
            f"{ns}/{name}: nonroot, keine Priv-Esc, ro rootfs, drop ALL caps",
            f"{ns}/{name} : nonroot, pas de priv-esc, rootfs ro, drop ALL caps",
        ),
        expected=expected,
        reference=[
            deployment(
                ns,
                name,
                _with(containers, securityContext=pod_level),
                securityContext={"runAsNonRoot": True},
            )
        ],
        bad={
            "missing-drop-all": [without("capabilities")],
            "privilege-escalation": [without("allowPrivilegeEscalation", True)],
            "root-allowed": [without("runAsNonRoot")],
        },
        tags=("security-context", "deployment", "hardening"),
    )


def _service(rng: random.Random) -> Problem:
    ns, other = team_namespaces(rng, 2)
    app = rng.choice(["storefront", "docs", "status-page"])
    built = ClusterBuilder(rng)
    built.namespace(ns, team=ns)
    built.namespace(other, team=other)
    stable = built.app(ns, "web", 2, declared=[("http", 8080, "TCP")], track="stable", part=app)
    built.app(ns, "web", 1, declared=[("http", 8080, "TCP")], track="canary", part=app)
    built.app(other, "web", 1, declared=[("http", 8080, "TCP")], track="stable", part=app)
    built.app(ns, "api")

    def service(selector: Mapping[str, str], target: int | str = "http", where: str = ns) -> Obj:
        return {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": app, "namespace": where},
            "spec": {
                "selector": dict(selector),
                "ports": [{"name": "http", "port": 80, "targetPort": target, "protocol": "TCP"}],
            },
        }

    selector = {"app": "web", "part": app, "track": "stable"}
    expected = {"services": [{"service": f"{ns}/{app}", "selects": stable, "ports": [80]}]}
    return Problem(
        kinds=("Service",),
        cluster=built.objects,
        precise=text(
            f"Create a Service `{app}` in `{ns}` on port 80 that sends traffic to the stable "
            f"`{app}` web pods of `{ns}` (labels `app: web`, `part: {app}`, `track: stable`) "
            "on their port named `http`, and to no other pod: not the canary.",
            f"Einen Service `{app}` in `{ns}` auf Port 80 anlegen, der den Verkehr an die "
            f"stabilen `{app}`-Web-Pods in `{ns}` (Labels `app: web`, `part: {app}`, "
            "`track: stable`) auf ihren Port `http` schickt, und an keinen anderen: nicht an "
            "den Canary.",
            f"Créer un Service `{app}` dans `{ns}` sur le port 80 qui envoie le trafic aux pods "
            f"web stables de `{app}` dans `{ns}` (labels `app: web`, `part: {app}`, "
            "`track: stable`) sur leur port nommé `http`, et à aucun autre pod : pas au canary.",
        ),
        terse=text(
            f"svc {ns}/{app}:80 -> stable web pods (http). no canary",
            f"Service {ns}/{app}:80 -> stabile Web-Pods (http). Kein Canary",
            f"svc {ns}/{app}:80 -> pods web stables (http). pas de canary",
        ),
        expected=expected,
        reference=[service(selector)],
        bad={
            "selector-typo": [service({**selector, "part": typo(app, rng)})],
            "includes-canary": [service({"app": "web", "part": app})],
            "wrong-target-port": [service(selector, target=80)],
            "wrong-namespace": [service(selector, where=other)],
        },
        tags=("service", "selectors"),
    )


TEMPLATES = (
    Template("limits-deployment", "resources", "easy", _limits),
    Template("security-context-deployment", "security-context", "medium", _security_context),
    Template("service-selects-stable-pods", "service", "easy", _service),
)
