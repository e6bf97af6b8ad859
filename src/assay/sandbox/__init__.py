"""Sandboxes: where untrusted code runs. The protocol, the bubblewrap backend, a test stand-in."""

from assay.sandbox.bubblewrap import BubblewrapSandbox
from assay.sandbox.local import LocalSandbox
from assay.sandbox.protocol import ExecResult, Sandbox

__all__ = ["BubblewrapSandbox", "ExecResult", "LocalSandbox", "Sandbox"]
