"""The config family's task settings (``[config]`` in task.toml)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.errors import TaskFormatError
from assay.families.config.schema import supported_versions
from assay.tasks.model import Task

EXPECTED_FILE = "expected.toml"
"""The file of ``hidden/`` that holds what the submission must mean (:mod:`.expectations`)."""
READING_PREFIX = "expected-"
"""``hidden/expected-<reading>.toml``: what another reasonable reading of the prompt requires."""
SUBMITTABLE = (
    "NetworkPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "Service",
)


class ConfigSpec(BaseModel):
    """The Kubernetes version, the cluster and what a submission may hold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kubernetes: str = Field(
        default="1.33",
        pattern=r"^1\.[0-9]+$",
        description="Kubernetes version (major.minor) whose schemas objects are validated against.",
    )
    cluster: str = Field(
        default="cluster.yaml",
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.ya?ml$",
        description="The cluster description in workspace/: Namespace, Pod and RBAC objects.",
    )
    kinds: tuple[str, ...] = Field(
        default=("NetworkPolicy",),
        min_length=1,
        description="The kinds a submission may hold; any other kind fails (a submission may "
        "not relabel namespaces or add pods to meet the requirement).",
    )

    @field_validator("kubernetes")
    @classmethod
    def _supported(cls, value: str) -> str:
        if value not in supported_versions():
            raise ValueError(f"no schemas for Kubernetes {value}: use {supported_versions()[-1]}")
        return value

    @field_validator("kinds")
    @classmethod
    def _submittable(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - set(SUBMITTABLE))
        if unknown:
            raise ValueError(f"{', '.join(unknown)}: use some of {', '.join(SUBMITTABLE)}")
        return value


def config_spec(task: Task) -> ConfigSpec:
    """The task's ``[config]`` settings; raises :class:`TaskFormatError` naming the field."""
    try:
        return ConfigSpec.model_validate(task.spec.config)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "config." + ".".join(str(p) for p in first["loc"])
        raise TaskFormatError(
            first["msg"].removeprefix("Value error, "),
            path=f"{task.id}/task.toml",
            field=field,
            fix="correct the [config] table",
        ) from None
