"""Manifests a person passes on the command line, and what they mean: the reachability of their
pods and the effective permissions of a subject.

The files are read by the same sandboxed reader as submissions (:mod:`.documents`) and every
object is validated against the schema of a Kubernetes version; any problem is an
:class:`InputError` naming the file, the document and the fix.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.errors import InputError
from assay.families.config.documents import (
    MAX_FILE_BYTES,
    Documents,
    Object,
    oversized,
    placed,
    read_yaml,
)
from assay.families.config.meaning import Meaning, meaning
from assay.families.config.network import Connection
from assay.families.config.rbac import Subject
from assay.families.config.schema import schema_problem, supported_versions
from assay.families.config.selectors import ObjectError
from assay.sandbox.protocol import Sandbox
from assay.tasks.spec import Limits

DEFAULT_KUBERNETES = "1.33"


@dataclass(frozen=True, order=True)
class PermissionRow:
    """One thing a subject may do: a verb on a resource (or a non-resource URL) somewhere."""

    namespace: str | None
    """None: cluster-wide (every namespace, and cluster-scoped resources)."""
    group: str | None
    """The API group (``""``: the core group); None for a non-resource URL."""
    resource: str
    """``pods``, ``pods/log``, ``*``, or a non-resource URL such as ``/healthz``."""
    name: str | None
    """The one object it is limited to; None: any."""
    verb: str


def read_manifests(
    paths: Sequence[Path], sandbox: Sandbox, kubernetes: str = DEFAULT_KUBERNETES
) -> list[Object]:
    """Every object of the YAML files at ``paths``, in order, each schema-valid for Kubernetes
    ``kubernetes``. Raises :class:`InputError` naming the file for one that cannot be read,
    is too large, or holds an object that is not valid."""
    if kubernetes not in supported_versions():
        raise InputError(
            f"no schemas for Kubernetes {kubernetes}",
            field="--kubernetes",
            fix=f"use one of {', '.join(supported_versions()[-6:])}",
        )
    files = []
    for path in paths:
        try:
            with Path(path).open("rb") as opened:  # never more than the limit, whatever it is
                size = os.fstat(opened.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    raise InputError(
                        f"{size} bytes, more than the limit of {MAX_FILE_BYTES}",
                        path=path,
                        fix="split or shorten the manifests",
                    )
                files.append((str(path), opened.read(MAX_FILE_BYTES + 1)))
        except OSError as exc:
            raise InputError(f"cannot read it: {exc.strerror or exc}", path=path) from None
    for large in oversized(files):
        raise InputError(large.reason, path=large.name, fix="split or shorten the manifests")
    run = read_yaml(sandbox, files, Limits())
    objects: list[Object] = []
    for parsed in run.parsed:
        if not isinstance(parsed, Documents):
            reason = " ".join(parsed.reason.split())
            raise InputError(reason, path=parsed.name, fix="write plain YAML")
        for part in placed(parsed.objects):
            where, obj = part.where, part.value
            if part.problem is not None:
                raise InputError(part.problem, path=parsed.name, field=where)
            if not isinstance(obj, Mapping):
                raise InputError("not a mapping (an object)", path=parsed.name, field=where)
            problem = schema_problem(obj, kubernetes)
            if problem is not None:
                text = f"{obj.get('kind')}: {problem}"
                raise InputError(text, path=parsed.name, field=where, fix="correct the object")
            objects.append(dict(obj))
    return objects


def meaning_of(objects: Sequence[Object]) -> Meaning:
    """What ``objects`` mean; raises :class:`InputError` for one the API server refuses."""
    try:
        return meaning(objects)
    except ObjectError as exc:
        raise InputError(str(exc), fix="correct the object") from None


def reachability_rows(objects: Sequence[Object]) -> list[Connection]:
    """One row for every ordered pair of distinct pods and every port and protocol the
    destination declares, sorted by source, destination, port and protocol."""
    return meaning_of(objects).reachability.matrix()


def parse_subject(text: str) -> Subject:
    """``User:NAME``, ``Group:NAME`` or ``ServiceAccount:NS/NAME``; raises :class:`InputError`."""
    try:
        return Subject.parse(text)
    except ValueError as exc:
        raise InputError(
            str(exc), field="--subject", fix="for example ServiceAccount:shop/api"
        ) from None


def permission_rows(objects: Sequence[Object], subject: Subject) -> list[PermissionRow]:
    """Everything ``subject`` may do under the RBAC objects among ``objects``: one row per
    namespace, group, resource, name and verb, sorted, without repeats."""
    rows: set[PermissionRow] = set()
    for grant in meaning_of(objects).permissions.grants(subject):
        rule = grant.rule
        names: Sequence[str | None] = rule.resource_names or (None,)
        for verb in rule.verbs:
            for url in rule.non_resource_urls:
                rows.add(PermissionRow(grant.namespace, None, url, None, verb))
            for group in rule.api_groups:
                for resource in rule.resources:
                    rows |= {
                        PermissionRow(grant.namespace, group, resource, name, verb)
                        for name in names
                    }
    return sorted(rows, key=_order)


def _order(row: PermissionRow) -> tuple[str, str, str, str, str]:
    """Cluster-wide rows first, then by namespace, group, resource, name and verb."""
    return (
        "" if row.namespace is None else f"~{row.namespace}",
        "~" if row.group is None else row.group,
        row.resource,
        row.name or "",
        row.verb,
    )
