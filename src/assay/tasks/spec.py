"""The task spec: the typed contents of ``task.toml``."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AllowInfNan, BaseModel, ConfigDict, Field, Strict

Seconds = Annotated[float, Strict()]
"""A number of seconds: an integer or a float, never text or a boolean."""
Count = Annotated[int, Strict()]
"""A whole number: never text, a float or a boolean (which pydantic would otherwise take as 1)."""
Number = Annotated[float, Strict(), AllowInfNan(False)]
"""A finite number, an integer or a float: never text, a boolean, NaN or an infinity."""


class Split(StrEnum):
    """Which use a task is for. ``frozen`` tasks are evaluation-only and never exported."""

    TRAIN = "train"
    DEV = "dev"
    TEST = "test"
    FROZEN = "frozen"

    def drawn_for(self, asked: str | None) -> bool:
        """Whether a task of this split is drawn when ``asked`` names a split: only that one;
        with none named, every split but ``frozen``, which is drawn only by name."""
        return self is not Split.FROZEN if asked is None else self.value == asked


class Limits(BaseModel):
    """Resource limits for one sandboxed run. Each is a number as TOML writes it: ``"10"`` or
    ``true`` is refused, not converted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: Seconds = Field(
        default=10.0, gt=0, le=3600, description="Wall-clock limit, seconds."
    )
    cpu_s: Seconds = Field(default=10.0, gt=0, le=3600, description="CPU-time limit, seconds.")
    memory_mb: Count = Field(default=512, ge=16, le=65536, description="Memory limit, MiB.")
    max_processes: Count = Field(default=64, ge=1, le=4096, description="Processes at once.")
    max_file_mb: Count = Field(default=16, ge=1, le=4096, description="Largest file written, MiB.")
    max_files: Count = Field(
        default=16384,
        ge=64,
        le=1_000_000,
        description="Files and directories a job may hold at once in each of its scratch "
        "directories (/workspace and /tmp).",
    )
    max_output_kb: Count = Field(
        default=256, ge=1, le=65536, description="Captured stdout and stderr, each, KiB."
    )


TASK_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,127}$"


class TaskSpec(BaseModel):
    """Everything in ``task.toml``: identity, split, metadata, limits and family settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=TASK_ID_PATTERN, description="Unique id; lowercase, digits, . _ -.")
    family: str = Field(min_length=1, description="Name of the family that verifies this task.")
    split: Split = Field(default=Split.TRAIN, description="train, dev, test or frozen.")
    tags: tuple[str, ...] = Field(default=(), description="Free-form labels for filtering.")
    locale: str | None = Field(default=None, description="Locale of the task's conventions.")
    difficulty: Literal["easy", "medium", "hard"] | None = Field(
        default=None, description="Author's estimate of difficulty."
    )
    limits: Limits = Field(default_factory=Limits, description="Sandbox limits for this task.")
    config: dict[str, Any] = Field(
        default_factory=dict,
        description="Family-specific settings: the table named after the family in task.toml.",
    )
