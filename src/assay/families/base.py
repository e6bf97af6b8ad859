"""The family extension point: what every kind of task must provide."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from assay.findings import Finding
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.verdicts import Verdict


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
