"""The ``terminal`` family: settings, and a verifier that says a container backend is needed."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.errors import ContainerRequiredError, TaskFormatError
from assay.findings import Finding
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Number
from assay.tasks.taskdir import read_files, read_solution_file
from assay.verdicts import Verdict

VERSION = "8"
SOLUTION = "solve.sh"
"""The reference script's name in ``solutions/reference/``."""


class TerminalConfig(BaseModel):
    """The ``[terminal]`` table of task.toml: where the task came from and how it runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: Literal["terminal-bench", "harbor"] = Field(description="The format it was read from.")
    test_command: str = Field(
        min_length=1, description="The test script, a path in hidden/ (run-tests.sh, test.sh)."
    )
    agent_timeout_s: Number | None = Field(default=None, gt=0, description="The agent's time.")
    verifier_timeout_s: Number | None = Field(default=None, gt=0, description="The tests' time.")
    category: str | None = Field(default=None, description="The task's category.")
    difficulty: str | None = Field(default=None, description="Difficulty as the source says it.")
    author: str | None = Field(default=None, description="Author name or email.")
    parser_name: str | None = Field(default=None, description="Terminal-Bench's test parser.")
    image: str | None = Field(default=None, description="A prebuilt image instead of a build.")
    environment: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="Harbor's [environment] settings (cpus, memory_mb...)."
    )


def terminal_config(task: Task) -> TerminalConfig:
    """The task's ``[terminal]`` table; raises :class:`TaskFormatError` naming the field."""
    try:
        return TerminalConfig.model_validate(task.spec.config)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise TaskFormatError(
            first["msg"],
            path=f"{task.id}/task.toml",
            field="terminal." + ".".join(str(p) for p in first["loc"]),
            fix="correct the [terminal] table",
        ) from None


class TerminalFamily:
    """Terminal-Bench and Harbor tasks. Read, linted and audited statically; not run."""

    name = "terminal"
    version = VERSION
    trusted_code: tuple[str, ...] = ()

    def load_solution(self, path: Path) -> Files:
        """A solution directory, or a single script taken as ``solve.sh``."""
        path = Path(path)
        if path.is_dir():
            return read_files(path)
        return {SOLUTION: read_solution_file(path, missing="pass solve.sh or its directory")}

    def empty_solution(self, task: Task) -> Files:
        """A script that does nothing."""
        return {SOLUTION: b"#!/bin/sh\nexit 0\n"}

    def lint(self, task: Task) -> list[Finding]:
        """Static checks: nothing here needs a container (:mod:`.lint`)."""
        from assay.families.terminal.lint import lint_terminal_task  # noqa: PLC0415

        return lint_terminal_task(task)

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Always raises :class:`ContainerRequiredError`: the task runs in a container."""
        raise ContainerRequiredError(f"{task.id}: {self.container_needed(task)}")

    def container_needed(self, task: Task) -> str:
        """Why ``task`` is neither verified nor run: it needs a container backend."""
        config = terminal_config(task)
        return (
            f"a {config.source} task runs in a container (its Dockerfile or image and its test "
            "script); verifying or running it needs a container backend, which assay does not "
            "have (audit it with --checks lint,duplicates,contamination)"
        )
