"""What a submission must mean: ``hidden/expected.toml``, and judging a meaning against it.

Five kinds of requirement, each a criterion on the verdict:

``[[reachability]]``
    ``from`` and ``to`` (a pod ``ns/name``, ``ns/*`` for every pod of a namespace, ``*`` for
    every pod, or a list of these), ``port`` (omitted: every port the destination declares) and
    ``protocol`` (``TCP``), and ``allowed``. Every ordered pair of distinct pods it covers is
    checked. A later requirement overrides an earlier one on the pairs they share, so "nothing
    reaches the database" followed by "the api pods reach it" reads as it is written.
``[[permissions]]``
    ``subject`` (``User:NAME``, ``Group:NAME``, ``ServiceAccount:NS/NAME``), ``verbs``,
    ``group`` (``""``: the core group), ``resource`` (``pods/log`` for a subresource),
    ``namespace`` (omitted: cluster-scoped, or across all namespaces), ``names`` (resource names
    to ask about; omitted: a request without a name) and ``allowed``.
``[[only]]``
    ``subject`` and a list ``allow`` of ``{verbs, groups, resources, namespace, names}``: every
    rule the subject holds must lie inside one of them (``namespace`` omitted: anywhere). This
    is "and nothing else": a wildcard the envelope does not grant, a cluster-wide grant where a
    namespace was allowed, or a rule without ``resourceNames`` where names were allowed, fails.
``[[containers]]``
    ``workload`` (``Kind ns/name``) and what each of its containers must have: ``limits`` and
    ``requests`` (resource names), ``max_limits`` (resource to quantity), ``run_as_non_root``
    (and not user 0), ``read_only_root_filesystem``, ``no_privilege_escalation``,
    ``drop_all_capabilities`` (and none added back), ``images`` (container name to image: the
    containers must be exactly these). Init containers are checked too, and ephemeral
    containers for all but resources; a privileged container fails any hardening setting.
``[[services]]``
    ``service`` (``ns/name``) and ``selects``, the pods it must select, exactly, each reached
    on a port it declares, and ``ports``, the port numbers it must serve (see
    :mod:`.workloads`).

A task may have several reasonable readings: ``hidden/expected-<reading>.toml`` files beside
``expected.toml`` are read the same way, and a submission passes when it meets every
requirement of one of them.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from assay import _toml
from assay.errors import TaskFormatError
from assay.families.config.cluster import Cluster
from assay.families.config.meaning import Meaning
from assay.families.config.network import Reachability
from assay.families.config.rbac import ALL, Grant, Permissions, Subject, describe
from assay.families.config.selectors import ObjectError
from assay.families.config.spec import EXPECTED_FILE, READING_PREFIX
from assay.families.config.workloads import (
    ContainerRules,
    container_problems,
    quantity,
    service_problems,
)
from assay.tasks.model import Task
from assay.verdicts import Criterion

MAX_EVIDENCE = 5
MAX_RANGE_PORTS = 1024
"""The most ports one reachability requirement's range covers (each is judged for every pair of
pods it names)."""
"""Differences named in a criterion's evidence; the rest are counted."""
ConnectionKey = tuple[str, str, int, str]
"""A connection a requirement decides: source and destination pods, port and protocol."""


def _subject(value: str) -> str:
    Subject.parse(value)
    return value


class ReachabilityCheck(BaseModel):
    """Whether some pods may reach others on a port."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    name: str | None = Field(default=None, description="Criterion name; derived when omitted.")
    sources: str | list[str] = Field(alias="from", description="Source pods.")
    destinations: str | list[str] = Field(alias="to", description="Destination pods.")
    port: int | None = Field(
        default=None, ge=1, le=65535, description="None: every port the destination declares."
    )
    end_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="With port: every port from port to end_port, declared or not (a pod may "
        "listen on a port it does not declare, and a policy decides it all the same).",
    )
    protocol: Literal["TCP", "UDP", "SCTP"] = Field(default="TCP", description="With port.")
    allowed: bool = Field(description="The expected answer for every pair covered.")

    @model_validator(mode="after")
    def _range(self) -> ReachabilityCheck:
        if self.end_port is None:
            return self
        if self.port is None or self.end_port < self.port:
            raise ValueError("end_port needs a port no greater than it")
        if self.end_port - self.port >= MAX_RANGE_PORTS:
            raise ValueError(f"a range may cover at most {MAX_RANGE_PORTS} ports; split it")
        return self

    def ports(self) -> range | None:
        """The port numbers the check covers; None: those the destination declares."""
        if self.port is None:
            return None
        return range(self.port, (self.end_port or self.port) + 1)

    def label(self) -> str:
        """The criterion's name."""
        if self.name:
            return self.name
        port = f":{self.port}" if self.port else ""
        port += f"-{self.end_port}" if self.end_port else ""
        port += f"/{self.protocol}" if self.port else ""
        return f"{_patterns(self.sources)} -> {_patterns(self.destinations)}{port}"


class PermissionCheck(BaseModel):
    """Whether a subject may make some requests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    subject: str
    verbs: list[str] = Field(min_length=1)
    group: str = ""
    resource: str = Field(min_length=1)
    namespace: str | None = None
    names: list[str] = Field(default_factory=list)
    allowed: bool

    _subject = field_validator("subject")(_subject)

    def label(self) -> str:
        """The criterion's name."""
        where = f"in {self.namespace}" if self.namespace else "cluster-wide"
        verdict = "may" if self.allowed else "may not"
        return (
            self.name or f"{self.subject} {verdict} {','.join(self.verbs)} {self.resource} {where}"
        )


class Allowed(BaseModel):
    """One part of an ``only`` envelope."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verbs: list[str] = Field(min_length=1)
    groups: list[str] = Field(default_factory=lambda: [""])
    resources: list[str] = Field(min_length=1)
    namespace: str | None = None
    names: list[str] = Field(default_factory=list)


class OnlyCheck(BaseModel):
    """Everything a subject holds lies inside ``allow``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    subject: str
    allow: list[Allowed] = Field(default_factory=list)

    _subject = field_validator("subject")(_subject)

    def label(self) -> str:
        """The criterion's name."""
        return self.name or f"{self.subject} holds nothing else"


class ContainersCheck(BaseModel):
    """What every container of a workload must have."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    workload: str = Field(pattern=r"^[A-Z][A-Za-z]+ [a-z0-9.-]+/[a-z0-9.-]+$")
    limits: list[str] = Field(default_factory=list)
    requests: list[str] = Field(default_factory=list)
    max_limits: dict[str, str] = Field(default_factory=dict)
    run_as_non_root: bool = False
    read_only_root_filesystem: bool = False
    no_privilege_escalation: bool = False
    drop_all_capabilities: bool = False
    images: dict[str, str] | None = None

    @field_validator("max_limits")
    @classmethod
    def _quantities(cls, value: dict[str, str]) -> dict[str, str]:
        for resource, text in value.items():
            if quantity(text) <= 0:  # no container's limit is at most that: no one can pass
                raise ValueError(f"{resource}: {text!r} is not a positive quantity")
        return value

    @field_validator("images")
    @classmethod
    def _containers(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is not None and not value:  # a workload has at least one container
            raise ValueError("names no container: leave images out, or name every container")
        if value is not None and not all(image.strip() for image in value.values()):
            raise ValueError("an empty image: name the image of every container")
        return value

    def label(self) -> str:
        """The criterion's name."""
        return self.name or f"the containers of {self.workload}"

    def rules(self) -> ContainerRules:
        """The rules to apply."""
        return ContainerRules(
            limits=self.limits,
            requests=self.requests,
            max_limits=self.max_limits,
            run_as_non_root=self.run_as_non_root,
            read_only_root_filesystem=self.read_only_root_filesystem,
            no_privilege_escalation=self.no_privilege_escalation,
            drop_all_capabilities=self.drop_all_capabilities,
            images=self.images,
        )


class ServiceCheck(BaseModel):
    """A Service selects exactly some pods and reaches a declared port of each."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    service: str = Field(pattern=r"^[a-z0-9.-]+/[a-z0-9.-]+$")
    selects: list[str] = Field(min_length=1)
    ports: list[int] = Field(default_factory=list, description="The ports it serves, exactly.")

    def label(self) -> str:
        """The criterion's name."""
        return self.name or f"Service {self.service} selects {', '.join(self.selects)}"


class Expectations(BaseModel):
    """The whole of ``hidden/expected.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reachability: list[ReachabilityCheck] = Field(default_factory=list)
    permissions: list[PermissionCheck] = Field(default_factory=list)
    only: list[OnlyCheck] = Field(default_factory=list)
    containers: list[ContainersCheck] = Field(default_factory=list)
    services: list[ServiceCheck] = Field(default_factory=list)
    _file: str = PrivateAttr(default=EXPECTED_FILE)

    @property
    def file(self) -> str:
        """The file of ``hidden/`` it was read from (a reading's own, or ``expected.toml``)."""
        return self._file

    def empty(self) -> bool:
        """Whether it requires nothing."""
        return not (
            self.reachability or self.permissions or self.only or self.containers or self.services
        )


def expectations(task: Task) -> Expectations:
    """The task's ``hidden/expected.toml``; raises :class:`TaskFormatError` when it is missing
    or malformed, or requires nothing."""
    if EXPECTED_FILE not in task.hidden:
        path = f"{task.id}/hidden/{EXPECTED_FILE}"
        raise TaskFormatError("missing", path=path, fix="write what the submission must mean")
    return _read(task, EXPECTED_FILE)


def readings(task: Task) -> dict[str, Expectations]:
    """Every reading of the task: ``""`` for ``expected.toml``, and ``<reading>`` for each
    ``expected-<reading>.toml``. Raises :class:`TaskFormatError` for any that is malformed."""
    found = {"": expectations(task)}
    for name in sorted(task.hidden):
        if name.startswith(f"{READING_PREFIX}") and name.endswith(".toml"):
            found[name.removeprefix(READING_PREFIX).removesuffix(".toml")] = _read(task, name)
    return found


def _read(task: Task, name: str) -> Expectations:
    path = f"{task.id}/hidden/{name}"
    try:
        found = Expectations.model_validate(_toml.loads(task.hidden[name].decode()))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise TaskFormatError(f"not TOML: {exc}", path=path, fix="write it as UTF-8 TOML") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise TaskFormatError(
            first["msg"].removeprefix("Value error, "),
            path=path,
            field=_field(first["loc"]),
            fix="see the config family's expected.toml fields",
        ) from None
    found._file = name
    if found.empty():
        raise TaskFormatError(
            "requires nothing",
            path=path,
            fix="add a [[reachability]], [[permissions]], [[only]], [[containers]] or "
            "[[services]] table",
        )
    return found


def judge(expected: Expectations, found: Meaning, task_id: str) -> tuple[Criterion, ...]:
    """One criterion per requirement of ``expected``, in the file's order by kind."""
    return tuple(
        judge_reachability(expected.reachability, found.reachability, task_id, expected.file)
        + judge_permissions(expected.permissions, found.permissions)
        + judge_only(expected.only, found.permissions)
        + judge_containers(expected.containers, found)
        + judge_services(expected.services, found)
    )


def judge_containers(checks: Sequence[ContainersCheck], found: Meaning) -> list[Criterion]:
    """One criterion per workload checked."""
    criteria = []
    for check in checks:
        workload = found.workloads.get(check.workload)
        if workload is None:
            wrong = [f"there is no {check.workload}"]
        else:
            try:
                wrong = container_problems(workload, check.rules())
            except ObjectError as exc:
                wrong = [str(exc)]
        count = len(workload.containers) if workload else 1
        criteria.append(criterion(check.label(), wrong, count, "containers"))
    return criteria


def judge_services(checks: Sequence[ServiceCheck], found: Meaning) -> list[Criterion]:
    """One criterion per Service checked."""
    criteria = []
    cluster = found.reachability.cluster
    for check in checks:
        service = found.services.get(check.service)
        if service is None:
            wrong = [f"there is no Service {check.service}"]
        else:
            wrong = service_problems(service, cluster, check.selects, check.ports)
        criteria.append(criterion(check.label(), wrong, len(check.selects), "services"))
    return criteria


def _field(loc: Sequence[int | str]) -> str:
    """A pydantic error location as ``reachability[1].from``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def judge_reachability(
    checks: Sequence[ReachabilityCheck],
    reach: Reachability,
    task_id: str,
    file: str = EXPECTED_FILE,
) -> list[Criterion]:
    """One criterion per check, over the pairs it owns (later checks override earlier ones);
    ``file`` is where the checks were read, for the errors that name it."""
    cluster = reach.cluster
    path = f"{task_id}/hidden/{file}"
    owner: dict[ConnectionKey, int] = {}
    for index, check in enumerate(checks):
        for key in _pairs(check, cluster, path, index):
            owner[key] = index
    owned = Counter(owner.values())
    for index in range(len(checks)):
        if not owned[index]:  # a check that can never fail
            raise TaskFormatError(
                "decides no connection: every pair it names is a pod and itself (always "
                "allowed) or is decided by a later requirement",
                path=path,
                field=f"reachability[{index}]",
                fix="name pods whose connections it decides, or drop it",
            )
    wrong: dict[int, list[str]] = {index: [] for index in range(len(checks))}
    for key, index in sorted(owner.items()):
        source, destination, port, protocol = key
        got = reach.allowed(cluster.pod(source), cluster.pod(destination), port, protocol)
        if got != checks[index].allowed:
            wrong[index].append(
                f"{source} -> {destination} :{port}/{protocol} expected "
                f"{_word(checks[index].allowed)}, got {_word(got)}"
            )
    return [
        criterion(check.label(), wrong[index], owned[index], "reachability")
        for index, check in enumerate(checks)
    ]


def judge_permissions(checks: Sequence[PermissionCheck], perms: Permissions) -> list[Criterion]:
    """One criterion per check: every verb (and name) answered as expected."""
    criteria = []
    for check in checks:
        subject = Subject.parse(check.subject)
        resource, _, subresource = check.resource.partition("/")
        wrong = []
        asked = 0
        for verb in check.verbs:
            names: list[str | None] = [*check.names] or [None]
            for name in names:
                asked += 1
                got = perms.can(
                    subject,
                    verb,
                    check.group,
                    resource,
                    check.namespace,
                    name=name,
                    subresource=subresource or None,
                )
                if got != check.allowed:
                    what = f"{verb} {check.resource}" + (f" {name}" if name else "")
                    where = f"in {check.namespace}" if check.namespace else "cluster-wide"
                    wrong.append(
                        f"{check.subject} {what} {where}: expected {_word(check.allowed)}, "
                        f"got {_word(got)}"
                    )
        criteria.append(criterion(check.label(), wrong, asked, "permissions"))
    return criteria


def judge_only(checks: Sequence[OnlyCheck], perms: Permissions) -> list[Criterion]:
    """One criterion per envelope: every grant of the subject lies inside it."""
    criteria = []
    for check in checks:
        grants = perms.grants(Subject.parse(check.subject))
        wrong = [
            f"beyond what is allowed: {describe(grant)}"
            for grant in grants
            if not _inside(grant, check.allow)
        ]
        criteria.append(criterion(check.label(), wrong, max(len(grants), 1), "only"))
    return criteria


def _inside(grant: Grant, allow: Sequence[Allowed]) -> bool:
    rule = grant.rule
    if rule.non_resource_urls:
        return False
    return all(
        any(
            (entry.namespace is None or entry.namespace == grant.namespace)
            and _within(verb, entry.verbs)
            and _within(group, entry.groups)
            and _within(resource, entry.resources)
            and (
                not entry.names
                or (bool(rule.resource_names) and set(rule.resource_names) <= set(entry.names))
            )
            for entry in allow
        )
        for verb in rule.verbs
        for group in rule.api_groups
        for resource in rule.resources
    )


def _within(value: str, allowed: Sequence[str]) -> bool:
    """A literal value of a rule (``*`` included) lies inside ``allowed`` only if ``allowed``
    holds it or ``*``."""
    return ALL in allowed or value in allowed


def decided(expected: Expectations, cluster: Cluster, task_id: str) -> set[ConnectionKey]:
    """Every connection between pods of ``cluster`` that a ``[[reachability]]`` requirement
    of ``expected`` decides, as ``(source, destination, port, protocol)``."""
    path = f"{task_id}/hidden/{expected.file}"
    return {
        key
        for index, check in enumerate(expected.reachability)
        for key in _pairs(check, cluster, path, index)
    }


def _pairs(
    check: ReachabilityCheck, cluster: Cluster, path: str, index: int
) -> list[ConnectionKey]:
    sources = _select(check.sources, cluster, path, f"reachability[{index}].from")
    destinations = _select(check.destinations, cluster, path, f"reachability[{index}].to")
    keys: list[ConnectionKey] = []
    for destination in destinations:
        pod = cluster.pod(destination)
        ports: list[tuple[int, str]]
        numbers = check.ports()
        if numbers is not None:
            ports = [(number, check.protocol) for number in numbers]
        else:
            ports = sorted({(p.number, p.protocol) for p in pod.ports})
        for source in sources:
            if source != destination:
                keys += [(source, destination, number, proto) for number, proto in ports]
    return keys


def _select(patterns: str | list[str], cluster: Cluster, path: str, field: str) -> list[str]:
    if not _listed(patterns):  # a requirement about no pod is met by anything
        raise TaskFormatError(
            "names no pod", path=path, field=field, fix="name pods as namespace/name, ns/* or *"
        )
    chosen: list[str] = []
    for pattern in _listed(patterns):
        if pattern == "*":
            found = [pod.ref for pod in cluster.pods]
        elif pattern.endswith("/*"):
            found = [pod.ref for pod in cluster.pods if pod.namespace == pattern[:-2]]
        else:
            found = [pod.ref for pod in cluster.pods if pod.ref == pattern]
        if not found:
            raise TaskFormatError(
                f"{pattern!r} names no pod of the cluster",
                path=path,
                field=field,
                fix="name pods of the cluster file as namespace/name, namespace/* or *",
            )
        chosen += [ref for ref in found if ref not in chosen]
    return chosen


def _listed(patterns: str | list[str]) -> list[str]:
    return [patterns] if isinstance(patterns, str) else list(patterns)


def _patterns(patterns: str | list[str]) -> str:
    return ",".join(_listed(patterns))


def _word(allowed: bool) -> str:
    return "allowed" if allowed else "denied"


def criterion(
    name: str, wrong: list[str], checked: int, kind: str, *, clean: str = "all as expected"
) -> Criterion:
    """A criterion named ``name`` that passes when nothing is ``wrong``: its evidence the first
    differences and a count of the rest, else how many were ``checked`` and ``clean``."""
    evidence = "; ".join(wrong[:MAX_EVIDENCE])
    if len(wrong) > MAX_EVIDENCE:
        evidence += f"; and {len(wrong) - MAX_EVIDENCE} more"
    if not wrong:
        evidence = f"{checked} checked, {clean}"
    return Criterion(name=name[:200], passed=not wrong, evidence=evidence[:2000], kind=kind)
