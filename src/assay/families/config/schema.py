"""Objects checked against the OpenAPI schema of a pinned Kubernetes version, as shipped by
``kubernetes-validate`` (strict: a field the schema does not know is an error, as
``kubectl apply --validate=strict`` makes it).

The library builds a file path from an object's ``kind`` and ``apiVersion``; both are checked
here against the shapes Kubernetes gives them before the library sees them, so that no object
names a file of its choosing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

import kubernetes_validate
from kubernetes_validate.utils import all_versions

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
    try:
        kubernetes_validate.validate(dict(obj), version, strict=True)
    except kubernetes_validate.ValidationError as exc:
        path = ".".join(str(part) for part in exc.path) or "(the object)"
        return f"{path}: {exc.message}"[:MAX_TEXT]
    except kubernetes_validate.SchemaNotFoundError:
        return f"Kubernetes {version} has no kind {kind} in {api_version}"
    return None


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
