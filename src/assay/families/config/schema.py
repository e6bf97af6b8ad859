"""Objects checked against the OpenAPI schema of a pinned Kubernetes version, as shipped by
``kubernetes-validate`` (strict: a field the schema does not know is an error, as
``kubectl apply --validate=strict`` makes it).

The library builds a file path from an object's ``kind`` and ``apiVersion``; both are checked
here against the shapes Kubernetes gives them before a path is built, so that no object names a
file of its choosing. The library reads and parses a schema and all its definitions (several
megabytes of JSON) on every call; here the validator of each kind is built once, from the same
files resolved the same way, and kept.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import kubernetes_validate
from jsonschema.exceptions import best_match
from jsonschema.validators import Draft202012Validator
from kubernetes_validate.utils import all_versions, schema_contents
from referencing import Registry, Resource

MAX_TEXT = 300
_KIND = re.compile(r"^[A-Z][A-Za-z0-9]{0,62}$")
_API_VERSION = re.compile(r"^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?/)?v[0-9]+((alpha|beta)[0-9]+)?$")


@functools.cache
def supported_versions() -> tuple[str, ...]:
    """The Kubernetes versions (``1.33``) whose schemas the installed library ships."""
    return tuple(sorted({".".join(v.split(".")[:2]) for v in all_versions()}, key=_minor))


def library_version() -> str:
    """The installed ``kubernetes-validate`` version, for a verdict to record."""
    return str(kubernetes_validate.__version__)


def schema_problem(obj: Mapping[str, object], version: str) -> str | None:
    """Why ``obj`` does not validate against Kubernetes ``version``'s schema; None when it does.

    ``version`` must be one of :func:`supported_versions`."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(api_version, str) or not _API_VERSION.match(api_version):
        return f"apiVersion {str(api_version)[:80]!r} is not a Kubernetes API version"
    if not isinstance(kind, str) or not _KIND.match(kind):
        return f"kind {str(kind)[:80]!r} is not a Kubernetes kind"
    validator = _validator(version, kind, api_version)
    if validator is None:
        return f"Kubernetes {version} has no kind {kind} in {api_version}"
    error = best_match(validator.iter_errors(dict(obj)))
    if error is not None:
        path = ".".join(str(part) for part in error.path) or "(the object)"
        return f"{path}: {error.message}"[:MAX_TEXT]
    return None


@functools.lru_cache(maxsize=512)
def _validator(version: str, kind: str, api_version: str) -> Any | None:
    """The strict validator of ``kind`` in ``api_version`` for Kubernetes ``version`` (the
    newest schemas of that minor version, as the library picks them); None when it has none."""
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    directory = f"kubernetes-json-schema/v{_patch(version)}-local-strict"
    try:
        schema = schema_contents(f"{directory}/{kind.lower()}-{group}.json", version)
    except FileNotFoundError:
        return None
    registry = _definitions(directory) @ (Resource.from_contents(schema) @ Registry())
    return Draft202012Validator(schema, registry=registry)


@functools.cache
def _definitions(directory: str) -> Resource[Any]:
    return Resource.from_contents(schema_contents(f"{directory}/_definitions.json", directory))


def _patch(version: str) -> str:
    """The newest ``major.minor.patch`` the library ships for ``major.minor``."""
    return str([v for v in all_versions() if ".".join(v.split(".")[:2]) == version][-1])


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
