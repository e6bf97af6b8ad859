"""Sensitivity probes, and states too large to be an answer."""

from __future__ import annotations

import pytest

from assay.families.base import SensitivityFamily
from assay.families.workflow import WorkflowFamily, cloud
from assay.sandbox import LocalSandbox
from assay.verdicts import Status
from tests.families.workflow.tasks import router_task

pytestmark = pytest.mark.sandbox
family = WorkflowFamily()


def test_the_reference_fails_every_probe() -> None:
    assert isinstance(family, SensitivityFamily)
    task = router_task()
    probes = family.probes(task)
    assert {probe.name for probe in probes} == {
        "queue:orders-eu",
        "bucket:inbox",
        "logs:/ops/router",
    }
    for probe in probes:
        verdict = family.verify(probe.task, task.solutions["reference"], LocalSandbox())
        assert verdict.status is Status.FAIL, probe.name
        assert probe.name in {c.name for c in verdict.criteria if not c.passed}


def test_a_state_too_large_to_read_is_a_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cloud, "MAX_OBJECTS", 40)
    script = b"""
import boto3
s3 = boto3.client("s3")
for n in range(60):
    s3.put_object(Bucket="inbox", Key=f"spam/{n}", Body=b"x")
"""
    verdict = family.verify(router_task(), {"solution.py": script}, LocalSandbox())
    assert verdict.status is Status.FAIL
    failed = {c.name: c.evidence for c in verdict.criteria if not c.passed}
    assert "too large to be an answer: more than 40 objects" in failed["state"]
