"""Settings, each declared once: its name, default and help feed the flag, the ``ASSAY_*``
environment variable and the documentation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """One setting: ``--<flag>`` on the command line, ``ASSAY_<NAME>`` in the environment."""

    name: str
    default: str
    help: str

    @property
    def env(self) -> str:
        """The environment variable that sets it."""
        return f"ASSAY_{self.name.upper()}"

    @property
    def flag(self) -> str:
        """The command-line flag that sets it."""
        return f"--{self.name.replace('_', '-')}"

    def value(self) -> str:
        """The environment's value, else the default."""
        return os.environ.get(self.env, self.default)


DB = Setting("db", "assay.db", "SQLite file that keeps audit runs and verdicts.")
WORKERS = Setting(
    "workers",
    str(2 * (os.cpu_count() or 1)),
    "Sandboxed jobs to run at once (default: twice the CPUs, since part of each job's time is "
    "spent in this process).",
)

SANDBOX = Setting(
    "sandbox",
    "pool",
    "Sandbox backend: pool (warm isolated workers) or bubblewrap (a fresh sandbox per command).",
)

SETTINGS = (DB, WORKERS, SANDBOX)
