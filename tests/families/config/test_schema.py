"""Schema validation: the same answers as ``kubernetes-validate`` itself, from validators built
once per kind."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from assay.families.config.schema import schema_problem, supported_versions

POLICY: dict[str, Any] = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "x", "namespace": "data"},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
}
OBJECTS = [
    POLICY,
    {**POLICY, "spec": {"podSelecter": {}}},
    {**POLICY, "spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 1, "bogus": 1}]}]}},
    {**POLICY, "spec": {"podSelector": []}},
    {**POLICY, "metadata": {"name": 3}},
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "r"},
        "rules": [{"verbs": ["get"], "resources": ["pods"], "apiGroups": [""]}],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "r"},
        "rules": [{"verbs": "get"}],
    },
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}},
    {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"ports": [{"port": "eighty"}]},
    },
]


@pytest.mark.parametrize("obj", OBJECTS)
@pytest.mark.parametrize("version", ["1.30", "1.33"])
def test_the_answers_are_the_librarys(obj: dict[str, Any], version: str) -> None:
    assert version in supported_versions()
    try:
        kubernetes_validate.validate(obj, version, strict=True)
        expected = None
    except kubernetes_validate.ValidationError as exc:
        expected = ".".join(str(p) for p in exc.path) or "(the object)"
        expected += f": {exc.message}"
    assert schema_problem(obj, version) == expected


def test_kinds_and_versions_that_do_not_exist() -> None:
    assert schema_problem({**POLICY, "kind": "Frobnicator"}, "1.33") == (
        "Kubernetes 1.33 has no kind Frobnicator in networking.k8s.io/v1"
    )
    problem = schema_problem({**POLICY, "apiVersion": "../../x/v1"}, "1.33")
    assert problem == "apiVersion '../../x/v1' is not a Kubernetes API version"
    assert schema_problem({**POLICY, "kind": "../Pod"}, "1.33") == (
        "kind '../Pod' is not a Kubernetes kind"
    )
