"""The reference naming namespaces by the labels their owners chose, for the red-team check
(:mod:`.exploits`): a rule that selects ``team: observability`` rather than
``kubernetes.io/metadata.name: monitoring`` meets every requirement about today's namespaces,
and lets in the pods of whoever makes another namespace so labelled and copies the labels of
the pods meant. The reachability guard (:mod:`.reach_guards`) must tell it apart.

Shaped from the text of the cluster file and the reference as written, without reading their
YAML on the host: each ``Namespace`` document with a block-style ``metadata.labels``, and each
line of the reference that selects one of them by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assay.families.config.cluster import NAME_LABEL

_DOCUMENT_SPLIT = re.compile(r"(?m)^---[ ]*(?:#.*)?$")
_NAMESPACE_NAME = re.compile(r"(?m)^  name: *['\"]?([a-z0-9][a-z0-9.-]*)['\"]?[ ]*$")
_LABELS = re.compile(r"(?m)^  labels:[ ]*\n((?:    \S.*(?:\n|$))+)")


def by_shared_labels(reference: str, cluster: str) -> list[tuple[str, str, str]]:
    """The hack as ``(name, what, text)``; none when the reference names no namespace of
    ``cluster`` (its file's text) that has labels but its name."""
    text = reference
    for namespace, lines in namespace_labels(cluster).items():
        pattern = rf"(?m)^( +){re.escape(NAME_LABEL)}: *['\"]?{re.escape(namespace)}['\"]?[ ]*$"
        text = re.sub(pattern, _indented(lines), text)
    if text == reference:
        return []
    what = "the reference naming namespaces by labels anyone may give a namespace, not by name"
    return [("reference-by-shared-labels", what, text)]


def namespace_labels(cluster: str) -> dict[str, list[str]]:
    """The labels of each namespace ``cluster`` declares in block style, each as its
    ``key: value`` text, but the name label (which only the API server sets); a namespace
    with no other label is left out."""
    found = {}
    for document in _DOCUMENT_SPLIT.split(cluster):
        if not re.search(r"(?m)^kind: Namespace[ ]*$", document):
            continue
        named, labels = _NAMESPACE_NAME.search(document), _LABELS.search(document)
        if named is None or labels is None:
            continue
        lines = [line.strip() for line in labels.group(1).splitlines()]
        kept = [line for line in lines if line and not line.startswith(NAME_LABEL)]
        if kept:
            found[named.group(1)] = kept
    return found


def _indented(lines: list[str]) -> Callable[[re.Match[str]], str]:
    """A replacement writing ``lines`` at the indentation of the match's first group."""

    def replace(match: re.Match[str]) -> str:
        return "\n".join(match.group(1) + line for line in lines)

    return replace
