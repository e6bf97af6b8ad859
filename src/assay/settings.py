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

HOST = Setting(
    "host",
    "127.0.0.1",
    "Address `assay serve` binds to; anything but loopback needs a token.",
)
PORT = Setting("port", "8400", "Port `assay serve` listens on (0: any free port).")
TOKEN = Setting(
    "token",
    "",
    "Token `assay serve` requires of every request, as `Authorization: Bearer <token>` "
    "(WebSocket clients without headers: the path /token/<token>/ws). Empty: none, loopback only.",
)
MAX_SESSIONS = Setting(
    "max_sessions", "64", "Sessions `assay serve` holds at once; past it new ones are refused."
)
IDLE_TIMEOUT = Setting(
    "idle_timeout",
    "600",
    "Seconds without a request after which `assay serve` reclaims a session and its sandbox.",
)

SETTINGS = (
    DB,
    WORKERS,
    SANDBOX,
    MAX_SANDBOXES,
    MAX_REQUESTS,
    HOST,
    PORT,
    TOKEN,
    MAX_SESSIONS,
    IDLE_TIMEOUT,
)

JUDGE_BASE_URL = Setting(
    "judge_base_url",
    "",
    "OpenAI-compatible endpoint of the judge models of rubric criteria that name none "
    "(then OPENAI_BASE_URL).",
)
JUDGE_API_KEY = Setting(
    "judge_api_key", "", "API key of the judges' endpoint (then OPENAI_API_KEY)."
)
