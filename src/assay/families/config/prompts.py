"""Prompt styles for generated config tasks, in each locale: a precise specification, a terse
ticket, a thread whose first request is overruled by a later one (the task says which wins),
and a vague request (for templates with more than one reasonable reading)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from assay.families.config.templates import Problem

_FRAME = {
    "en": {
        "title": "Kubernetes change",
        "cluster": "The cluster as it runs today is described in `{file}` (namespaces with "
        "their labels, pods with labels, addresses and named ports, existing objects).",
        "requirement": "Requirement",
        "submit": "Submit the objects to apply ({kinds}) as YAML, one document per object. "
        "They are validated against the Kubernetes {version} schemas and applied as "
        "`kubectl apply` would.",
        "ticket_submit": "cluster: {file}. reply with the yaml ({kinds}).",
        "vague_submit": "The cluster is in {file}. Send me the YAML to apply.",
        "first": "**{who}** (Monday): {shortcut}",
        "then": "**security review** (Tuesday): No. That is not what we agreed. What has to "
        "hold, and what counts in the end, is this:",
    },
    "de": {
        "title": "Kubernetes-Änderung",
        "cluster": "Der Cluster, wie er heute läuft, steht in `{file}` (Namespaces mit Labels, "
        "Pods mit Labels, Adressen und benannten Ports, vorhandene Objekte).",
        "requirement": "Anforderung",
        "submit": "Gib die anzuwendenden Objekte ({kinds}) als YAML ab, ein Dokument pro Objekt. "
        "Sie werden gegen die Schemas von Kubernetes {version} geprüft und wie mit "
        "`kubectl apply` angewendet.",
        "ticket_submit": "Cluster: {file}. Bitte YAML ({kinds}) zurück.",
        "vague_submit": "Der Cluster steht in {file}. Schick mir das YAML zum Anwenden.",
        "first": "**{who}** (Montag): {shortcut}",
        "then": "**Security-Review** (Dienstag): Nein, so war das nicht abgesprochen. Gelten "
        "muss, und am Ende zählt, Folgendes:",
    },
    "fr": {
        "title": "Changement Kubernetes",
        "cluster": "Le cluster tel qu'il tourne aujourd'hui est décrit dans `{file}` "
        "(namespaces et leurs labels, pods avec labels, adresses et ports nommés, objets "
        "existants).",
        "requirement": "Exigence",
        "submit": "Rendre les objets à appliquer ({kinds}) en YAML, un document par objet. Ils "
        "sont validés contre les schémas de Kubernetes {version} et appliqués comme le ferait "
        "`kubectl apply`.",
        "ticket_submit": "cluster : {file}. répondre avec le yaml ({kinds}).",
        "vague_submit": "Le cluster est dans {file}. Envoie-moi le YAML à appliquer.",
        "first": "**{who}** (lundi) : {shortcut}",
        "then": "**revue sécurité** (mardi) : Non, ce n'est pas ce qui était convenu. Ce qui "
        "doit tenir, et ce qui compte au final, c'est ceci :",
    },
}
_SHORTCUTS = {
    "en": (
        "just open it up for everyone for now, we'll tighten it later.",
        "give it whatever it needs, admin is fine, it's only staging.",
        "don't bother with details, allow it all and move on.",
    ),
    "de": (
        "mach es erstmal für alle auf, wir ziehen es später enger.",
        "gib ihm einfach alle Rechte, ist ja nur Staging.",
        "keine Details, erlaub einfach alles.",
    ),
    "fr": (
        "ouvre tout à tout le monde pour l'instant, on resserrera plus tard.",
        "donne-lui tous les droits, c'est juste la préprod.",
        "pas de détails, autorise tout et on passe à autre chose.",
    ),
}
"""What the first, overruled message asks for."""
_TICKETS = ("OPS", "PLAT", "SEC", "INFRA", "SRE")
_PEOPLE = ("dana", "ops-oncall", "mk", "team lead", "j.ortiz")


def precise(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A specification with a heading, the cluster (summarised), the requirement and what to
    submit."""
    del rng
    frame = _FRAME[locale]
    summary = "\n".join(cluster_summary(problem.cluster))
    return (
        f"# {frame['title']}\n\n{frame['cluster'].format(**context)}\n\n"
        f"```text\n{summary}\n```\n\n"
        f"## {frame['requirement']}\n\n{problem.precise[locale]}\n\n"
        f"{frame['submit'].format(**context)}\n"
    )


def cluster_summary(objects: list[dict[str, Any]]) -> list[str]:
    """One line per namespace, then the objects in it, indented: pods with their labels,
    address and ports; other objects by kind and name."""
    namespaces: dict[str, list[str]] = {}
    scoped: list[str] = []
    for obj in objects:
        meta = obj.get("metadata", {})
        kind, name = obj.get("kind", "?"), meta.get("name", "?")
        if kind == "Namespace":
            namespaces.setdefault(name, [])
            continue
        if "namespace" not in meta:
            scoped.append(f"{kind} {name}")
            continue
        namespaces.setdefault(meta["namespace"], []).append(f"  {_line(obj)}")
    lines = []
    labels = {
        obj["metadata"]["name"]: obj["metadata"].get("labels", {})
        for obj in objects
        if obj.get("kind") == "Namespace"
    }
    for name, members in namespaces.items():
        lines.append(f"namespace {name} {_labels(labels.get(name, {}))}".rstrip())
        lines += members
    return lines + scoped


def _line(obj: dict[str, Any]) -> str:
    kind, meta = obj.get("kind"), obj.get("metadata", {})
    if kind in ("Deployment", "StatefulSet", "DaemonSet"):
        template = obj.get("spec", {}).get("template", {}).get("spec", {})
        images = ", ".join(
            f"{c.get('name')} {c.get('image')}" for c in template.get("containers", [])
        )
        return f"{kind} {meta.get('name')} (replicas {obj['spec'].get('replicas', 1)}): {images}"
    if kind != "Pod":
        return f"{kind} {meta.get('name')}"
    ports = [
        f"{p.get('name', '-')} {p['containerPort']}/{p.get('protocol', 'TCP')}"
        for c in obj.get("spec", {}).get("containers", [])
        for p in c.get("ports", [])
    ]
    address = obj.get("status", {}).get("podIP", "-")
    return f"pod {meta.get('name')} {_labels(meta.get('labels', {}))} {address} {', '.join(ports)}"


def _labels(labels: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in labels.items()) + "}" if labels else ""


def ticket(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A terse issue-tracker ticket."""
    key = f"{rng.choice(_TICKETS)}-{rng.randint(100, 9999)}"
    frame = _FRAME[locale]
    return f"**{key}** {problem.terse[locale]}\n\n{frame['ticket_submit'].format(**context)}\n"


def overruled(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A thread whose first message asks for a shortcut and a later one overrules it; the
    thread says the later one counts."""
    frame = _FRAME[locale]
    shortcuts = _SHORTCUTS[locale]
    first = frame["first"].format(who=rng.choice(_PEOPLE), shortcut=rng.choice(shortcuts))
    summary = "\n".join(cluster_summary(problem.cluster))
    return (
        f"{first}\n\n{frame['then']}\n\n{problem.precise[locale]}\n\n"
        f"{frame['cluster'].format(**context)}\n\n```text\n{summary}\n```\n\n"
        f"{frame['submit'].format(**context)}\n"
    )


def vague(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A request that leaves a choice open; each reasonable reading has its reference."""
    del rng
    if problem.vague is None:
        raise ValueError("this problem has no vague form")
    return f"{problem.vague[locale]}\n\n{_FRAME[locale]['vague_submit'].format(**context)}\n"


Style = Callable[[Problem, str, dict[str, str], random.Random], str]
STYLES: dict[str, Style] = {
    "precise": precise,
    "ticket": ticket,
    "overruled": overruled,
    "vague": vague,
}


def styles_for(problem: Problem) -> list[str]:
    """The styles ``problem`` can be written in."""
    return [name for name in STYLES if name != "vague" or problem.vague is not None]
