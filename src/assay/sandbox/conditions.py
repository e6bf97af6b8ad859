"""Commands run under other conditions: environment variables set for one command.

The audit's flaky check runs a task's own solutions again with another hash seed, time zone and
locale. Harness commands are ``python -I ...``, and isolated mode (``-I``, which implies ``-E``)
ignores every ``PYTHON*`` variable, ``PYTHONHASHSEED`` among them; a pool job started on the
fast path even shares its worker's hash secret with every other job. The pool takes the
variables as conditions, and runs the job on a worker started under them, whose jobs all
inherit them (:class:`assay.sandbox.PoolSandbox`). Elsewhere :func:`with_environment` starts
such a command through ``/usr/bin/env`` (a fresh interpreter) and replaces ``-I`` by what it
means apart from ignoring the environment: ``-s`` (no user site) and ``-P`` (no script or
working directory on ``sys.path``). The variables are ours, never the submission's, so
honouring them lets in nothing the job did not have.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from assay.errors import SandboxError
from assay.sandbox.protocol import ExecResult, Sandbox
from assay.tasks.spec import Limits

ENV = "/usr/bin/env"
_ISOLATED = ("-s", "-P")


def check_conditions(env: Mapping[str, str]) -> None:
    """Raise :class:`SandboxError` for variables no process can be started with: a name that
    is empty or holds ``=`` or a NUL byte, a value that holds a NUL byte; either holding a
    lone surrogate (no bytes to pass it as)."""
    for name, value in env.items():
        if not name or "=" in name or "\0" in name:
            raise SandboxError(
                f"condition name {name[:200]!r} is empty or holds '=' or a NUL byte: "
                "name an environment variable"
            )
        if "\0" in value:
            raise SandboxError(
                f"condition {name[:200]} holds a NUL byte ({value[:200]!r}): "
                "an environment value cannot"
            )
        try:
            os.fsencode(name + value)
        except UnicodeEncodeError:
            raise SandboxError(
                f"condition {name[:200]!r} holds a lone surrogate ({value[:200]!r}): "
                "give it as UTF-8 text"
            ) from None


def with_environment(command: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """``command`` run with ``env`` set; an isolated Python command keeps its isolation but
    honours the ``PYTHON*`` variables of ``env`` (see the module docstring)."""
    check_conditions(env)
    program = list(command)
    options = program[1 : program.index("-c") if "-c" in program else len(program)]
    if program and program[0].rpartition("/")[2].startswith("python") and "-I" in options:
        at = program.index("-I")  # the first: among the options, before any argument
        program[at : at + 1] = list(_ISOLATED)
    return [ENV, *(f"{key}={value}" for key, value in env.items()), *program]


def environment_of(sandbox: Sandbox) -> dict[str, str]:
    """The variables ``sandbox`` sets on every command ({} unless it is a :class:`WithEnvironment`),
    for families that run their jobs through a sandbox of their own."""
    return dict(sandbox.env) if isinstance(sandbox, WithEnvironment) else {}


class WithEnvironment:
    """A sandbox whose commands run with ``env`` set (see :func:`with_environment`), otherwise
    the sandbox it wraps."""

    takes_conditions = False
    """Not the wrapped sandbox's answer: :meth:`run` takes no conditions of its own."""

    def __init__(self, inner: Sandbox, env: Mapping[str, str]) -> None:
        self.inner = inner
        self.env = dict(env)
        self.name = inner.name

    @property
    def python(self) -> str:
        """The wrapped backend's interpreter."""
        return self.inner.python

    @property
    def notes(self) -> tuple[str, ...]:
        """The wrapped backend's notes."""
        return self.inner.notes

    def close(self) -> None:
        """Nothing: the wrapped sandbox belongs to its owner."""

    def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes = b"",
        packages: Sequence[str] = (),
        sockets: bool = True,
    ) -> ExecResult:
        """Run ``command`` in the wrapped sandbox with the environment set: where it takes
        conditions (the pool: a worker started under them), as they are; elsewhere through
        :func:`with_environment`."""
        if getattr(self.inner, "takes_conditions", False):
            run: Any = self.inner.run
            return run(  # type: ignore[no-any-return]
                command,
                files=files,
                limits=limits,
                stdin=stdin,
                packages=packages,
                sockets=sockets,
                conditions=self.env,
            )
        return self.inner.run(
            with_environment(command, self.env),
            files=files,
            limits=limits,
            stdin=stdin,
            packages=packages,
            sockets=sockets,
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
