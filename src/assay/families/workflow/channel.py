"""The channel: agent code in a sandbox reaches its emulator and nothing else.

Each job runs in a bubblewrap sandbox exactly like :class:`assay.sandbox.BubblewrapSandbox`'s
(own network namespace with only loopback, read-only system, seccomp filter, unprivileged uid,
limits), plus two read-only binds: the emulator's directory, which holds nothing but its Unix
socket, at :data:`CHANNEL_DIR`, and the SDK's compiled bytecode at :data:`BYTECODE_DIR`. The
harness (:mod:`._harness`) forwards a loopback port of the sandbox's own namespace to that
socket, so the SDK sees an ordinary endpoint. Other emulators' sockets, the host's loopback
and every other network are simply not there.

The pool backend's workers have their mounts fixed when they start, so workflow jobs always go
through this backend, whichever sandbox the caller lent.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files as package_files

from assay.families.workflow._bytecode import bytecode_cache
from assay.families.workflow.emulator import Emulator
from assay.sandbox import BubblewrapSandbox, ExecResult
from assay.sandbox.conditions import with_environment
from assay.tasks.model import Files
from assay.tasks.spec import Limits

CHANNEL_DIR = "/run/emulator"
"""Where a job sees its emulator's directory."""
BYTECODE_DIR = "/run/pycache"
"""Where a job sees the SDK's compiled bytecode (see :mod:`._bytecode`)."""
PACKAGES = ("boto3",)
"""What agent code may import besides the standard library."""


@cache
def harness_code() -> str:
    """The text of the in-sandbox harness."""
    return (package_files("assay.families.workflow") / "_harness.py").read_text(encoding="utf-8")


class ChannelSandbox(BubblewrapSandbox):
    """A bubblewrap sandbox whose jobs may each be wired to one emulator."""

    def __init__(self, bwrap: str | None = None) -> None:
        super().__init__(bwrap)
        self._wiring = threading.local()

    def run_script(
        self,
        emulator: Emulator,
        script: str,
        files: Files,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run ``files[script]`` with the SDK pointed at ``emulator``, and ``env`` set if given
        (:func:`assay.sandbox.conditions.with_environment`); see the module docstring."""
        command = [self.python, "-I", "-S", "-c", harness_code(), script]
        self._wiring.directory = str(emulator.directory)
        try:
            return self.run(
                with_environment(command, env) if env else command,
                files=files,
                limits=limits,
                packages=PACKAGES,
            )
        finally:
            self._wiring.directory = None

    def _bwrap_args(self, limits: Limits, status_fd: int, package_args: list[str]) -> list[str]:
        args = super()._bwrap_args(limits, status_fd, package_args)
        directory: str | None = getattr(self._wiring, "directory", None)
        if directory is None:
            return args
        at = args.index("--remount-ro")  # mount points are made while / is still writable
        wiring = [
            *("--perms", "0755", "--dir", "/run"),
            *("--ro-bind", directory, CHANNEL_DIR),
            *("--ro-bind", str(bytecode_cache(PACKAGES)), BYTECODE_DIR),
        ]
        return [*args[:at], *wiring, *args[at:]]


_shared: ChannelSandbox | None = None
_shared_lock = threading.Lock()


def channel_sandbox() -> ChannelSandbox:
    """The process's channel sandbox, made on first use."""
    global _shared  # noqa: PLW0603 - one per process: compiling its filter takes a while
    with _shared_lock:
        if _shared is None:
            _shared = ChannelSandbox()
        return _shared


def run_with(
    emulator: Emulator,
    script: str,
    files: Files,
    limits: Limits,
    env: Mapping[str, str] | None = None,
) -> ExecResult:
    """Run one script against ``emulator`` in the shared channel sandbox, with ``env`` set."""
    return channel_sandbox().run_script(emulator, script, files, limits, env)


__all__: Sequence[str] = ("CHANNEL_DIR", "ChannelSandbox", "channel_sandbox", "run_with")
