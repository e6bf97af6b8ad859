"""Hostile submissions to the config verifier: each is a ``fail`` with evidence naming what was
wrong, never an ``error``, never a crash of the trusted side."""

from __future__ import annotations

import random

import pytest

from assay.families.config import ConfigFamily
from assay.sandbox import PoolSandbox, Sandbox
from assay.verdicts import Status
from tests.families.config.conftest import fixture_task, with_config

family = ConfigFamily()


def _laughs(levels: int = 9) -> bytes:
    """The "billion laughs": nine levels of nine aliases each, a few hundred bytes."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        name, previous = chr(97 + level), chr(96 + level)
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
    return "\n".join(lines).encode() + b"\n"


POLICY = b"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
ATTACKS: dict[str, tuple[bytes, str]] = {
    "invalid yaml": (b"kind: [unclosed\n  - : :\n", "ParserError"),
    "billion laughs": (_laughs(), "once aliases are expanded"),
    "recursive alias": (b"a: &a [*a]\n", "unfinished anchor"),
    "not utf-8": (b"kind: NetworkPolicy\nmetadata: {name: \xff\xfe}\n", "not UTF-8 text (byte 37)"),
    "python object": (b"!!python/object/apply:os.system ['touch /tmp/owned']\n", "python/object"),
    "python name": (b"x: !!python/name:os.system\n", "python/name"),
    "application tag": (b"!vault {a: 1}\n", "'!vault'"),
    "duplicate key": (POLICY + b"kind: Role\n", "key 'kind' appears twice"),
    "not a number": (b"a: .nan\n", "not finite"),
    "too deep": (b"a:\n" + b"".join(b"  " * i + b"- \n" for i in range(1, 80)), "nested more"),
    "too many documents": (b"---\na: 1\n" * 300, "more than 256 documents"),
    "huge integer": (  # out of Go's range: text to Kubernetes, so no port number
        POLICY + b"metadata: {name: x, namespace: data}\n"
        b"spec: {podSelector: {}, ingress: [{ports: [{port: " + b"9" * 5000 + b"}]}]}\n",
        "is not a valid port name",
    ),
    "a scalar": (b"just text\n", "is not a YAML mapping"),
    "a list": (b"- kind: NetworkPolicy\n", "is not a YAML mapping"),
    "secret": (
        b"apiVersion: v1\nkind: Secret\nmetadata: {name: x, namespace: data}\n",
        "kind 'Secret' is not one this task accepts",
    ),
    "unknown kind": (
        b"apiVersion: v1\nkind: Frobnicator\nmetadata: {name: x}\n",
        "kind 'Frobnicator' is not one this task accepts",
    ),
    "path in apiVersion": (
        b"apiVersion: ../../../etc/v1\nkind: NetworkPolicy\nmetadata: {name: x}\n",
        "is not a Kubernetes API version",
    ),
    "unknown field": (
        POLICY + b"metadata: {name: x, namespace: data}\n"
        b"spec: {podSelector: {}, ingress: [{ports: [{port: 5432, bogus: 1}]}]}\n",
        "Additional properties are not allowed ('bogus' was unexpected)",
    ),
    "wrong type": (
        POLICY + b"metadata: {name: x, namespace: data}\nspec: {podSelector: []}\n",
        "spec.podSelector",
    ),
    "version that does not exist": (
        b"apiVersion: networking.k8s.io/v7\nkind: NetworkPolicy\nmetadata: {name: x}\n",
        "has no kind NetworkPolicy in networking.k8s.io/v7",
    ),
    "refused by the API server": (
        POLICY + b"metadata: {name: x, namespace: data}\nspec: {podSelector: {}, ingress: "
        b"[{from: [{ipBlock: {cidr: 10.0.0.0/8, except: [11.0.0.0/8]}}]}]}\n",
        "must be a strict subset of 10.0.0.0/8",
    ),
    "a name the API server refuses": (
        POLICY + b"metadata: {name: Postgres_Ingress!, namespace: data}\nspec: {podSelector: {}}\n",
        "NetworkPolicy data/Postgres_Ingress!: metadata.name: 'Postgres_Ingress!' is not a "
        "DNS-1123 subdomain",
    ),
    "a namespace the API server refuses": (
        POLICY + b"metadata: {name: x, namespace: Data}\nspec: {podSelector: {}}\n",
        "NetworkPolicy Data/x: metadata.namespace: 'Data' is not a DNS-1123 label",
    ),
    "declared twice": (
        (POLICY + b"metadata: {name: x, namespace: data}\nspec: {podSelector: {}}\n---\n") * 2,
        "NetworkPolicy data/x is declared twice",
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_file_fails_with_evidence(attack: str, pool: PoolSandbox) -> None:
    data, evidence = ATTACKS[attack]
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    found = " | ".join(c.evidence for c in verdict.criteria if not c.passed)
    assert evidence in found, found


def test_the_alias_bomb_is_refused_before_it_is_built(sandbox: Sandbox) -> None:
    verdict = family.verify(fixture_task(), {"policy.yaml": _laughs()}, sandbox)
    assert verdict.status is Status.FAIL
    assert len(_laughs()) < 1000
    assert verdict.timings.sandbox_cpu_s < 2


def test_a_50_mb_file_is_refused_before_the_sandbox(pool: PoolSandbox) -> None:
    data = b"# " + b"x" * (50 << 20) + b"\n"
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert verdict.timings.sandbox_s == 0
    assert "more than the limit of 1048576" in verdict.criteria[0].evidence


def test_too_many_files_and_files_that_are_not_yaml_fail(pool: PoolSandbox) -> None:
    many = {f"p{i}.yaml": b"a: 1\n" for i in range(40)}
    verdict = family.verify(fixture_task(), many, pool)
    assert verdict.status is Status.FAIL
    assert "40 files, more than the limit of 32" in verdict.criteria[-1].evidence
    verdict = family.verify(fixture_task(), {"policy.json": b"{}"}, pool)
    assert verdict.status is Status.FAIL
    assert "not a YAML file" in verdict.criteria[0].evidence
    verdict = family.verify(fixture_task(), {}, pool)
    assert verdict.status is Status.FAIL
    assert "no YAML file was submitted" in verdict.criteria[0].evidence


def test_a_good_file_beside_a_hostile_one_still_fails(pool: PoolSandbox) -> None:
    task = fixture_task()
    files = {**task.solutions["reference"], "zz.yaml": _laughs()}
    verdict = family.verify(task, files, pool)
    assert verdict.status is Status.FAIL
    assert [c.name for c in verdict.criteria] == ["zz.yaml"]


def test_replacing_objects_of_the_cluster_is_refused(pool: PoolSandbox) -> None:
    pod = (
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: db-0, namespace: data, labels: {app: x}}\n"
        b"spec: {containers: [{name: a, image: a}]}\n"
    )
    verdict = family.verify(fixture_task(), {"policy.yaml": pod}, pool)
    assert verdict.status is Status.FAIL
    assert "kind 'Pod' is not one this task accepts" in verdict.criteria[0].evidence


TOKENS = [
    b"{}",
    b"[]",
    b"null",
    b"-1",
    b"0",
    b"70000",
    b'""',
    b"*",
    b"[{}]",
    b"true",
    b"1.5",
    b"{a: b}",
    b"[*]",
    b"::",
    b"0.0.0.0/0",
    b"10.0.0.0/33",
    b"&x",
    b"!!binary aGk=",
]


def _mutated(text: bytes, rng: random.Random) -> bytes:
    """``text`` with a few lines deleted, repeated or given another value."""
    lines = text.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        index = rng.randrange(len(lines))
        choice = rng.random()
        if choice < 0.3:
            del lines[index]
        elif choice < 0.5:
            lines.insert(index, lines[rng.randrange(len(lines))])
        else:
            key, colon, _value = lines[index].partition(b": ")
            lines[index] = key + (colon or b" ") + rng.choice(TOKENS)
        if not lines:
            lines = [b""]
    return b"\n".join(lines)


def test_mangled_references_are_judged_never_an_error(pool: PoolSandbox) -> None:
    task = fixture_task()
    reference = task.solutions["reference"]["policy.yaml"]
    rng = random.Random(7)
    statuses = set()
    for _ in range(120):
        verdict = family.verify(task, {"policy.yaml": _mutated(reference, rng)}, pool)
        assert verdict.status in (Status.PASS, Status.FAIL), verdict.summary
        assert verdict.status is Status.PASS or verdict.criteria
        statuses.add(verdict.status)
    assert statuses == {Status.PASS, Status.FAIL}


DEPLOYMENT = b"""apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  selector: {matchLabels: {app: SELECTED}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: api
        image: api:1
        ports: [{containerPort: PORT}]
        resources: {requests: {memory: REQUEST}, limits: {memory: 256Mi}}
"""


@pytest.mark.parametrize(
    ("port", "request_", "selected", "evidence"),
    [
        (b"-1", b"128Mi", b"api", "containerPort -1 is not in 1-65535"),
        (b"8080", b"512Mi", b"api", "requests.memory must be less than or equal to its limit"),
        (b"8080", b"lots", b"api", "'lots' is not a quantity"),
        (b"8080", b"-128Mi", b"api", "requests.memory must be greater than or equal to 0"),
        (b"8080", b"128Mi", b"apx", "spec.selector does not match the template's labels"),
    ],
)
def test_workloads_the_api_server_refuses_fail(
    port: bytes, request_: bytes, selected: bytes, evidence: str, pool: PoolSandbox
) -> None:
    task = with_config(fixture_task(), kinds=["Deployment"])
    data = DEPLOYMENT.replace(b"PORT", port).replace(b"REQUEST", request_)
    data = data.replace(b"SELECTED", selected)
    verdict = family.verify(task, {"deployment.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert evidence in verdict.criteria[0].evidence, verdict.criteria[0].evidence
