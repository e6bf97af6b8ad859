"""Probes for the audit's sensitivity check: the task with one requirement of
``hidden/expected.toml`` changed so that no right answer meets both, and the reference must then
fail.

- a ``[[reachability]]`` or ``[[permissions]]`` requirement: ``allowed`` flipped;
- an ``[[only]]`` envelope: emptied (the subject may hold nothing);
- a ``[[containers]]`` requirement with ``images``: every image changed;
- a ``[[services]]`` requirement: the first pod dropped from ``selects`` (it selects exactly).

Other readings (``expected-<reading>.toml``) are left out of the probes, so that the reference
cannot pass through one of them.
"""

from __future__ import annotations

import copy
from typing import Any

import tomli_w

from assay import _toml
from assay.errors import TaskFormatError
from assay.families.base import Probe
from assay.families.config.expectations import expectations
from assay.families.config.spec import EXPECTED_FILE, READING_PREFIX
from assay.tasks.model import Task


def config_probes(task: Task) -> list[Probe]:
    """One probe per requirement that can be changed; empty when the expectations cannot be
    read (lint reports that)."""
    try:
        expectations(task)
    except TaskFormatError:
        return []
    data = _toml.loads(task.hidden[EXPECTED_FILE].decode())
    probes = []
    for kind in ("reachability", "permissions", "only", "containers", "services"):
        for index, requirement in enumerate(data.get(kind, [])):
            changed = _changed(kind, requirement)
            if changed is None:
                continue
            what, replacement = changed
            altered = copy.deepcopy(data)
            altered[kind][index] = replacement
            probes.append(Probe(f"{kind}[{index}]", what, _with(task, altered)))
    return probes


def _changed(kind: str, requirement: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    if kind in ("reachability", "permissions"):
        allowed = bool(requirement["allowed"])
        return f"allowed {allowed} -> {not allowed}", {**requirement, "allowed": not allowed}
    if kind == "only":
        return "allow -> nothing", {**requirement, "allow": []}
    if kind == "containers" and requirement.get("images"):
        images = {name: f"{image}-changed" for name, image in requirement["images"].items()}
        return "images -> other images", {**requirement, "images": images}
    if kind == "services" and len(requirement["selects"]) > 1:
        return f"selects without {requirement['selects'][0]}", {
            **requirement,
            "selects": requirement["selects"][1:],
        }
    return None


def _with(task: Task, expected: dict[str, Any]) -> Task:
    hidden = {
        name: data for name, data in task.hidden.items() if not name.startswith(READING_PREFIX)
    }
    hidden[EXPECTED_FILE] = tomli_w.dumps(expected).encode()
    return task.model_copy(update={"hidden": hidden})
