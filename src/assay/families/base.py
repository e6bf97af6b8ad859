"""The family extension point: what every kind of task must provide."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeGuard, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from assay.findings import Finding
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Status, Verdict


@runtime_checkable
class Family(Protocol):
    """A kind of task: how its solutions are read, how they are judged, what its tasks need.

    Built-in families register through the ``assay.families`` entry-point group, exactly like
    third-party ones.
    """

    name: str
    """Name used in ``task.toml`` (``family = "code"``)."""
    version: str
    """Version of the family's verification code; bump it whenever verdicts could change."""
    trusted_code: tuple[str, ...]
    """Harness code the family runs with ``python -c`` in sandboxes: project code, never secret,
    so warm workers may keep it compiled. Empty when the family has none."""

    def load_solution(self, path: Path) -> Files:
        """Read a submitted solution: a directory laid out like ``solutions/reference/``, or for
        single-file families that one file.

        Raises :class:`assay.errors.SolutionFormatError` when ``path`` does not exist or cannot
        be read.
        """
        ...

    def empty_solution(self, task: Task) -> Files:
        """The files of a submission that does nothing (for code: a function that returns None);
        it must fail every sound task. Raises :class:`assay.errors.TaskFormatError` when the
        task is too malformed to say what doing nothing looks like.
        """
        ...

    def verify(self, task: Task, solution: Files, sandbox: Sandbox) -> Verdict:
        """Judge ``solution`` for ``task``. Untrusted code runs only inside ``sandbox``.

        A broken, slow or cheating solution yields a ``fail`` verdict; infrastructure trouble
        yields an ``error`` verdict. Raises :class:`assay.errors.TaskFormatError` when the task
        itself is malformed for this family.
        """
        ...

    def lint(self, task: Task) -> list[Finding]:
        """Family-specific static checks of a task (no sandbox); an empty list when sound."""
        ...


@dataclass(frozen=True)
class Exploit:
    """A submission that solves nothing and tries to pass anyway (a reward hack)."""

    name: str
    """Stable name shown on findings (``always-equal``)."""
    what: str
    """What it does, in a few words."""
    files: Files
    """The submission."""
    endless: bool = False
    """It never ends by design (it loops until the sandbox stops it): stopped at the limits the
    red-team fits to the reference, it has done all it ever does, so the red-team does not run it
    again under the task's own, longer limits (which would only cost their whole length)."""


@runtime_checkable
class RedTeamFamily(Protocol):
    """A family whose verifier the audit's red-team attacks with known reward hacks."""

    name: str

    def exploits(self, task: Task) -> list[Exploit]:
        """The hacks to try on ``task``, shaped for it (its entry point, its prompt); each must
        fail. Empty when the task is too malformed to shape them (lint reports that)."""
        ...


@runtime_checkable
class ObservingRedTeamFamily(Protocol):
    """A family with reward hacks that must see something first: the reference's answer on
    the data an agent can see, say, to hard-code it."""

    name: str

    def observed_exploits(self, task: Task, sandbox: Sandbox) -> list[Exploit]:
        """The hacks made from what running the reference in ``sandbox`` shows; each must
        fail. Empty when there is nothing to shape them from."""
        ...


@dataclass(frozen=True)
class Mutant:
    """The reference with one small change, the way real mistakes look (a flipped comparison,
    a dropped filter). A verifier that lets it pass cannot tell the reference from a near miss;
    a mutant that happens to be equivalent to the reference is a survivor too, so survivors are
    shown for a person to judge, not counted as proof."""

    name: str
    """What was changed (``flip-comparison``, ``drop-predicate``)."""
    diff: str
    """The change, as a few lines of unified diff against the reference."""
    files: Files
    """The mutated submission."""


@runtime_checkable
class BatchFamily(Protocol):
    """A family that verifies several solutions at once for the audit, in fewer sandbox jobs
    (:func:`assay.sandbox.batch.run_many`) than one each."""

    name: str

    def verify_many(self, items: Sequence[tuple[Task, Files]], sandbox: Sandbox) -> list[Verdict]:
        """The verdict ``verify`` gives on each (task, solution) pair, in order. Only for
        solutions of one origin (a task's own, the audit's hacks), never an agent's."""
        ...


def verify_confirmed(
    family: Family,
    items: Sequence[tuple[Task, Files]],
    sandbox: Sandbox,
    *,
    findings: Sequence[Status] | None = None,
) -> list[Verdict]:
    """``family.verify`` on each (task, solution) pair, in order: in batches where the family
    can (:class:`BatchFamily`, fewer sandbox jobs), and then every verdict from a batch that
    would be a finding verified again alone, so that each is the verdict an agent's submission
    would get. A pass is the finding (a hack's, a known-bad's), unless ``findings`` gives each
    pair's own (a reference's is a fail). For a task's own solutions and the audit's hacks
    only, as :meth:`BatchFamily.verify_many`."""
    if len(items) < 2 or not isinstance(family, BatchFamily):
        return [family.verify(task, solution, sandbox) for task, solution in items]
    found = findings if findings is not None else [Status.PASS] * len(items)
    return [
        family.verify(task, solution, sandbox) if verdict.status is finding else verdict
        for (task, solution), verdict, finding in zip(
            items, family.verify_many(items, sandbox), found, strict=True
        )
    ]


@runtime_checkable
class MutationFamily(Protocol):
    """A family whose verifier the audit's mutation check measures with mutants of the
    reference."""

    name: str

    def mutants(self, task: Task) -> list[Mutant]:
        """Mutants of ``task``'s reference solution, each different from it as text. Empty when
        the reference cannot be parsed (lint and the reference check report that)."""
        ...


@dataclass(frozen=True)
class Probe:
    """The task with one expected value changed, which its reference must now fail."""

    name: str
    """Which value was changed (``case-3``)."""
    what: str
    """The change, in a few words (``expected 2 -> 3``)."""
    task: Task
    """The changed task."""


@runtime_checkable
class SensitivityFamily(Protocol):
    """A family whose verifier the audit's sensitivity check probes: a verifier that still
    passes the reference after one expected value changed is not looking at that value."""

    name: str

    def probes(self, task: Task) -> list[Probe]:
        """Copies of ``task``, each with one expected value changed so that no right answer
        can match both. Empty when the task's values cannot be changed that way (a checker
        judges them, or the task is malformed: lint reports that)."""
        ...


_T = TypeVar("_T")

CASE_ORDERS = ("as written", "reversed", "every other first")
"""The orders of a task's cases that the audit's flaky check runs: index 0 is the task's own."""


def in_case_order(items: Sequence[_T], order: int) -> list[_T]:
    """``items`` in order ``order`` of :data:`CASE_ORDERS`: as they are, reversed, or every
    other one first (1, 3, 5, ..., then 0, 2, 4, ...)."""
    if order == 1:
        return list(items[::-1])
    if order == 2:
        return [*items[1::2], *items[0::2]]
    return list(items)


@runtime_checkable
class CaseOrderFamily(Protocol):
    """A family whose tasks' cases may run in another order: a solution that is right only in
    the task's own order (it keeps state from one call to the next) is flaky, and the audit's
    flaky check varies the order to find it."""

    name: str

    def reordered(self, task: Task, order: int) -> Task:
        """``task`` with its cases in order ``order`` (an index of :data:`CASE_ORDERS`);
        ``task`` itself when it has no cases to reorder (or is malformed: lint reports that)."""
        ...


class ToolResult(BaseModel):
    """What one tool call gave back to the agent: an observation, never an exception."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    output: str = Field(description="The observation shown to the agent, already bounded.")
    ok: bool = Field(description="False when the call was refused, invalid or its command failed.")
    submitted: bool = Field(default=False, description="The call submitted the episode's work.")
    wall_s: float = Field(default=0.0, ge=0, description="Wall time the call took, seconds.")
    sandbox_cpu_s: float = Field(default=0.0, ge=0, description="CPU time used in sandboxes.")


@runtime_checkable
class Toolset(Protocol):
    """One episode's tools and the state they act on (for code: the workspace's files).

    The state lives with the toolset and dies with it; a sandbox is lent for each call only.
    """

    fence: str
    """Language name of the fenced block that is a single-turn answer (``python``)."""

    def schemas(self) -> list[dict[str, Any]]:
        """The tools in OpenAI function format, in a stable order."""
        ...

    def call(self, name: str, arguments: Mapping[str, Any], sandbox: Sandbox) -> ToolResult:
        """Run one tool call. Unknown tools, bad arguments and failing commands come back as a
        result with ``ok`` false; only the sandbox failing raises :class:`SandboxError`.
        """
        ...

    def submission(self) -> Files:
        """The files to judge: what the agent made, never the sandbox's own state."""
        ...

    def answer_files(self, code: str) -> Files:
        """The submission made of a single-turn answer's last fenced block."""
        ...

    def script(self, files: Files) -> list[tuple[str, dict[str, Any]]]:
        """The tool calls (name, arguments) that submit ``files`` through the tools."""
        ...

    def script_answer(self, files: Files) -> str:
        """A single-turn answer that submits ``files``."""
        ...


@runtime_checkable
class ToolFamily(Protocol):
    """A family whose tasks agents can act on: it gives each episode a fresh toolset."""

    name: str
    """Name used in ``task.toml``."""

    def tools(self, task: Task) -> Toolset:
        """A fresh toolset over ``task``'s starting files. Raises :class:`TaskFormatError`
        when the task is too malformed to act on."""
        ...


@runtime_checkable
class ContainerFamily(Protocol):
    """A family whose tasks run in a container of their own, for which assay has no backend:
    they are linted, never verified or run."""

    def container_needed(self, task: Task) -> str:
        """Why ``task`` cannot be verified or run here, in one line."""
        ...


def no_episodes(family: object, task: Task) -> str:
    """Why no episode can be run on ``task`` of ``family``, a family that gives no tools."""
    if isinstance(family, ContainerFamily):
        return family.container_needed(task)
    name = getattr(family, "name", "?")
    return f"family {name!r} gives agents no tools, so no episode can be run on it"


_GIVES_TOOLS: dict[type, bool] = {}


def gives_tools(family: object) -> TypeGuard[ToolFamily]:
    """Whether ``family`` is a :class:`ToolFamily`, checked once for each family class: on
    Python 3.11 a check against a runtime protocol costs more than the rest of starting an
    episode."""
    kind = type(family)
    if kind not in _GIVES_TOOLS:
        _GIVES_TOOLS[kind] = isinstance(family, ToolFamily)
    return _GIVES_TOOLS[kind]
