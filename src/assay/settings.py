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


DB = Setting(
    "db", "assay.db", "SQLite file that keeps runs, verdicts, the job queue and trajectories."
)
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

MAX_SANDBOXES = Setting(
    "max_sandboxes",
    str(2 * (os.cpu_count() or 1)),
    "Episodes' tool calls and verifications to run at once in `assay run` (sandbox workers).",
)
MAX_REQUESTS = Setting(
    "max_requests",
    "32",
    "Model requests in flight at once in `assay run`; episodes waiting for the model hold no "
    "sandbox.",
)

SETTINGS = (DB, WORKERS, SANDBOX, MAX_SANDBOXES, MAX_REQUESTS)

JUDGE_BASE_URL = Setting(
    "judge_base_url",
    "",
    "OpenAI-compatible endpoint of the judge models of rubric criteria that name none "
    "(then OPENAI_BASE_URL).",
)
JUDGE_API_KEY = Setting(
    "judge_api_key", "", "API key of the judges' endpoint (then OPENAI_API_KEY)."
)
