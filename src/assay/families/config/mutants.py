"""Mutants of a config task's reference for the audit's mutation check: the mistakes people make
in Kubernetes YAML, one at a time, made on the text (the reference is not parsed here).

- ``port-off-by-one``: a ``port:`` number one higher;
- ``flip-policy-type``: ``Ingress`` and ``Egress`` swapped in one ``policyTypes`` entry;
- ``drop-selector``: a line opening a ``namespaceSelector``, ``podSelector`` or ``ipBlock``
  ``except`` removed, with the lines under it;
- ``label-typo``: a label value under ``matchLabels`` or a Service ``selector`` misspelt;
- ``widen-cidr``: a ``cidr`` prefix eight bits shorter;
- ``wildcard-verbs``: a ``verbs`` list made ``["*"]``;
- ``extra-verb``: one verb more in a ``verbs`` list (the first of ``delete``, ``create``,
  ``patch``, ``update``, ``list``, ``watch``, ``get`` it lacks);
- ``drop-rule``: one item of a role's ``rules`` or a policy's ``ingress`` or ``egress`` removed;
- ``cluster-binding``: a ``RoleBinding`` made a ``ClusterRoleBinding`` (its role a
  ``ClusterRole``);
- ``drop-resource-names``: a ``resourceNames`` list removed;
- ``drop-limit``: one resource under ``limits`` removed;
- ``weaken-security``: one hardening setting of a security context turned off.

At most :data:`PER_OPERATOR` mutants per operator, each different from the reference as text.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Iterator

from assay.families.base import Mutant
from assay.tasks.model import Files, Task

PER_OPERATOR = 2
_PORT = re.compile(r"^(.*\bport:\s*)(\d+)(.*)$")
_POLICY_TYPE = re.compile(r"^(\s*-\s*)(Ingress|Egress)\s*$")
_SELECTOR = re.compile(r"^(\s*)(?:-\s+)?(namespaceSelector|podSelector|except):\s*$")
_CIDR = re.compile(r"^(\s*(?:-\s+)?cidr:\s*)(\S+)/(\d+)\s*$")
_VERBS = re.compile(r"^(\s*(?:-\s+)?verbs:).*$")
_LABEL_PARENT = re.compile(r"^\s*(?:-\s+)?(matchLabels|selector):\s*$")
_KEY_VALUE = re.compile(r"^(\s*)([A-Za-z0-9./_-]+):\s*(\S+)\s*$")
_INLINE_LABELS = re.compile(r"^(.*\b(?:matchLabels|selector):\s*\{[^}]*?:\s*)([^,}\s]+)(.*)$")
_SECURITY = {
    "runAsNonRoot: true": "runAsNonRoot: false",
    "allowPrivilegeEscalation: false": "allowPrivilegeEscalation: true",
    "readOnlyRootFilesystem: true": "readOnlyRootFilesystem: false",
}

Edit = Callable[[list[str]], Iterator[list[str]]]


def config_mutants(task: Task) -> list[Mutant]:
    """Mutants of ``task``'s reference, each one edit away; empty without a reference."""
    reference = task.solutions.get("reference")
    if not reference:
        return []
    found: list[Mutant] = []
    for name in sorted(reference):
        try:
            text = reference[name].decode()
        except UnicodeDecodeError:
            continue
        lines = text.split("\n")
        for operator, edit in OPERATORS.items():
            for count, changed in enumerate(edit(lines)):
                if count >= PER_OPERATOR:
                    break
                found.append(
                    _mutant(operator, count, reference, name, lines=lines, changed=changed)
                )
    return found


def _mutant(
    operator: str, count: int, reference: Files, name: str, *, lines: list[str], changed: list[str]
) -> Mutant:
    diff = "\n".join(
        difflib.unified_diff(lines, changed, f"a/{name}", f"b/{name}", lineterm="", n=1)
    )
    files = {**reference, name: "\n".join(changed).encode()}
    return Mutant(name=f"{operator}-{count + 1}", diff=diff, files=files)


def _replaced(lines: list[str], index: int, line: str) -> list[str]:
    return [*lines[:index], line, *lines[index + 1 :]]


def _port_off_by_one(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        match = _PORT.match(line)
        if match:
            number = int(match.group(2)) + 1
            yield _replaced(lines, index, f"{match.group(1)}{number}{match.group(3)}")


def _flip_policy_type(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        match = _POLICY_TYPE.match(line)
        if match:
            other = "Egress" if match.group(2) == "Ingress" else "Ingress"
            yield _replaced(lines, index, f"{match.group(1)}{other}")


def _drop_selector(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        match = _SELECTOR.match(line)
        if not match or line.lstrip().startswith("-"):
            continue
        depth = len(match.group(1))
        end = index + 1
        while end < len(lines) and _indent(lines[end]) > depth and lines[end].strip():
            end += 1
        yield [*lines[:index], *lines[end:]]


def _label_typo(lines: list[str]) -> Iterator[list[str]]:
    for index in range(len(lines)):
        inline = _INLINE_LABELS.match(lines[index])
        if inline:
            head, value, tail = inline.groups()
            yield _replaced(lines, index, f"{head}{value}x{tail}")
            continue
        match = _KEY_VALUE.match(lines[index])
        if index and match and _LABEL_PARENT.match(lines[index - 1]):
            indent, key, value = match.groups()
            yield _replaced(lines, index, f"{indent}{key}: {value}x")


def _widen_cidr(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        match = _CIDR.match(line)
        if match and int(match.group(3)) >= 8:
            prefix = int(match.group(3)) - 8
            yield _replaced(lines, index, f"{match.group(1)}{match.group(2)}/{prefix}")


def wildcard_verbs(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        match = _VERBS.match(line)
        if not match or "'*'" in line or '"*"' in line:
            continue
        end = index + 1
        while (
            end < len(lines)
            and lines[end].lstrip().startswith("- ")
            and (
                _indent(lines[end]) >= _indent(line)
                and not _KEY_VALUE.match(lines[end].replace("- ", "", 1))
            )
        ):
            end += 1
        yield [*lines[:index], f"{match.group(1)} ['*']", *lines[end:]]


_MORE_VERBS = ("delete", "create", "patch", "update", "list", "watch", "get")
_FLOW_VERBS = re.compile(r"^(\s*(?:-\s+)?verbs:\s*\[)([^\]]*)(\].*)$")
_RULE_LISTS = re.compile(r"^(\s*)(?:-\s+)?(rules|ingress|egress):\s*$")


def _extra_verb(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        flow = _FLOW_VERBS.match(line)
        if flow:
            have = {v.strip().strip("'\"") for v in flow.group(2).split(",")}
            extra = next((v for v in _MORE_VERBS if v not in have), None)
            if extra and "*" not in have:
                joined = f"{flow.group(2)}, {extra}" if flow.group(2).strip() else extra
                yield _replaced(lines, index, f"{flow.group(1)}{joined}{flow.group(3)}")
            continue
        if not _VERBS.match(line) or line.rstrip().endswith("]"):
            continue
        items = []
        end = index + 1
        while end < len(lines) and lines[end].lstrip().startswith("- "):
            items.append(lines[end].strip()[2:].strip().strip("'\""))
            end += 1
        extra = next((v for v in _MORE_VERBS if v not in items), None)
        if items and extra and "*" not in items:
            dash = lines[index + 1][: _indent(lines[index + 1])]
            yield [*lines[:end], f"{dash}- {extra}", *lines[end:]]


def _drop_rule(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        match = _RULE_LISTS.match(line)
        if not match:
            continue
        depth = _indent(line)
        starts: list[tuple[int, int]] = []
        end = index + 1
        while end < len(lines) and lines[end].strip():
            here = _indent(lines[end])
            if here < depth or (here == depth and not lines[end].lstrip().startswith("- ")):
                break
            if lines[end].lstrip().startswith("- ") and (not starts or here == starts[0][1]):
                starts.append((end, here))
            end += 1
        bounds = [start for start, _ in starts] + [end]
        for first, after in itertools.pairwise(bounds):
            yield [*lines[:first], *lines[after:]]


def _cluster_binding(lines: list[str]) -> Iterator[list[str]]:
    if not any(line.strip() == "kind: RoleBinding" for line in lines):
        return
    renamed = {"kind: RoleBinding": "ClusterRoleBinding", "kind: Role": "ClusterRole"}
    yield [
        line.replace(line.strip(), f"kind: {renamed[line.strip()]}")
        if line.strip() in renamed
        else line
        for line in lines
    ]


def _drop_resource_names(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        if line.lstrip().lstrip("- ").startswith("resourceNames:"):
            end = index + 1
            while (
                end < len(lines)
                and lines[end].lstrip().startswith("- ")
                and (_indent(lines[end]) >= _indent(line))
            ):
                end += 1
            yield [*lines[:index], *lines[end:]]


def _drop_limit(lines: list[str]) -> Iterator[list[str]]:
    for index in range(len(lines)):
        if lines[index].strip() != "limits:":
            continue
        depth = _indent(lines[index])
        end = index + 1
        while end < len(lines) and _indent(lines[end]) > depth and lines[end].strip():
            yield [*lines[:end], *lines[end + 1 :]]
            end += 1


def _weaken_security(lines: list[str]) -> Iterator[list[str]]:
    for index, line in enumerate(lines):
        for strong, weak in _SECURITY.items():
            if line.strip() == strong:
                yield _replaced(lines, index, line.replace(strong, weak))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


OPERATORS: dict[str, Edit] = {
    "port-off-by-one": _port_off_by_one,
    "flip-policy-type": _flip_policy_type,
    "drop-selector": _drop_selector,
    "label-typo": _label_typo,
    "widen-cidr": _widen_cidr,
    "wildcard-verbs": wildcard_verbs,
    "extra-verb": _extra_verb,
    "drop-rule": _drop_rule,
    "cluster-binding": _cluster_binding,
    "drop-resource-names": _drop_resource_names,
    "drop-limit": _drop_limit,
    "weaken-security": _weaken_security,
}
