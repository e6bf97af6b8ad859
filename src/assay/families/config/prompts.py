"""Prompt styles for generated config tasks, in each locale: a precise specification, a terse
ticket, and a vague request (for templates with more than one reasonable reading)."""

from __future__ import annotations

import random
from collections.abc import Callable

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
    },
}
_TICKETS = ("OPS", "PLAT", "SEC", "INFRA", "SRE")


def precise(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A specification with a heading, the cluster, the requirement and what to submit."""
    del rng
    frame = _FRAME[locale]
    return (
        f"# {frame['title']}\n\n{frame['cluster'].format(**context)}\n\n"
        f"## {frame['requirement']}\n\n{problem.precise[locale]}\n\n"
        f"{frame['submit'].format(**context)}\n"
    )


def ticket(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A terse issue-tracker ticket."""
    key = f"{rng.choice(_TICKETS)}-{rng.randint(100, 9999)}"
    frame = _FRAME[locale]
    return f"**{key}** {problem.terse[locale]}\n\n{frame['ticket_submit'].format(**context)}\n"


def vague(problem: Problem, locale: str, context: dict[str, str], rng: random.Random) -> str:
    """A request that leaves a choice open; each reasonable reading has its reference."""
    del rng
    if problem.vague is None:
        raise ValueError("this problem has no vague form")
    return f"{problem.vague[locale]}\n\n{_FRAME[locale]['vague_submit'].format(**context)}\n"


Style = Callable[[Problem, str, dict[str, str], random.Random], str]
STYLES: dict[str, Style] = {"precise": precise, "ticket": ticket, "vague": vague}


def styles_for(problem: Problem) -> list[str]:
    """The styles ``problem`` can be written in."""
    return [name for name in STYLES if name != "vague" or problem.vague is not None]
