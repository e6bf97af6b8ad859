"""The task: spec, prompt, files the agent starts with, hidden verifier data and solutions."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.tasks.spec import TaskSpec

Files = dict[str, bytes]
"""Relative POSIX path to file contents."""

REFERENCE = "reference"
_VERSIONS = "_content_versions"
SOLUTION_LABEL = re.compile(r"^(reference|reference-[a-z0-9][a-z0-9-]*|bad-[a-z0-9][a-z0-9-]*)$")


class Task(BaseModel):
    """One problem, exactly as stored in its task directory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: TaskSpec = Field(description="The parsed task.toml.")
    prompt: str = Field(description="What the agent sees (prompt.md).")
    workspace: Files = Field(default_factory=dict, description="Files copied into the sandbox.")
    hidden: Files = Field(default_factory=dict, description="Verifier data; never mounted.")
    solutions: dict[str, Files] = Field(
        default_factory=dict,
        description="Solution directories by name: reference, reference-<label>, bad-<label>.",
    )

    @property
    def id(self) -> str:
        """The task id."""
        return self.spec.id

    @property
    def family(self) -> str:
        """The name of the family that verifies this task."""
        return self.spec.family

    def references(self) -> dict[str, Files]:
        """Every solution that must pass, by name."""
        return {
            name: files
            for name, files in sorted(self.solutions.items())
            if name == REFERENCE or name.startswith(f"{REFERENCE}-")
        }

    def known_bad(self) -> dict[str, Files]:
        """Every solution that must fail, by name (``bad-<label>``)."""
        return {
            name: files for name, files in sorted(self.solutions.items()) if name.startswith("bad-")
        }

    def content_version(self, family_version: str) -> str:
        """A stable hash over everything that defines the task and the code that judges it.

        Computed once per family version: a task is a value, not to be changed in place.
        """
        # Kept in the instance dict beside the fields: equality and serialisation ignore it.
        cache: dict[str, str] = self.__dict__.setdefault(_VERSIONS, {})
        known = cache.get(family_version)
        if known is None:
            known = cache[family_version] = self._hash(family_version)
        return known

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Task:
        """A copy, as pydantic makes it; with ``update`` its content version is computed anew."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            copied.__dict__.pop(_VERSIONS, None)
        return copied

    def _hash(self, family_version: str) -> str:
        digest = hashlib.sha256()
        digest.update(b"assay-task-v1\0")
        _feed(digest, "family", family_version.encode())
        spec = json.dumps(self.spec.model_dump(mode="json"), sort_keys=True).encode()
        _feed(digest, "spec", spec)
        _feed(digest, "prompt", self.prompt.encode())
        for area, files in (("workspace", self.workspace), ("hidden", self.hidden)):
            for path in sorted(files):
                _feed(digest, f"{area}/{path}", files[path])
        for name in sorted(self.solutions):
            for path in sorted(self.solutions[name]):
                _feed(digest, f"solutions/{name}/{path}", self.solutions[name][path])
        return digest.hexdigest()[:20]


def _feed(digest: hashlib._Hash, name: str, data: bytes) -> None:
    for part in (name.encode(), data):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
