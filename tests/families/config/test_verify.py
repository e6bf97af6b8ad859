"""The hand-written NetworkPolicy task: the reference passes, each known-bad solution fails on
the requirement it breaks, with the pairs that differ as evidence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from assay.families import get_family, harness_code
from assay.families.config import ConfigFamily
from assay.sandbox import PoolSandbox, Sandbox
from assay.verdicts import Status
from tests.families.config.conftest import FIXTURES, ONLY_API, fixture_task

family = ConfigFamily()

BROKEN = {
    "bad-any-namespace": (
        "nothing else reaches the database on 5432",
        "web/api-gateway-0 -> data/db-0 :5432/TCP expected denied, got allowed",
    ),
    "bad-or-instead-of-and": (
        "nothing else reaches the database on 5432",
        "api/migrate-0 -> data/db-0 :5432/TCP expected denied, got allowed",
    ),
    "bad-missing-namespace-selector": (
        "the api pods reach the database on 5432",
        "api/api-7f9c -> data/db-0 :5432/TCP expected allowed, got denied",
    ),
    "bad-wrong-named-port": (
        "the api pods reach the database on 5432",
        "api/api-5d2b -> data/db-0 :5432/TCP expected allowed, got denied",
    ),
    "bad-forgot-metrics": (
        "prometheus still scrapes the database's metrics",
        "monitoring/prometheus-0 -> data/db-0 :9187/TCP expected allowed, got denied",
    ),
    "bad-isolates-the-namespace": (
        "all other traffic still flows",
        "api/api-5d2b -> data/cache-0 :6379/TCP expected allowed, got denied",
    ),
    "bad-selects-nothing": (
        "nothing else reaches the database on 5432",
        "web/web-0 -> data/db-0 :5432/TCP expected denied, got allowed",
    ),
    "bad-field-typo": (
        "policy.yaml document 1",
        "NetworkPolicy: spec: 'podSelector' is a required property",
    ),
}


def test_the_family_is_registered_with_its_reader_for_warm_workers() -> None:
    assert get_family("config").name == "config"
    assert any("_check_events" in code for code in harness_code())


def test_the_reference_passes_on_every_backend(sandbox: Sandbox) -> None:
    task = fixture_task()
    verdict = family.verify(task, task.solutions["reference"], sandbox)
    assert verdict.status is Status.PASS, verdict.summary
    assert verdict.score == 1.0
    assert [c.passed for c in verdict.criteria] == [True] * 6
    assert "49 checked" in verdict.criteria[3].evidence
    # the guards, after the requirements
    assert [c.name for c in verdict.criteria[4:]] == [
        "no one else gets in",
        "nothing else is cut off",
    ]
    assert verdict.versions.family.startswith("config@14+schemas-1.")
    assert any(p.lower().startswith("pyyaml==") for p in verdict.versions.python.packages)


def test_every_known_bad_solution_is_labelled_here() -> None:
    assert set(fixture_task().known_bad()) == set(BROKEN)


GUARDS = {
    "bad-selects-nothing": ["no one else gets in"],
    "bad-isolates-the-namespace": ["nothing else is cut off"],
}
BY_LABEL = b"namespaceSelector: {matchLabels: {team:"
"""How a known-bad solution names a namespace by a label its owner chose, which any namespace
made later may carry too: it lets that namespace in, as the reference (naming by name) does
not."""


@pytest.mark.parametrize("label", sorted(BROKEN))
def test_each_known_bad_solution_fails_on_what_it_breaks(label: str, pool: PoolSandbox) -> None:
    task = fixture_task()
    verdict = family.verify(task, task.solutions[label], pool)
    assert verdict.status is Status.FAIL, verdict.summary
    name, evidence = BROKEN[label]
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    guards = [n for n in failed if n in ("no one else gets in", "nothing else is cut off")]
    assert [n for n in failed if n not in guards] == [name], failed
    assert evidence in failed[name]
    # a policy that selects no pod leaves the database open to the internet too; one that
    # isolates the whole namespace cuts the cache off from it
    expected = GUARDS.get(label, [])
    refused = name.startswith("policy.yaml")  # refused whole: no guard judges it
    if not refused and any(BY_LABEL in text for text in task.solutions[label].values()):
        expected = sorted({"no one else gets in", *expected})
    assert guards == expected, failed


def test_doing_nothing_fails(pool: PoolSandbox) -> None:
    task = fixture_task()
    verdict = family.verify(task, family.empty_solution(task), pool)
    assert verdict.status is Status.FAIL
    assert "expected denied, got allowed" in verdict.criteria[0].evidence


def test_load_solution_reads_a_file_or_a_directory(tmp_path: Path) -> None:
    reference = FIXTURES / ONLY_API / "solutions" / "reference"
    assert family.load_solution(reference) == {
        "policy.yaml": (reference / "policy.yaml").read_bytes()
    }
    single = tmp_path / "mine.yml"
    single.write_bytes(b"x: 1\n")
    assert family.load_solution(single) == {"mine.yml": b"x: 1\n"}


def test_assay_verify_and_audit_on_the_task(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    task_dir = FIXTURES / ONLY_API
    reference = task_dir / "solutions" / "reference" / "policy.yaml"
    result = run_cli("verify", str(task_dir), "--solution", str(reference))
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output
    bad = task_dir / "solutions" / "bad-or-instead-of-and"
    result = run_cli("verify", str(task_dir), "--solution", str(bad))
    assert result.exit_code == 1, result.output
    assert "api/migrate-0 -> data/db-0" in result.output
    result = run_cli("audit", str(task_dir), "--json", str(tmp_path / "audit.json"))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "audit.json").read_text())
    (task,) = report["tasks"]
    assert task["decision"] == "accepted"
    statuses = {s["solution"]: s["status"] for s in task["solutions"]}
    assert statuses["reference"] == "pass"
    assert statuses["empty"] == "fail"
    assert {statuses[label] for label in BROKEN} == {"fail"}
