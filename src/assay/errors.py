"""Every exception assay raises, in one tree by the boundary that failed.

::

    AssayError
    ├── InputError (ValueError)             the user's input is wrong; the CLI exits 2
    │   ├── TaskFormatError                 a task directory or task.toml is malformed
    │   ├── UnknownFamilyError (LookupError) task.toml names a family nobody registered
    │   ├── SolutionFormatError             a submitted solution path is missing or unusable
    │   └── PolicySpecError                 a policy spec (``openai:MODEL``, ``bad:LABEL``) is wrong
    ├── SandboxError (RuntimeError)         the sandbox could not run a job; the CLI exits 3
    │   └── SandboxUnavailableError         bubblewrap (or another backend need) is missing
    │       └── ContainerRequiredError      the task runs in a container; assay has no such backend
    ├── VerifierError (RuntimeError)        trusted verification code failed; exits 3
    │   ├── CheckerError                    a task's checker cannot judge the task's own outputs
    │   └── RewardError                     a trainer's reward could not be judged, even retried
    ├── PolicyError (RuntimeError)          the model endpoint failed after its retries; exits 3
    │   └── ModelUnreachableError           the model endpoint cannot be reached at all
    └── StoreError (RuntimeError)           the results database cannot be read or written

A candidate that crashes, hangs or cheats is not an error here: that is a ``fail`` verdict. Nor is
a model that refuses, overflows its context or sends malformed tool calls: the policy failed.
An ``AssayError`` message is one line meant for a person: it names the file, the field and the fix.
"""

from __future__ import annotations

from pathlib import Path


class AssayError(Exception):
    """Root of every error assay raises on purpose."""


class InputError(AssayError, ValueError):
    """Input supplied by the user is wrong; nothing was changed because of it."""

    def __init__(
        self,
        problem: str,
        *,
        path: Path | str | None = None,
        field: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.problem = problem
        self.path = None if path is None else str(path)
        self.field = field
        self.fix = fix
        where = ": ".join(part for part in (self.path, field) if part)
        message = f"{where}: {problem}" if where else problem
        if fix:
            message = f"{message} ({fix})"
        super().__init__(message)

    def under(self, task_id: str, directory: Path | str) -> InputError:
        """This error, its path given below ``directory`` where it was given below the task's id.

        Code that holds a task but not the directory it was read from names files
        ``<task id>/hidden/cases.json``; the caller that knows the directory calls this so
        that the message names the path the user passed.
        """
        if self.path is None or not self.path.startswith(f"{task_id}/"):
            return self
        relative = self.path.removeprefix(f"{task_id}/")
        located = type(self).__new__(type(self))
        InputError.__init__(
            located, self.problem, path=Path(directory) / relative, field=self.field, fix=self.fix
        )
        return located


class TaskFormatError(InputError):
    """A task directory or its ``task.toml`` does not follow the task format."""


class UnknownFamilyError(InputError, LookupError):
    """A task names a family that is not registered."""


class SolutionFormatError(InputError):
    """A submitted solution path does not exist or is not laid out as the family expects."""


class SandboxError(AssayError, RuntimeError):
    """The sandbox failed to run a job (not the job failing inside it)."""


class SandboxUnavailableError(SandboxError):
    """A sandbox backend cannot start on this host; the message says what to install."""


class ContainerRequiredError(SandboxUnavailableError):
    """The task runs in a container (Terminal-Bench, Harbor), which no assay backend provides:
    it can be read, linted and audited statically, not verified."""


class VerifierError(AssayError, RuntimeError):
    """Trusted verification code failed; the attempt is recorded as an ``error`` verdict."""


class CheckerError(VerifierError):
    """A task's checker gave no verdict even on the task's own expected outputs: the task cannot
    be judged within its limits (an ``error`` verdict, never the candidate's doing)."""


class RewardError(VerifierError):
    """A reward asked for by a trainer could not be judged after its retries, and there is no
    batch to give it a neutral value from: the training step stops rather than learn from the
    machine's failure."""


class PolicySpecError(InputError):
    """A policy spec names an unknown kind of policy or lacks what it needs."""


class PolicyError(AssayError, RuntimeError):
    """The model endpoint failed (transport, 5xx, timeouts) after its retries: infrastructure."""


class ModelUnreachableError(PolicyError):
    """Nothing answers at the model endpoint's address; the message names the URL and the fix."""


class StoreError(AssayError, RuntimeError):
    """The results store cannot be opened, read or written."""
