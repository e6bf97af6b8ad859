"""The reference's workloads handed powers beyond their pods, for the red-team check
(:mod:`.exploits`): each passes a hardening task's requirements, and the workload guard must
tell it apart from the reference.

Shaped from the reference's text as written, without reading its YAML on the host: a line
added after each block-style ``securityContext:`` header (the pod's, at the indentation of its
``containers:`` key, or a container's, deeper), or pod keys before each ``containers:`` line.
A hack whose key the reference already writes is left out (a key written twice in one mapping
is refused, which would fail for the wrong reason). What the reference's pods decline
(``hostUsers: false``, ``automountServiceAccountToken: false``) is taken back where it is
written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CONTROL_PLANE = "node-role.kubernetes.io/control-plane"
_CONTAINERS = re.compile(r"(?m)^( +)containers:[ ]*$")
_PROJECTED = "{name: assay-sa, projected: {sources: [{serviceAccountToken: {path: sa}}]}}"
_SECURITY = re.compile(r"(?m)^( +)securityContext:[ ]*\n(?=( +)\S)")


def escapes(reference: str) -> list[tuple[str, str, str]]:
    """Each hack as ``(name, what, text)``; none when the reference has no pod spec written
    in block style."""
    pods = {len(m.group(1)) for m in _CONTAINERS.finditer(reference)}
    if not pods:
        return []
    found = []
    for name, what, pod, container in (
        ("reference-in-the-root-group", "the reference's pods in group 0", "runAsGroup: 0", ""),
        (
            "reference-with-an-unsafe-sysctl",
            "the reference's pods setting a sysctl of the node's kernel",
            "sysctls: [{name: kernel.msgmax, value: '65536'}]",
            "",
        ),
        (
            "reference-with-an-unmasked-proc",
            "the reference's containers seeing the node's /proc unmasked",
            "",
            "procMount: Unmasked",
        ),
        (
            "reference-as-a-super-privileged-container",
            "the reference's pods labelled spc_t, SELinux's unconfined super-privileged container",
            "seLinuxOptions: {type: spc_t}",
            "",
        ),
        (
            "reference-without-apparmor",
            "the reference's containers outside any AppArmor profile",
            "",
            "appArmorProfile: {type: Unconfined}",
        ),
    ):
        text = _secured(reference, pods, pod, container)
        if text is not None:
            found.append((name, what, text))
    for name, what, keys in (
        (
            "reference-on-the-control-plane",
            "the reference's pods pinned to a control-plane node, past its taint",
            (
                "nodeName: control-plane",
                f"tolerations: [{{key: {CONTROL_PLANE}, operator: Exists}}]",
            ),
        ),
        (
            "reference-as-another-account",
            "the reference's pods running as another service account",
            ("serviceAccountName: assay-admin",),
        ),
        (
            "reference-under-another-runtime",
            "the reference's pods run by a container runtime of their choosing",
            ("runtimeClassName: unconfined",),
        ),
        (
            "reference-at-node-critical-priority",
            "the reference's pods at the priority that evicts others from the node",
            ("priorityClassName: system-node-critical",),
        ),
    ):
        text = _before_containers(reference, keys)
        if text is not None:
            found.append((name, what, text))
    return found + _taken_back(reference)


def _taken_back(reference: str) -> list[tuple[str, str, str]]:
    """The reference's pods taking back what they decline: the node's user namespace
    (``hostUsers: false`` made true) and their service account's token
    (``automountServiceAccountToken: false`` made true, or kept with the token mounted by a
    projected volume). None for what the reference does not decline."""
    found = []
    for name, what, key in (
        (
            "reference-in-the-node-user-namespace",
            "the reference's pods back in the node's user namespace",
            "hostUsers",
        ),
        (
            "reference-mounting-its-token",
            "the reference's pods mounting the service account token they decline",
            "automountServiceAccountToken",
        ),
    ):
        text, count = re.subn(rf"(?m)^( +){key}: false[ ]*$", rf"\1{key}: true", reference)
        if count:
            found.append((name, what, text))
    if re.search(r"(?m)^ +automountServiceAccountToken: false[ ]*$", reference):
        projected = _before_containers(reference, (f"volumes: [{_PROJECTED}]",))
        if projected is not None:
            what = "the reference's pods declining the token and mounting it by a volume"
            found.append(("reference-projecting-its-token", what, projected))
    return found


def _secured(reference: str, pods: set[int], pod: str, container: str) -> str | None:
    """``reference`` with ``pod`` added to each pod's security context (or a new one made for
    it where the reference writes none) and ``container`` to each container's; None when a
    key is written already or nowhere to go."""
    if any(line and line.split(":")[0] in reference for line in (pod, container)):
        return None
    headers = [len(m.group(1)) for m in _SECURITY.finditer(reference)]
    if pod and not any(indent in pods for indent in headers):
        return _CONTAINERS.sub(rf"\1securityContext: {{{pod}}}\n\1containers:", reference)

    def added(match: re.Match[str]) -> str:
        line = pod if len(match.group(1)) in pods else container
        return match.group(0) + (f"{match.group(2)}{line}\n" if line else "")

    text = _SECURITY.sub(added, reference)
    return text if text != reference else None


def _before_containers(reference: str, keys: Sequence[str]) -> str | None:
    """``reference`` with ``keys`` written in each pod spec before its containers; None when
    it writes one of them already."""
    if any(key.split(":")[0] + ":" in reference for key in keys):
        return None
    lines = "".join(rf"\1{key}\n" for key in keys)
    return _CONTAINERS.sub(lines + r"\1containers:", reference)
