"""A network policy that names today's pods by their addresses (an ``ipBlock`` of each pod's
``/32``) instead of by their labels admits exactly the pods of the cluster as it is, and meets
every requirement about them; the next replica of a workload, which gets another address, is
cut off. Each such policy fails, where the reference passes."""

from __future__ import annotations

import random

import pytest
import yaml

from assay.families.config import ConfigFamily
from assay.families.config.cluster import cluster_from_objects
from assay.families.config.generator import draft
from assay.families.config.network import policy_from_object
from assay.families.config.templates import TEMPLATES
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status

family = ConfigFamily()


def _task(template_id: str, seed: int) -> Task:
    [template] = [t for t in TEMPLATES if t.id == template_id]
    return draft(template, random.Random(seed), 0, 0, style="precise", locale="en")


def _by_address(task: Task) -> bytes:
    """The reference with every selector peer replaced by the addresses of the pods it matches."""
    cluster_objects = list(yaml.safe_load_all(task.workspace["cluster.yaml"].decode()))
    cluster = cluster_from_objects([o for o in cluster_objects if o])
    reference = task.solutions["reference"]
    objects = [o for name in sorted(reference) for o in yaml.safe_load_all(reference[name]) if o]
    changed = 0
    for obj in objects:
        policy = policy_from_object(obj)
        for direction, side in (("ingress", "from"), ("egress", "to")):
            for number, rule in enumerate(obj["spec"].get(direction) or []):
                peers = getattr(policy, direction)[number].peers
                if not peers or any(peer.ip_block is not None for peer in peers):
                    continue
                rule[side] = [
                    {"ipBlock": {"cidr": f"{pod.ip}/32"}}
                    for pod in cluster.pods
                    if pod.ip is not None
                    and any(peer.matches(pod, policy.namespace, cluster) for peer in peers)
                ]
                changed += 1
    assert changed, "the reference has no selector peer to replace"
    return yaml.safe_dump_all(objects).encode()


@pytest.mark.parametrize("seed", [1, 4])
@pytest.mark.parametrize("template", ["netpol-db-only-from-client", "netpol-egress-dns-and-db"])
def test_pods_named_by_their_addresses_fail(template: str, seed: int, pool: PoolSandbox) -> None:
    task = _task(template, seed)
    assert family.verify(task, task.solutions["reference"], pool).status is Status.PASS
    verdict = family.verify(task, {"objects.yaml": _by_address(task)}, pool)
    assert verdict.status is Status.FAIL, verdict.summary
    cut = [c for c in verdict.criteria if not c.passed]
    assert any("replica made later" in c.evidence for c in cut), [c.evidence for c in cut]
