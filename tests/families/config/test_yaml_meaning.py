"""YAML read as Kubernetes reads it: ``kubectl`` turns YAML into JSON with go-yaml v2, whose
plain scalars and merge keys do not mean what PyYAML makes of them. A submission must be judged
by what the cluster would hold, so a number Kubernetes reads is a number here, text it reads is
text, and a mapping whose meaning depends on the reader is refused."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from assay.families.config import ConfigFamily
from assay.families.config.documents import placed
from assay.families.config.generator import draft
from assay.families.config.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.verdicts import Status
from tests.families.config.conftest import fixture_task

family = ConfigFamily()


def _reference() -> bytes:
    return fixture_task().solutions["reference"]["policy.yaml"]


def _with_a_rule_for_everyone(port: str) -> bytes:
    """The reference, and a rule that lets every pod in on ``port`` as it is written."""
    rule = f"  - from: [{{namespaceSelector: {{}}}}]\n    ports: [{{port: {port}}}]\n"
    return _reference().replace(b"  ingress:\n", b"  ingress:\n" + rule.encode())


@pytest.mark.parametrize("port", ["0o12470", "5432e0", "54320e-1"])
def test_a_port_kubernetes_reads_as_a_number_is_that_number(port: str, pool: PoolSandbox) -> None:
    # PyYAML reads these as text, a port name no pod declares, so the rule let nobody in and
    # the submission passed; go-yaml v2 reads them as 5432 and lets every pod reach the database.
    verdict = family.verify(fixture_task(), {"policy.yaml": _with_a_rule_for_everyone(port)}, pool)
    assert verdict.status is Status.FAIL
    failed = {c.name for c in verdict.criteria if not c.passed}
    assert "nothing else reaches the database on 5432" in failed, verdict.criteria


def test_a_port_kubernetes_reads_as_text_is_text(pool: PoolSandbox) -> None:
    # PyYAML reads 90:32 as the base-60 number 5432; to Kubernetes it is a port name it refuses.
    data = _reference().replace(b"port: 5432}", b"port: 90:32}")
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert "'90:32' is not a valid port name" in verdict.criteria[0].evidence, verdict.criteria


@pytest.mark.parametrize("port", ["0o12470", "5432.0", "5_432", "0x1538"])
def test_the_reference_with_its_port_written_another_way_kubernetes_reads_passes(
    port: str, pool: PoolSandbox
) -> None:
    data = _reference().replace(b"port: 5432}", f"port: {port}}}".encode())
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.PASS, verdict.criteria


def test_a_key_both_written_and_merged_is_refused(pool: PoolSandbox) -> None:
    # go-yaml v2 applies a merge where it stands, so the allow-all merged after the written
    # rules is what the cluster holds; PyYAML keeps the written rules and passed it.
    data = _reference() + b"  <<: {ingress: [{}]}\n"
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert "key 'ingress' is both written and merged (<<)" in verdict.criteria[0].evidence


def test_merged_keys_that_clash_with_nothing_are_read(pool: PoolSandbox) -> None:
    data = _reference().replace(
        b"  podSelector:\n    matchLabels: {app: postgres}\n  policyTypes: [Ingress]\n",
        b"  <<: {podSelector: {matchLabels: {app: postgres}}, policyTypes: [Ingress]}\n",
    )
    assert data != _reference()
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.PASS, verdict.criteria


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize(
    "hack",
    [
        "reference-and-a-merged-allow-all",
        "reference-and-a-listed-allow-all",
        "reference-opened-by-octal-ports",
        "reference-and-a-port-y",
    ],
)
def test_the_red_team_tries_what_only_kubernetes_reads(
    hack: str, seed: int, pool: PoolSandbox
) -> None:
    [template] = [t for t in TEMPLATES if t.id == "netpol-db-only-from-client"]
    task = draft(template, random.Random(seed), 0, 0, style="precise", locale="en")
    [exploit] = [e for e in family.exploits(task) if e.name == hack]
    verdict = family.verify(task, exploit.files, pool)
    assert verdict.status is Status.FAIL, verdict.criteria
    assert verdict.score < 1.0


def test_content_after_a_document_separator_is_refused_as_kubectl_refuses_it(
    pool: PoolSandbox,
) -> None:
    # YAML reads `--- {...}` as a document; kubectl cuts documents at lines starting with ---
    # and refuses the whole file, so nothing of it would reach the cluster.
    data = b"--- " + json.dumps(yaml.safe_load(_reference())).encode() + b"\n"
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert "follows ---, which kubectl refuses" in verdict.criteria[0].evidence, verdict.criteria


@pytest.mark.parametrize("word", ["y", "N"])
def test_a_plain_y_or_n_in_a_submission_is_the_boolean_kubectl_reads(
    word: str, pool: PoolSandbox
) -> None:
    # PyYAML reads `port: y` as a port name no pod declares, a rule that lets nobody in, and
    # the reference beside it passed; kubectl reads a boolean, and the API server refuses the
    # whole policy, so nothing of it would isolate the database.
    verdict = family.verify(fixture_task(), {"policy.yaml": _with_a_rule_for_everyone(word)}, pool)
    assert verdict.status is Status.FAIL
    assert "is not valid under any of the given schemas" in verdict.criteria[0].evidence


def _as_list(kind: str, *objects: dict[str, object], api_version: str = "v1") -> bytes:
    return yaml.safe_dump(
        {"apiVersion": api_version, "kind": kind, "items": list(objects)}
    ).encode()


def _reference_object() -> dict[str, object]:
    loaded = yaml.safe_load(_reference())
    assert isinstance(loaded, dict)
    return loaded


def test_the_reference_as_a_list_kubectl_applies_passes(pool: PoolSandbox) -> None:
    # kubectl applies the items of a v1 List, and of a typed list whose items name no kind
    # (the list's, less "List"); both were refused as a kind the task does not accept
    plain = _reference_object()
    bare = {key: value for key, value in plain.items() if key not in ("kind", "apiVersion")}
    for data in (
        _as_list("List", plain),
        _as_list("NetworkPolicyList", bare, api_version="networking.k8s.io/v1"),
    ):
        verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
        assert verdict.status is Status.PASS, verdict.criteria


def test_an_object_inside_a_list_is_judged_as_any_other(pool: PoolSandbox) -> None:
    everyone = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "let-everyone-in", "namespace": "data"},
        "spec": {"podSelector": {}, "ingress": [{}]},
    }
    data = _as_list("List", _reference_object(), everyone)
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    failed = {c.name for c in verdict.criteria if not c.passed}
    assert "nothing else reaches the database on 5432" in failed, verdict.criteria
    # and each item is checked against the kinds and the schema, named by its place
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
    data = _as_list("List", _reference_object(), secret)
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert verdict.criteria[0].name == "policy.yaml document 1 item 2", verdict.criteria
    assert "kind 'Secret' is not one this task accepts" in verdict.criteria[0].evidence


@pytest.mark.parametrize(
    ("items", "problem"),
    [
        ("[1, 2]", "a list whose items are not all objects"),
        ("'none'", "a list whose items are not all objects"),
        ("[{kind: List, items: []}]", "a list that holds a list"),
    ],
)
def test_a_list_kubectl_would_refuse_is_refused(
    items: str, problem: str, pool: PoolSandbox
) -> None:
    data = f"apiVersion: v1\nkind: List\nitems: {items}\n".encode()
    verdict = family.verify(fixture_task(), {"policy.yaml": data}, pool)
    assert verdict.status is Status.FAIL
    assert verdict.criteria[0].name == "policy.yaml document 1", verdict.criteria
    assert problem in verdict.criteria[0].evidence


def test_items_without_a_kind_take_the_lists_less_its_list() -> None:
    """As kubectl's reader: the kind of a typed list less its "List" (a kind that does not end
    in it is kept whole, once cut to "NetworkPo"), nothing from a plain List."""
    bare = {"metadata": {"name": "x"}}
    kinds = {
        kind: placed([{"apiVersion": "v1", "kind": kind, "items": [bare]}])[0].value
        for kind in ("PodList", "List", "NetworkPolicy")
    }
    assert {kind: value["kind"] for kind, value in kinds.items()} == {  # type: ignore[index]
        "PodList": "Pod",
        "List": "",
        "NetworkPolicy": "NetworkPolicy",
    }
